/**
 * Lint's pass over skill roots: the server's own walk (`skillDirsOf`) and
 * `loadSkill`, with the same rules as `discoverSkills` (a root holding
 * SKILL.md is a skill, else its direct children; first name in priority order
 * wins), but keeping each directory so every finding can name its file.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { loadSkill, shadowedSkill, skillDirsOf } from "../skills/discover.js";
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

async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null))?.isDirectory() ?? false;
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
