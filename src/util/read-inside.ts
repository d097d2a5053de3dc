/**
 * The one reader for files under a skill directory: a file is read only if
 * it lies inside the directory once links are resolved, and the file read
 * is the one that was checked. Between the check and the open, whoever can
 * write into the skill directory could swap a checked file (or a directory
 * on its way) for a symbolic link to a file outside it; the open must then
 * fail rather than follow the link.
 *
 * So the path is resolved once (realpath), checked against the directory,
 * and then opened one component at a time from the directory, each with
 * O_NOFOLLOW: a component that has become a link since the check fails the
 * open (ELOOP). On Linux each step opens beneath the descriptor of the
 * previous one (`/proc/self/fd/<fd>/<name>`, the openat of a runtime that
 * has none), so no step resolves a path by name again. Elsewhere the steps
 * are checked by lstat before the open and by device and inode after it,
 * which leaves a window of microseconds between the two.
 *
 * The directory itself is opened with O_NOFOLLOW too: its parents are the
 * operator's (a skill root and above), the directory is an entry anyone
 * writing the root could replace.
 */
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, realpathSync, type Dirent, type Stats } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { decodeUtf8, OPEN_FLAGS, openFailure, QUIET_MS, readOpen, settled, type BoundedRead } from "./read-bounded.js";

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;
const DIR_FLAGS = constants.O_RDONLY | DIRECTORY | NOFOLLOW;
const FILE_FLAGS = OPEN_FLAGS | NOFOLLOW;
/** Whether this system lets a path name a step beneath an open directory descriptor. */
const FD_PATHS = process.platform === "linux" && existsSync("/proc/self/fd");

/** Why a file under a skill directory is not read, beyond the reasons of any bounded read. */
export const OUTSIDE = "outside the skill directory";

/**
 * `within`: the directory's real path (as resolved when it was found);
 * `file`: absolute, or relative to `within`, possibly through links that
 * stay inside it. Reads as readBounded does.
 */
export function readInside(within: string, file: string, maxBytes: number, quietMs = 0): BoundedRead {
  const opened = openInside(within, file);
  if (!opened.ok) return opened;
  try {
    return readOpen(opened.fd, maxBytes, quietMs);
  } finally {
    closeSync(opened.fd);
  }
}

/** readInside once the file has settled (see read-bounded.ts readSettled). */
export function readInsideSettled(within: string, file: string, maxBytes: number, quietMs = QUIET_MS): Promise<BoundedRead> {
  return settled(() => readInside(within, file, maxBytes, quietMs));
}

type Opened = { readonly ok: true; readonly fd: number } | Exclude<BoundedRead, { ok: true }>;

/** The file's descriptor, opened as described above, or why not. */
export function openInside(within: string, file: string): Opened {
  let real: string;
  try {
    real = realpathSync.native(path.resolve(within, file));
  } catch (err) {
    return openFailure(err);
  }
  const rel = path.relative(within, real);
  if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) return { ok: false, reason: "unreadable", code: OUTSIDE };
  const steps = rel.split(path.sep);
  return FD_PATHS ? openByDescriptors(within, steps) : openByChecks(within, steps);
}

function openByDescriptors(within: string, steps: readonly string[]): Opened {
  let dir: number;
  try {
    dir = openSync(within, DIR_FLAGS);
  } catch (err) {
    return openFailure(err);
  }
  try {
    for (let i = 0; i < steps.length; i++) {
      const last = i === steps.length - 1;
      const next = openSync(`/proc/self/fd/${dir}/${steps[i]}`, last ? FILE_FLAGS : DIR_FLAGS);
      closeSync(dir);
      dir = next;
      if (last) {
        const fd = dir;
        dir = -1;
        return { ok: true, fd };
      }
    }
    return { ok: false, reason: "unreadable", code: OUTSIDE };
  } catch (err) {
    return openFailure(err);
  } finally {
    if (dir !== -1) closeSync(dir);
  }
}

function openByChecks(within: string, steps: readonly string[]): Opened {
  const seen: Array<{ readonly p: string; readonly dev: number; readonly ino: number }> = [];
  let at = within;
  try {
    for (const step of [null, ...steps]) {
      if (step !== null) at = path.join(at, step);
      const st = lstatSync(at);
      if (st.isSymbolicLink()) return { ok: false, reason: "unreadable", code: "ELOOP" };
      seen.push({ p: at, dev: st.dev, ino: st.ino });
    }
  } catch (err) {
    return openFailure(err);
  }
  let fd: number;
  try {
    fd = openSync(at, FILE_FLAGS);
  } catch (err) {
    return openFailure(err);
  }
  try {
    const st = fstatSync(fd);
    const last = seen.at(-1)!;
    const same = st.dev === last.dev && st.ino === last.ino && seen.every((s) => {
      const now = lstatSync(s.p);
      return !now.isSymbolicLink() && now.dev === s.dev && now.ino === s.ino;
    });
    if (same) return { ok: true, fd };
  } catch {
    // A step vanished since: the same answer as a swapped one.
  }
  closeSync(fd);
  return { ok: false, reason: "unreadable", code: "ELOOP" };
}

/**
 * A directory's real path now, for a skill built by hand (without the
 * `realDir` discovery records); the path as given when it cannot be had,
 * so that reads inside it fail rather than widen.
 */
export function realDirOf(dir: string): string {
  try {
    return realpathSync.native(dir);
  } catch {
    return dir;
  }
}

/** readInside of a UTF-8 text file (a leading BOM kept), or null when it cannot be read or is not UTF-8. */
export function readInsideText(within: string, file: string, maxBytes: number): string | null {
  const read = readInside(within, file, maxBytes);
  return read.ok ? decodeUtf8(read.bytes) : null;
}

/**
 * The entries of a directory inside `within` ("" for `within` itself),
 * listed from a descriptor opened as files are (no link followed beneath
 * `within`), or null when it cannot be opened or listed.
 */
export async function listInside(within: string, dir: string): Promise<Dirent[] | null> {
  let fd: number;
  if (dir === "") {
    try {
      fd = openSync(within, DIR_FLAGS);
    } catch {
      return null;
    }
  } else {
    const opened = openInside(within, dir);
    if (!opened.ok) return null;
    fd = opened.fd;
  }
  try {
    if (!fstatSync(fd).isDirectory()) return null;
    return await readdir(FD_PATHS ? `/proc/self/fd/${fd}` : path.resolve(within, dir), { withFileTypes: true });
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The stat of a file or directory inside `within`, opened as readInside opens (a FIFO is not waited on). */
export function statInside(within: string, file: string): Stats | Exclude<BoundedRead, { ok: true }> {
  const opened = openInside(within, file);
  if (!opened.ok) return opened;
  try {
    return fstatSync(opened.fd);
  } catch (err) {
    return openFailure(err);
  } finally {
    closeSync(opened.fd);
  }
}
