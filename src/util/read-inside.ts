/**
 * The one reader for files under a skill directory: a file is read only if
 * the file opened lies inside the directory. Checking a path and then
 * opening it leaves a gap: whoever can write into the skill directory can
 * swap a checked file (or a directory on its way) for a symbolic link to a
 * file outside between the two, and the open follows it.
 *
 * So the check is made on the open descriptor, not on a path. On Linux the
 * path is opened as named (links inside the skill keep working) and the
 * kernel is asked where the opened file is (`/proc/self/fd/<fd>`): a file
 * outside the directory's real path is closed unread, whatever was swapped
 * on the way. Elsewhere the path is resolved and checked, every step is
 * lstat'ed, the file is opened with O_NOFOLLOW, and device and inode of
 * every step are compared again after the open: a swap and a swap back
 * within those microseconds is not seen there.
 *
 * `within` is the directory's real path as discovery resolved it, never
 * re-resolved at read time: a skill directory replaced by a link to
 * another place reads nothing from there. A hard link inside the
 * directory to a file elsewhere is that file, inside: who may write a skill
 * directory is part of the trust model (README).
 */
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readlinkSync, realpathSync, type Dirent, type Stats } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { decodeUtf8, OPEN_FLAGS, openFailure, QUIET_MS, readOpen, settled, type BoundedRead } from "./read-bounded.js";

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;
const DIR_FLAGS = constants.O_RDONLY | DIRECTORY;
/** Whether the kernel tells where an open descriptor's file is (Linux /proc). */
const KERNEL_PATHS = process.platform === "linux" && existsSync("/proc/self/fd");

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

/** Is `candidate` strictly below `dir` (both absolute, resolved)? */
function below(dir: string, candidate: string): boolean {
  const rel = path.relative(dir, candidate);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/** The file's descriptor, opened as described above, or why not. */
function openInside(within: string, file: string): Opened {
  const named = path.resolve(within, file);
  return KERNEL_PATHS ? openAndLocate(within, named) : openByChecks(within, named);
}

/**
 * Opens the path as named, following links as the system does, then asks
 * the kernel where the open file is (`/proc/self/fd/<fd>`): whatever was
 * swapped on the way, the descriptor is of a file below `within` or it is
 * closed unread. Links that stay inside the skill keep working.
 */
function openAndLocate(within: string, named: string): Opened {
  let fd: number;
  try {
    fd = openSync(named, OPEN_FLAGS);
  } catch (err) {
    return openFailure(err);
  }
  const where = readlinkQuiet(`/proc/self/fd/${fd}`);
  if (where !== null && path.isAbsolute(where) && below(within, where)) return { ok: true, fd };
  closeSync(fd);
  return { ok: false, reason: "unreadable", code: OUTSIDE };
}

/**
 * Without /proc: resolve once, check, then open with O_NOFOLLOW after lstat
 * of every step beneath `within`, and compare device and inode of every
 * step again after the open. A swap and a swap back within those
 * microseconds is not seen.
 */
function openByChecks(within: string, named: string): Opened {
  let real: string;
  try {
    real = realpathSync.native(named);
  } catch (err) {
    return openFailure(err);
  }
  if (!below(within, real)) return { ok: false, reason: "unreadable", code: OUTSIDE };
  const steps = path.relative(within, real).split(path.sep);
  const seen: Array<{ readonly p: string; readonly dev: number; readonly ino: number }> = [];
  let at = within;
  try {
    for (const step of steps) {
      at = path.join(at, step);
      const st = lstatSync(at);
      if (st.isSymbolicLink()) return { ok: false, reason: "unreadable", code: "ELOOP" };
      seen.push({ p: at, dev: st.dev, ino: st.ino });
    }
  } catch (err) {
    return openFailure(err);
  }
  let fd: number;
  try {
    fd = openSync(at, OPEN_FLAGS | NOFOLLOW);
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
      fd = openSync(within, DIR_FLAGS | NOFOLLOW);
    } catch {
      return null;
    }
    if (KERNEL_PATHS && readlinkQuiet(`/proc/self/fd/${fd}`) !== within) {
      closeSync(fd);
      return null;
    }
  } else {
    const opened = openInside(within, dir);
    if (!opened.ok) return null;
    fd = opened.fd;
  }
  try {
    if (!fstatSync(fd).isDirectory()) return null;
    return await readdir(KERNEL_PATHS ? `/proc/self/fd/${fd}` : path.resolve(within, dir), { withFileTypes: true });
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

function readlinkQuiet(p: string): string | null {
  try {
    return readlinkSync(p);
  } catch {
    return null;
  }
}
