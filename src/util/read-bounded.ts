/**
 * Reads a small file whole: one open, one fstat, reads, one close. Skill
 * and recipe files are bounded (1 MiB) and a catalog holds thousands of
 * them; promise-based `stat` + `readFile` cost about four times the CPU per
 * file (a FileHandle, several thread-pool round trips) and made file access
 * a seventh of a 20,000-recipe start. A read blocks the event loop for
 * microseconds (at most one bounded file), and loaders yield between skills.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from "node:fs";

/**
 * Non-blocking open: a FIFO planted where a recipe file should be would
 * otherwise block the daemon until a writer appears. No effect on regular
 * files; fstat then refuses anything that is not one.
 */
export const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Strict UTF-8 decode, a leading BOM dropped; null when the bytes are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

export type BoundedRead =
  | { readonly ok: true; readonly bytes: Buffer }
  | { readonly ok: false; readonly reason: "missing" | "not_file" | "unreadable"; readonly code: string }
  | { readonly ok: false; readonly reason: "too_large"; readonly size: number }
  /** Written to within the quiet window, or while it was read: try again in `waitMs`. */
  | { readonly ok: false; readonly reason: "changing"; readonly waitMs: number };

/**
 * A file is read once its size and mtime have held for this long, and
 * only if they still hold after the read: an editor's or a script's
 * rewrite in several writes (each leaving a valid but partial file) is
 * never read half done. Longer than the gaps between one save's writes,
 * as short as the watcher's own debounce.
 */
export const QUIET_MS = 50;
/** How long readSettled retries a file that keeps changing before it reports so. */
const SETTLE_MAX_MS = 2000;

/**
 * `quietMs` > 0: a file modified less than that long ago is not read
 * ("changing"). Either way a file whose size or mtime moved during the read
 * is reported "changing", never returned torn.
 */
export function readBounded(file: string, maxBytes: number, quietMs = 0): BoundedRead {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (err) {
    return openFailure(err);
  }
  try {
    return readOpen(fd, maxBytes, quietMs);
  } finally {
    closeSync(fd);
  }
}

/** An open's failure as a BoundedRead. */
export function openFailure(err: unknown): Exclude<BoundedRead, { ok: true }> {
  const code = (err as NodeJS.ErrnoException).code ?? "unknown error";
  return { ok: false, reason: code === "ENOENT" || code === "ENOTDIR" ? "missing" : "unreadable", code };
}

/**
 * readBounded's checks and read on a descriptor the caller opened (and
 * closes): a regular file, within `maxBytes`, settled for `quietMs`,
 * unchanged during the read.
 */
export function readOpen(fd: number, maxBytes: number, quietMs = 0): BoundedRead {
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, reason: "not_file", code: "EISDIR" };
    if (st.size > maxBytes) return { ok: false, reason: "too_large", size: st.size };
    // Date.now() is whole milliseconds and mtimes are not, so a file written
    // this millisecond has a small negative age: without a window it is read.
    // An mtime further ahead than the window is another clock (a network
    // volume's server): its age says nothing, so only the during-read check
    // below applies, instead of waiting for a moment that never comes.
    const age = Date.now() - st.mtimeMs;
    if (quietMs > 0 && age < quietMs && age > -quietMs) return { ok: false, reason: "changing", waitMs: Math.max(1, Math.min(quietMs, quietMs - age)) };
    // One byte more than fstat said tells a file that grew since; it may
    // grow up to the limit (read it all), one byte past it is refused.
    let buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1, st.size + 1));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) return { ok: false, reason: "too_large", size: length };
        const grown = Buffer.allocUnsafe(Math.min(maxBytes + 1, buffer.length * 2));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    const after = fstatSync(fd);
    if (after.size !== st.size || after.mtimeMs !== st.mtimeMs || length !== st.size) return { ok: false, reason: "changing", waitMs: Math.max(1, quietMs) };
    return { ok: true, bytes: buffer.subarray(0, length) };
  } catch (err) {
    return { ok: false, reason: "unreadable", code: (err as NodeJS.ErrnoException).code ?? "unknown error" };
  }
}

/**
 * readBounded once the file has settled (see QUIET_MS): a file still
 * changing is waited for and read again, up to SETTLE_MAX_MS; past that it
 * is reported "changing", and the caller keeps what it had (keep-last-good).
 */
export async function readSettled(file: string, maxBytes: number, quietMs = QUIET_MS, maxMs = SETTLE_MAX_MS): Promise<BoundedRead> {
  return settled(() => readBounded(file, maxBytes, quietMs), maxMs);
}

/** Runs `read` until it reports something other than "changing", or until `maxMs` would pass. */
export async function settled(read: () => BoundedRead, maxMs = SETTLE_MAX_MS): Promise<BoundedRead> {
  const deadline = Date.now() + maxMs;
  for (;;) {
    const result = read();
    if (result.ok || result.reason !== "changing" || Date.now() + result.waitMs > deadline) return result;
    await new Promise((resolve) => setTimeout(resolve, result.waitMs));
  }
}

/** A path's stat, or undefined when it cannot be had (missing, no permission, a loop …). */
export function statQuiet(p: string): Stats | undefined {
  try {
    return statSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
