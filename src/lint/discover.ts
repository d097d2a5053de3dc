/**
 * Lint's walk over skill roots. Per directory it calls the server's own
 * `loadSkill` and applies the same rules as `discoverSkills` (a root holding
 * SKILL.md is a skill, else its direct children; first name in priority order
 * wins), but keeps each directory so every finding can name its file.
 */
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { loadSkill, shadowedSkill } from "../skills/discover.js";
import type { Diagnostic } from "../skills/diagnostics.js";
import type { SkillInfo } from "../skills/types.js";
import { mapLimit } from "../skills/map-limit.js";

export interface DirDiagnostics {
  readonly dir: string;
  readonly diagnostics: readonly Diagnostic[];
}

export interface LintDiscovery {
  /** Skills the server would serve, in priority order. */
  readonly skills: SkillInfo[];
  /** Every diagnostic, with the skill directory it belongs to. */
  readonly diagnostics: DirDiagnostics[];
  /** Roots that exist but hold no SKILL.md. */
  readonly emptyRoots: string[];
}

async function isFile(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null))?.isFile() ?? false;
}

async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null))?.isDirectory() ?? false;
}

export async function skillDirsOf(root: string): Promise<string[]> {
  if (await isFile(path.join(root, "SKILL.md"))) return [root];
  let names: string[];
  try {
    names = (await readdir(root)).sort();
  } catch {
    return [];
  }
  const found = await mapLimit(names, 32, async (name) => {
    const dir = path.join(root, name);
    return (await isDir(dir)) && (await isFile(path.join(dir, "SKILL.md"))) ? dir : null;
  });
  return found.filter((d): d is string => d !== null);
}

export async function discoverForLint(roots: readonly string[]): Promise<LintDiscovery> {
  const skills: SkillInfo[] = [];
  const diagnostics: DirDiagnostics[] = [];
  const emptyRoots: string[] = [];
  const byName = new Map<string, SkillInfo>();
  for (let rootIndex = 0; rootIndex < roots.length; rootIndex++) {
    const root = path.resolve(roots[rootIndex]!);
    if (!(await isDir(root))) continue;
    const dirs = await skillDirsOf(root);
    if (dirs.length === 0) emptyRoots.push(root);
    const loaded = await mapLimit(dirs, 32, (d) => loadSkill(d, root, rootIndex));
    loaded.forEach(({ skill, diagnostics: ds }, i) => {
      const dir = dirs[i]!;
      if (ds.length > 0) diagnostics.push({ dir, diagnostics: ds });
      if (skill === null) return;
      const first = byName.get(skill.name);
      if (first !== undefined) {
        diagnostics.push({ dir, diagnostics: [shadowedSkill(skill, first)] });
        return;
      }
      byName.set(skill.name, skill);
      skills.push(skill);
    });
  }
  return { skills, diagnostics, emptyRoots };
}
