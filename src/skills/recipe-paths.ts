/**
 * `metadata.dcc-mcp.recipes` → files (docs/skill-packs.md). Every path must stay inside
 * the skill directory after following symbolic links.
 */
import fs, { realpathSync } from "node:fs";
import path from "node:path";
import fg from "fast-glob";
import { diagnostic, type Diagnostic } from "../util/diagnostics.js";
import { statQuiet } from "../util/read-bounded.js";

interface RecipePathsResult {
  /** Absolute paths under the skill dir (as named, not the link targets), sorted, de-duplicated. */
  readonly files: string[];
  readonly diagnostics: Diagnostic[];
}

const GLOB_CHARS = /[*?[\]]/;
/** realpath returns names as given (only links resolved): glibc's does; macOS's and Windows' give each its case on disk. */
const NAMES_AS_GIVEN = process.platform === "linux";
/** Bounds `**` walks, including through symlink loops. */
const MAX_GLOB_DEPTH = 16;

function inside(dir: string, p: string): boolean {
  const rel = path.relative(dir, p);
  return rel === "" ? false : !rel.startsWith("..") && !path.isAbsolute(rel);
}

/** Skill-relative, `/`-separated: the only form a path may take in a message. */
export function skillRelative(skillDir: string, abs: string): string {
  return path.relative(skillDir, abs).split(path.sep).join("/");
}

export async function resolveRecipePaths(
  skillDir: string,
  patterns: readonly string[],
  skillName: string,
  /**
   * The directory's real path as discovery resolved it (SkillInfo.realDir):
   * what its files are then read within, so no need to resolve it again.
   */
  knownRealDir?: string,
): Promise<RecipePathsResult> {
  const diagnostics: Diagnostic[] = [];
  const at = { skill: skillName, file: "SKILL.md" };
  let realDir: string;
  if (knownRealDir !== undefined) realDir = knownRealDir;
  else {
    try {
      // Sync: see read-bounded.ts (the promise forms cost several times the CPU per file).
      realDir = realpathSync.native(skillDir);
    } catch {
      diagnostics.push(diagnostic("error", "file_unreadable", `skill directory of ${skillName} cannot be read`, at));
      return { files: [], diagnostics };
    }
  }

  const byReal = new Map<string, string>();
  const accept = (abs: string, pattern: string, fromGlob: boolean): void => {
    const rel = skillRelative(skillDir, abs);
    // A file right in the skill directory that is no link: its real path is
    // the directory's, joined. One lstat answers for realpath (which asks the
    // system about every directory up to the root) and for the stat below.
    // Linux only: realpath elsewhere also gives a name its case on disk, so
    // two spellings of one file on a case-insensitive volume count once.
    if (NAMES_AS_GIVEN && !rel.includes("/") && rel !== ".." && rel !== "") {
      const own = path.join(realDir, rel);
      const st = lstatQuiet(own);
      if (st?.isFile() === true) {
        if (!byReal.has(own)) byReal.set(own, abs);
        return;
      }
    }
    let real: string;
    try {
      real = realpathSync.native(abs);
    } catch {
      if (!fromGlob) {
        diagnostics.push(diagnostic("error", "recipe_path_missing", `recipe file ${rel} does not exist`, at));
      }
      return;
    }
    if (!inside(realDir, real)) {
      diagnostics.push(
        diagnostic("error", "recipe_path_escapes", `recipe path ${rel} (from "${pattern}") resolves outside the skill directory`, at),
      );
      return;
    }
    const st = statQuiet(real);
    if (st === undefined || !st.isFile()) {
      diagnostics.push(diagnostic("error", "recipe_path_missing", `recipe path ${rel} is not a file`, at));
      return;
    }
    if (!byReal.has(real)) byReal.set(real, abs);
  };

  // Only globs can reach SKILL.md (a named path to it is the author's choice): resolved on the first glob.
  let skillMd: string | null | undefined;
  const skillMdReal = (): string | null => (skillMd ??= realOf(path.join(skillDir, "SKILL.md")));
  const walk = linkedDirs(realDir);

  for (const raw of patterns) {
    const pattern = raw.replace(/\\/g, "/");
    if (path.isAbsolute(raw) || path.posix.isAbsolute(pattern) || /^[A-Za-z]:/.test(pattern) ||
        pattern.split("/").includes("..")) {
      diagnostics.push(
        diagnostic("error", "recipe_path_escapes", `recipe path "${safePattern(raw)}" must be relative to the skill directory, without ..`, at),
      );
      continue;
    }
    if (!GLOB_CHARS.test(pattern)) {
      accept(path.resolve(skillDir, pattern), pattern, false);
      continue;
    }
    let matches: string[];
    const unreadable: string[] = [];
    try {
      matches = await fg(pattern, {
        // Errors are suppressed (one unreadable directory must not hide the rest), but named below.
        fs: { readdir: noteUnreadable(unreadable) },
        cwd: skillDir,
        onlyFiles: true,
        dot: false,
        followSymbolicLinks: true,
        deep: MAX_GLOB_DEPTH,
        unique: true,
        suppressErrors: true,
        // SKILL.md describes the skill; a `*.md` glob means the recipe files beside it.
        ignore: ["SKILL.md"],
      });
    } catch {
      matches = [];
    }
    for (const dir of [...new Set(unreadable)].sort()) {
      const rel = skillRelative(skillDir, dir);
      diagnostics.push(diagnostic("warning", "file_unreadable", `recipe glob "${pattern}": directory ${rel === "" ? "." : rel}/ cannot be read`, at));
    }
    if (matches.length === 0) {
      if (unreadable.length === 0) diagnostics.push(diagnostic("warning", "recipe_glob_empty", `recipe glob "${pattern}" matches no file`, at));
      continue;
    }
    const reported = new Set<string>();
    for (const m of matches.sort()) {
      const through = walk(m);
      if (through !== null) {
        // One diagnostic per link, not one per path a glob finds through it.
        if (!reported.has(through.dir)) {
          reported.add(through.dir);
          diagnostics.push(
            through.kind === "loop"
              ? diagnostic("warning", "recipe_path_loop", `recipe glob "${pattern}" runs into a symbolic link loop at ${through.dir}/; it is not followed`, at)
              : diagnostic("error", "recipe_path_escapes", `recipe path ${through.dir}/ (from "${pattern}") resolves outside the skill directory`, at),
          );
        }
        continue;
      }
      const abs = path.resolve(skillDir, m);
      // SKILL.md describes the skill, wherever a glob reaches it (a link back to the skill directory).
      const own = skillMdReal();
      if (own !== null && realOf(abs) === own) continue;
      accept(abs, pattern, true);
    }
  }

  const files = [...byReal.values()].sort();
  return { files, diagnostics };
}

function lstatQuiet(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function realOf(p: string): string | null {
  try {
    return realpathSync.native(p);
  } catch {
    return null;
  }
}

/**
 * For a glob match (skill-relative), the first directory on its way that is
 * a symbolic link out of the skill directory ("escape") or back into a
 * directory already on the way ("loop"), or null. Real paths of directories
 * are cached per skill: a tree of a few directories costs a few realpaths.
 */
function linkedDirs(realDir: string): (match: string) => { readonly kind: "loop" | "escape"; readonly dir: string } | null {
  const real = new Map<string, string | null>();
  return (match) => {
    const parts = match.split("/").slice(0, -1);
    const seen = new Set([realDir]);
    for (let i = 1; i <= parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (!real.has(dir)) real.set(dir, realOf(path.join(realDir, dir)));
      const r = real.get(dir);
      if (r === null || r === undefined) return null;
      if (!inside(realDir, r) && r !== realDir) return { kind: "escape", dir };
      if (seen.has(r)) return { kind: "loop", dir };
      seen.add(r);
    }
    return null;
  };
}

/** fast-glob's readdir, noting the directories it could not read (it is told to suppress the errors). */
function noteUnreadable(into: string[]): typeof fs.readdir {
  const readdir = (dir: fs.PathLike, ...rest: unknown[]): void => {
    const callback = rest.pop() as (err: NodeJS.ErrnoException | null, entries?: unknown) => void;
    const note = (err: NodeJS.ErrnoException | null, entries?: unknown): void => {
      if (err !== null && (err.code === "EACCES" || err.code === "EPERM")) into.push(String(dir));
      callback(err, entries);
    };
    (fs.readdir as (...args: unknown[]) => void)(dir, ...rest, note);
  };
  // fast-glob calls it as fs.readdir is called; the overloads cannot be spelled by one function.
  return readdir as unknown as typeof fs.readdir;
}

/** An absolute pattern is the author's text, but it is a host path: show only its last segment. */
function safePattern(raw: string): string {
  if (path.isAbsolute(raw) || /^[A-Za-z]:|^[\\/]/.test(raw)) return `…/${path.basename(raw)}`;
  return raw;
}
