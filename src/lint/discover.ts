/**
 * Lint's pass over skill roots: the daemon's full-load walk (`scanRoots`)
 * and merge (`assembleDiscovery`, the one scanSkills and every reload use:
 * a root holding SKILL.md is a skill, else its direct children; first name
 * in priority order wins), keeping each directory so every finding can name
 * its file.
 */
import path from "node:path";
import { assembleDiscovery, scanRoots } from "../skills/discover.js";
import type { Diagnostic } from "../util/diagnostics.js";
import type { SkillInfo } from "../skills/types.js";

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

export async function discoverForLint(roots: readonly string[]): Promise<LintDiscovery> {
  const scans = await scanRoots(roots);
  const emptyRoots = scans.filter((scan) => scan.dirs.length === 0).map((scan) => path.resolve(roots[scan.rootIndex]!));
  const diagnostics: DirDiagnostics[] = [];
  const { skills } = assembleDiscovery(scans, (dir, ds) => diagnostics.push({ dir, diagnostics: ds }));
  return { skills, diagnostics, emptyRoots };
}
