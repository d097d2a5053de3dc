/**
 * `metadata.dcc-mcp.recipes` → files (SPEC §3). Every path must stay inside
 * the skill directory after following symbolic links.
 */
import { realpathSync } from "node:fs";
import path from "node:path";
import fg from "fast-glob";
import { diagnostic, type Diagnostic } from "./diagnostics.js";
import { statQuiet } from "./read-bounded.js";

export interface RecipePathsResult {
  /** Absolute paths under the skill dir (as named, not the link targets), sorted, de-duplicated. */
  readonly files: string[];
  readonly diagnostics: Diagnostic[];
}

const GLOB_CHARS = /[*?[\]]/;
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
): Promise<RecipePathsResult> {
  const diagnostics: Diagnostic[] = [];
  const at = { skill: skillName, file: "SKILL.md" };
  let realDir: string;
  try {
    // Sync: see read-bounded.ts (the promise forms cost several times the CPU per file).
    realDir = realpathSync.native(skillDir);
  } catch {
    diagnostics.push(diagnostic("error", "file_unreadable", `skill directory of ${skillName} cannot be read`, at));
    return { files: [], diagnostics };
  }

  const byReal = new Map<string, string>();
  const accept = (abs: string, pattern: string, fromGlob: boolean): void => {
    const rel = skillRelative(skillDir, abs);
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
    try {
      matches = await fg(pattern, {
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
    if (matches.length === 0) {
      diagnostics.push(diagnostic("warning", "recipe_glob_empty", `recipe glob "${pattern}" matches no file`, at));
      continue;
    }
    for (const m of matches.sort()) accept(path.resolve(skillDir, m), pattern, true);
  }

  const files = [...byReal.values()].sort();
  return { files, diagnostics };
}

/** An absolute pattern is the author's text, but it is a host path: show only its last segment. */
function safePattern(raw: string): string {
  if (path.isAbsolute(raw) || /^[A-Za-z]:|^[\\/]/.test(raw)) return `…/${path.basename(raw)}`;
  return raw;
}
