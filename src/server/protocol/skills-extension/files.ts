/**
 * The files of one skill directory that the Skills extension serves: every
 * regular file below it, after following symbolic links, that
 *
 * - still lies inside the skill directory once links are resolved;
 * - is not hidden (a name starting with `.`) nor under `node_modules`,
 *   `__pycache__`, `venv`, `.venv` or `site-packages` (the watcher ignores
 *   those, so their manifests could not follow a change);
 * - is not a file the loader refused (too large, unreadable, not UTF-8,
 *   malformed, escaping, kept at its last good version);
 * - is at most 1 MiB, the limit recipe files have.
 *
 * Directories are followed to MAX_DEPTH levels, each real directory once
 * (a link cycle ends there). The root `SKILL.md` is not listed: the served
 * one is generated (skill-md.ts). A walk stops once a skill has more files
 * than the extension's per-skill limit: that skill is not served.
 */
import type { Dirent } from "node:fs";
import { realpath } from "node:fs/promises";
import path from "node:path";
import { listInside, statInside } from "../../../util/read-inside.js";
import { MAX_RECIPE_FILE_BYTES } from "../../../recipes/packs/yaml-pack.js";
// The watcher's own list: a file it never watches could never follow a change in a manifest.
import { IGNORED_NAMES } from "../../../skills/watch-paths.js";

export const MAX_FILE_BYTES = MAX_RECIPE_FILE_BYTES;
/** Directory levels below the skill directory. */
export const MAX_DEPTH = 16;
/** SEP-2640's per-skill limits: entries (SKILL.md included) and bytes. */
export const SKILL_FILE_LIMIT = 512;
export const SKILL_BYTE_LIMIT = 16 * 1024 * 1024;


export interface SkillFile {
  /** Skill-relative, `/`-separated. */
  readonly path: string;
  /** Resolved absolute path (never sent to clients). */
  readonly real: string;
  readonly size: number;
  /** Device, inode, size and change times as the walk saw them: equal stamps, equal bytes (for the digest cache). */
  readonly stamp: string;
}

interface SkippedFile {
  readonly path: string;
  readonly reason: string;
}

/** Skipped files are reported for diagnosis only: a bounded sample. */
const MAX_SKIPPED = 100;

export interface SkillTree {
  /** The skill directory's real path: files are read inside it (util/read-inside.ts). */
  readonly root: string;
  readonly files: readonly SkillFile[];
  /** Skill-relative directories, `/`-separated ("" is the skill directory). */
  readonly dirs: readonly string[];
  readonly skipped: readonly SkippedFile[];
  /** Set when the skill has more files than SKILL_FILE_LIMIT allows: the walk stopped. */
  readonly overLimit: boolean;
}

/** `realDir`: the directory's real path as discovery resolved it (see SkillInfo.realDir). */
export async function walkSkill(dir: string, refused: ReadonlySet<string>, realDir?: string): Promise<SkillTree> {
  const files: SkillFile[] = [];
  const dirs: string[] = [""];
  const skipped: SkippedFile[] = [];
  const root = realDir ?? (await realpath(dir).catch(() => null));
  if (root === null) return { root: dir, files, dirs, skipped, overLimit: false };
  const seen = new Set<string>([root]);
  let overLimit = false;
  const skip = (entry: SkippedFile): void => {
    if (skipped.length < MAX_SKIPPED) skipped.push(entry);
  };

  // Directories are listed and entries stat'ed inside the skill directory
  // (util/read-inside.ts): a directory swapped for a link out of it after
  // the check lists and sizes nothing outside.
  const visit = async (relDir: string, absDir: string, depth: number): Promise<void> => {
    const entries: Dirent[] | null = await listInside(root, path.relative(root, absDir));
    if (entries === null) {
      skip({ path: relDir, reason: "directory cannot be listed" });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (overLimit) return;
      const name = entry.name;
      if (name.startsWith(".") || IGNORED_NAMES.has(name)) continue;
      const rel = relDir === "" ? name : `${relDir}/${name}`;
      if (rel === "SKILL.md") continue;
      if (refused.has(rel)) {
        skip({ path: rel, reason: "refused by the loader" });
        continue;
      }
      const abs = path.join(absDir, name);
      const real = entry.isSymbolicLink() ? await realpath(abs).catch(() => null) : abs;
      if (real === null) {
        skip({ path: rel, reason: "broken symbolic link" });
        continue;
      }
      if (!inside(root, real)) {
        skip({ path: rel, reason: "leads outside the skill directory" });
        continue;
      }
      if (real === root) {
        skip({ path: rel, reason: "a directory already served (link cycle)" });
        continue;
      }
      const stated = statInside(root, real);
      const st = "ok" in stated ? null : stated;
      if (st === null) {
        skip({ path: rel, reason: "cannot be read" });
      } else if (st.isDirectory()) {
        if (depth >= MAX_DEPTH) skip({ path: rel, reason: `deeper than ${MAX_DEPTH} levels` });
        else if (seen.has(real)) skip({ path: rel, reason: "a directory already served (link cycle)" });
        else {
          seen.add(real);
          dirs.push(rel);
          await visit(rel, real, depth + 1);
        }
      } else if (!st.isFile()) {
        skip({ path: rel, reason: "not a regular file" });
      } else if (st.size > MAX_FILE_BYTES) {
        skip({ path: rel, reason: `over ${MAX_FILE_BYTES} bytes` });
      } else {
        files.push({ path: rel, real, size: Number(st.size), stamp: `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` });
        // SKILL.md takes one of the entries.
        if (files.length + 1 > SKILL_FILE_LIMIT) overLimit = true;
      }
    }
  };
  await visit("", root, 0);
  return { root, files, dirs, skipped, overLimit };
}

function inside(root: string, candidate: string): boolean {
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return candidate === root || candidate.startsWith(prefix);
}
