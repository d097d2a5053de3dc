/**
 * Skill discovery (docs/skill-packs.md): a root that holds SKILL.md is a skill, otherwise
 * each direct child directory with SKILL.md is one. First root wins on a name clash.
 */
import { existsSync, lstatSync, realpathSync, statSync, type Dirent, type Stats } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { diagnostic, type Diagnostic } from "../util/diagnostics.js";
import { deepFreeze } from "../util/stable-json.js";
import { parseSkillMarkdown, withDependsFile } from "./frontmatter.js";
import { decodeUtf8, statQuiet } from "../util/read-bounded.js";
import { OUTSIDE, readInsideSettled } from "../util/read-inside.js";
import type { SkillInfo } from "./types.js";

/** SKILL.md over this size is refused. */
export const MAX_SKILL_MD_BYTES = 1024 * 1024;
const RESERVED_SKILL_NAMES: readonly string[] = Object.freeze(["private"]);

interface DiscoverLogger {
  debug(obj: Record<string, unknown>, msg: string): void;
}

interface DiscoverResult {
  readonly skills: SkillInfo[];
  readonly diagnostics: Diagnostic[];
}

export interface LoadSkillResult {
  /** null when the skill is invalid (the diagnostics say why). */
  readonly skill: SkillInfo | null;
  readonly diagnostics: Diagnostic[];
}

function isDir(p: string): boolean {
  return statQuiet(p)?.isDirectory() ?? false;
}

/**
 * A directory holds a SKILL.md in any form: a regular file, but also one
 * that cannot be a skill's (a FIFO, a device, a dangling link) or cannot be
 * checked (a directory without permission). Those are skills that fail to
 * load, with a diagnostic naming them, rather than silently absent.
 */
export function hasSkillMd(dir: string): boolean {
  const file = path.join(dir, "SKILL.md");
  // Something is there (links followed): the common case, answered without
  // building a Stats object (Node 20 makes four Dates for each).
  if (existsSync(file)) return true;
  try {
    lstatSync(file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code !== "ENOENT" && code !== "ENOTDIR";
  }
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return "a FIFO";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  if (st.isDirectory()) return "a directory";
  return "not a file";
}

/** Why SKILL.md cannot be read, found by stat alone: a FIFO or device is never opened. */
function refusedSkillMd(file: string, where: { skill: string; file: string }): Diagnostic | null {
  let st: Stats;
  try {
    st = statSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "unknown error";
    const what = code === "EACCES" || code === "EPERM" ? "the skill directory" : "SKILL.md";
    return diagnostic("error", "file_unreadable", `${what} cannot be read (${code})`, where);
  }
  return st.isFile() ? null : diagnostic("error", "file_unreadable", `SKILL.md is ${kindOf(st)}, not a regular file`, where);
}

/** Reads and parses one skill directory; never throws for a bad file. */
export async function loadSkill(dir: string, root: string, rootIndex: number): Promise<LoadSkillResult> {
  const dirName = path.basename(dir);
  const where = { skill: dirName, file: "SKILL.md" };
  const file = path.join(dir, "SKILL.md");
  const unloaded = (code: "file_unreadable" | "file_too_large" | "not_utf8", message: string): LoadSkillResult => ({
    skill: null,
    diagnostics: [diagnostic("error", code, message, where)],
  });
  const refused = refusedSkillMd(file, where);
  if (refused !== null) return { skill: null, diagnostics: [refused] };
  let realDir: string;
  try {
    realDir = realpathSync.native(dir);
  } catch (err) {
    return unloaded("file_unreadable", `the skill directory cannot be read (${(err as NodeJS.ErrnoException).code ?? "unknown error"})`);
  }
  const read = await readInsideSettled(realDir, file, MAX_SKILL_MD_BYTES);
  if (!read.ok) {
    if (read.reason === "unreadable" && read.code === OUTSIDE) return unloaded("file_unreadable", `SKILL.md leads ${OUTSIDE}`);
    if (read.reason === "changing") return unloaded("file_unreadable", "SKILL.md kept changing while it was read; it is read again at its next change");
    if (read.reason === "too_large") return unloaded("file_too_large", `SKILL.md is ${read.size} bytes; the limit is ${MAX_SKILL_MD_BYTES}`);
    return unloaded("file_unreadable", `SKILL.md cannot be read (${read.code})`);
  }
  const text = decodeUtf8(read.bytes);
  if (text === null) return unloaded("not_utf8", "SKILL.md is not valid UTF-8");

  const parsed = parseSkillMarkdown(text, dirName);
  if (!parsed.ok) return { skill: null, diagnostics: parsed.diagnostics };
  const refuse = (code: "reserved_skill_name" | "invalid_skill_name", message: string, skill: string): LoadSkillResult => ({
    skill: null,
    diagnostics: [...parsed.diagnostics, diagnostic("error", code, message, { skill, file: "SKILL.md" })],
  });
  if (RESERVED_SKILL_NAMES.includes(parsed.skill.name)) {
    return refuse("reserved_skill_name", `skill name "${parsed.skill.name}" is reserved for private playbooks; rename the skill`, parsed.skill.name);
  }
  if (!isUsableSkillName(parsed.skill.name)) {
    return refuse(
      "invalid_skill_name",
      "skill name must not contain / or \\, control characters or surrounding spaces, nor be . or .. (recipe ids are <skill>/<name>); rename the skill",
      dirName,
    );
  }
  const skill: SkillInfo = deepFreeze({ ...withDependsFile(parsed.skill, realDir), dir: path.resolve(dir), realDir, root: path.resolve(root), rootIndex });
  return { skill, diagnostics: parsed.diagnostics };
}

/** Does a skill of `skillDcc` belong in the catalog served for `servedDcc`? */
export function skillServesDcc(skillDcc: string, servedDcc: string): boolean {
  const dcc = skillDcc.toLowerCase();
  // `python` is the dcc-mcp-core default for a skill that names no host: it is
  // generic pipeline code, so every DCC sees it, as it sees `any`.
  return dcc === servedDcc || dcc === "any" || dcc === "python";
}

/**
 * A skill name is the first segment of every recipe id (`<skill>/<name>`):
 * a slash in it would let two skills claim one id, and path-like names have
 * no business in a catalog.
 */
function isUsableSkillName(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= 200 &&
    name === name.trim() &&
    name !== "." &&
    name !== ".." &&
    !/[/\\\u0000-\u001f\u007f]/.test(name)
  );
}

/** The order of a root's skill directories: UTF-16 code units, whatever the locale. */
export function compareDirNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Skill directories of one root, in a stable order (hot reload re-lists one root with it). */
export async function skillDirsOf(root: string): Promise<string[]> {
  if (hasSkillMd(root)) return [root];
  let entries: Dirent[];
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch {
    return [];
  }
  const dirs: string[] = [];
  // Sync stats: one per child, microseconds each, where awaiting each in turn
  // cost a thread-pool round trip per child (a thousand-skill root: ~0.2 s).
  for (const entry of entries.sort((a, b) => compareDirNames(a.name, b.name))) {
    const dir = path.join(root, entry.name);
    const isDirectory = entry.isDirectory() || (entry.isSymbolicLink() && isDir(dir));
    if (isDirectory && hasSkillMd(dir)) dirs.push(dir);
  }
  return dirs;
}

interface RootScan {
  readonly rootIndex: number;
  /** The root's skill directories (skillDirsOf), in directory order. */
  readonly dirs: readonly string[];
  /** loadSkill results of `dirs`, one each. */
  readonly results: readonly LoadSkillResult[];
}

/**
 * Merges per-root scans into one discovery result: diagnostics in root then
 * directory order, and the first skill of a name (in priority order) wins.
 * Pure, so a hot reload that re-read one directory can re-merge in memory.
 */
export function assembleDiscovery(
  scans: readonly RootScan[],
  /** Told each directory's diagnostics as they are merged (lint names the file of every finding). */
  onDirDiagnostics?: (dir: string, diagnostics: readonly Diagnostic[]) => void,
): DiscoverResult {
  const skills: SkillInfo[] = [];
  const diagnostics: Diagnostic[] = [];
  const byName = new Map<string, SkillInfo>();
  for (const { dirs, results } of scans) {
    results.forEach(({ skill, diagnostics: ds }, i) => {
      diagnostics.push(...ds);
      if (ds.length > 0) onDirDiagnostics?.(dirs[i]!, ds);
      if (skill === null) return;
      const first = byName.get(skill.name);
      if (first !== undefined) {
        const shadowed = shadowedSkill(skill, first);
        diagnostics.push(shadowed);
        onDirDiagnostics?.(dirs[i]!, [shadowed]);
        return;
      }
      byName.set(skill.name, skill);
      skills.push(skill);
    });
  }
  return { skills, diagnostics };
}

/**
 * The walk of a full load, as the daemon's first load does it: each root
 * that is a directory, its skill directories, each read. lint and
 * scanSkills take their skills from here and assembleDiscovery.
 */
export async function scanRoots(roots: readonly string[], options: { logger?: DiscoverLogger } = {}): Promise<RootScan[]> {
  const scans: RootScan[] = [];
  for (let rootIndex = 0; rootIndex < roots.length; rootIndex++) {
    const root = path.resolve(roots[rootIndex]!);
    if (!isDir(root)) {
      options.logger?.debug({ root, rootIndex }, "skill root missing; skipped");
      continue;
    }
    const dirs = await skillDirsOf(root);
    scans.push({ rootIndex, dirs, results: await Promise.all(dirs.map((d) => loadSkill(d, root, rootIndex))) });
  }
  return scans;
}

export async function discoverSkills(roots: readonly string[], options: { logger?: DiscoverLogger } = {}): Promise<DiscoverResult> {
  return assembleDiscovery(await scanRoots(roots, options));
}

/** The diagnostic for a skill hidden by an earlier one of the same name (lint reports it in the same words). */
function shadowedSkill(skill: SkillInfo, first: SkillInfo): Diagnostic {
  return diagnostic(
    "warning",
    "duplicate_skill",
    `skill "${skill.name}" in skill root #${skill.rootIndex} (directory ${path.basename(skill.dir)}) is shadowed by ` +
      `the one in skill root #${first.rootIndex} (directory ${path.basename(first.dir)})`,
    { skill: skill.name, file: "SKILL.md" },
  );
}
