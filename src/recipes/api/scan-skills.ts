/**
 * `scanSkills`: the counterpart of dcc-mcp-core's `scan_and_load` — resolve
 * the skill roots of one DCC the way the daemon does and return the skills
 * that serve it. Everything it depends on comes in its options, with the
 * defaults below: it reads no process.env (the caller, like the CLI's
 * config, decides which environment counts).
 */
import os from "node:os";
import type { Diagnostic } from "../../util/diagnostics.js";
import { discoverSkills } from "../../skills/discover.js";
import { resolveSkillRoots } from "../../skills/roots.js";
import type { SkillInfo } from "../../skills/types.js";
import { skillServesDcc } from "../catalog/catalog.js";

export interface ScanSkillsOptions {
  readonly dccName: string;
  /** Searched first, like --skills-path. */
  readonly extraPaths?: readonly string[];
  /**
   * The DCC_MCP_* root variables to honour. Default: none (only
   * `extraPaths` and the platform's default roots); pass `process.env` to
   * honour the process's own, as the daemon does.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Home directory the platform's default roots hang off. Default: os.homedir(). */
  readonly homeDir?: string;
}

export interface ScanSkillsResult {
  readonly skills: SkillInfo[];
  readonly diagnostics: Diagnostic[];
  /** The roots searched, in priority order. */
  readonly roots: string[];
}

export async function scanSkills(options: ScanSkillsOptions): Promise<ScanSkillsResult> {
  const dcc = options.dccName.toLowerCase();
  const roots = resolveSkillRoots({
    dcc,
    extraPaths: options.extraPaths ?? [],
    env: options.env ?? {},
    homeDir: options.homeDir ?? os.homedir(),
    platform: process.platform,
  });
  const found = await discoverSkills(roots);
  return {
    skills: found.skills.filter((skill) => skillServesDcc(skill.dcc, dcc)),
    diagnostics: found.diagnostics,
    roots,
  };
}
