/**
 * Paths as the skills watcher (watcher.ts) sees them: which roots, skill
 * directories or private files a changed path makes stale, which paths are
 * never watched, and directory identities that tell a re-created directory
 * from the one removed. Pure but for the stat calls.
 */
import { stat } from "node:fs/promises";
import path from "node:path";

/** Never worth watching inside a skill pack, and often huge. */
export const IGNORED_NAMES: ReadonlySet<string> = new Set(["node_modules", "__pycache__", "venv", ".venv", "site-packages"]);

export type Target = { readonly kind: "root"; readonly index: number } | { readonly kind: "private" };

/** The directories watched as a whole, by path; a root listed twice (or the private directory among them) counts once, the first time. */
export function watchTargets(roots: readonly string[], privateDir: string | null): Map<string, Target> {
  const targets = new Map<string, Target>();
  roots.forEach((root, index) => {
    if (!targets.has(root)) targets.set(root, { kind: "root", index });
  });
  if (privateDir !== null && !targets.has(privateDir)) targets.set(privateDir, { kind: "private" });
  return targets;
}

interface Classified {
  readonly roots: number[];
  readonly skillDirs: Array<{ rootIndex: number; dir: string }>;
  readonly privateFile: string | null;
  readonly privateAll: boolean;
}

export function within(parent: string, child: string): string | null {
  if (child === parent) return "";
  const prefix = parent.endsWith(path.sep) ? parent : parent + path.sep;
  return child.startsWith(prefix) ? child.slice(prefix.length) : null;
}

/**
 * Maps one changed path to what must be re-read. Exported for tests; pure.
 * `roots` and `privateDir` are absolute.
 */
export function classifyPath(roots: readonly string[], privateDir: string | null, changed: string): Classified {
  const out: Classified = { roots: [], skillDirs: [], privateFile: null, privateAll: false };
  const abs = path.resolve(changed);
  if (privateDir !== null) {
    const rel = within(privateDir, abs);
    if (rel === "") return { ...out, privateAll: true };
    if (rel !== null && !rel.includes(path.sep)) return { ...out, privateFile: rel };
  }
  roots.forEach((root, rootIndex) => {
    const rel = within(root, abs);
    if (rel === null) return;
    const parts = rel === "" ? [] : rel.split(path.sep);
    if (parts.length === 0 || (parts.length === 1 && parts[0] === "SKILL.md")) {
      out.roots.push(rootIndex);
      return;
    }
    // Either the root is itself a skill, or parts[0] is (or was) one of its skills.
    out.skillDirs.push({ rootIndex, dir: root }, { rootIndex, dir: path.join(root, parts[0]!) });
  });
  return out;
}

/**
 * "dev:ino:birth" of a directory, or null when it is not one. The birth
 * time tells a re-created directory from the one removed: ext4 hands a
 * freed inode number straight to the next mkdir (rm -r, then mkdir -p).
 */
export async function directoryIdentity(p: string): Promise<string | null> {
  const st = await stat(p).catch(() => null);
  return st?.isDirectory() === true ? identityOf(st) : null;
}

/** The identity directoryIdentity reports, from stats already at hand. */
export function identityOf(st: { readonly dev: number; readonly ino: number; readonly birthtimeMs: number }): string {
  return `${st.dev}:${st.ino}:${st.birthtimeMs}`;
}

/** `p` with its root when it is a direct child of one of `roots` (a skill directory, or was one), else null. */
export function skillDirOf(roots: readonly string[], p: string): { readonly root: string; readonly dir: string } | null {
  for (const root of roots) {
    const rel = within(root, p);
    if (rel === null || rel === "" || rel.includes(path.sep)) continue;
    return { root, dir: p };
  }
  return null;
}

/** The closest ancestor of `p` that exists (the filesystem root at worst), with its identity. */
export async function nearestExisting(p: string): Promise<{ readonly dir: string; readonly identity: string }> {
  let current = path.dirname(p);
  for (;;) {
    const identity = await directoryIdentity(current);
    if (identity !== null) return { dir: current, identity };
    const up = path.dirname(current);
    if (up === current) return { dir: current, identity: "" };
    current = up;
  }
}

/** chokidar's `ignored` for the main watcher: dot-files, dependency folders, and anything in the private directory but its playbook files. */
export function ignoredPath(roots: readonly string[], privateDir: string | null): (p: string, stats?: { isDirectory(): boolean }) => boolean {
  return (p, stats) => {
    if (privateDir !== null) {
      const rel = within(privateDir, p);
      if (rel === "") return false;
      // Only the playbook files themselves; dot-files are our temp files and editor swap files.
      if (rel !== null) return rel.includes(path.sep) || rel.startsWith(".") || stats?.isDirectory() === true;
    }
    for (const root of roots) {
      const rel = within(root, p);
      if (rel === null || rel === "") continue;
      for (const part of rel.split(path.sep)) {
        if (part.startsWith(".") || IGNORED_NAMES.has(part)) return true;
      }
    }
    return false;
  };
}
