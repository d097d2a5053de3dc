/**
 * `scanSkills`: the counterpart of dcc-mcp-core's `scan_and_load` — resolve
 * the skill roots of one DCC the way the daemon does and return the skills
 * that serve it.
 */
import os from "node:os";
import type { Diagnostic } from "../skills/diagnostics.js";
import { discoverSkills } from "../skills/discover.js";
import { resolveSkillRoots } from "../skills/roots.js";
import type { SkillInfo } from "../skills/types.js";
import { skillServesDcc } from "./catalog.js";

export interface ScanSkillsOptions {
  readonly dccName: string;
  /** Searched first, like --skills-path. */
  readonly extraPaths?: readonly string[];
  /** Environment for DCC_MCP_* root variables; defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
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
    // A library entry point: the caller may pass its own env; process.env is the documented default.
    env: options.env ?? process.env,
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
