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
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

export type BoundedRead =
  | { readonly ok: true; readonly bytes: Buffer }
  | { readonly ok: false; readonly reason: "missing" | "not_file" | "unreadable"; readonly code: string }
  | { readonly ok: false; readonly reason: "too_large"; readonly size: number };

export function readBounded(file: string, maxBytes: number): BoundedRead {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "unknown error";
    return { ok: false, reason: code === "ENOENT" || code === "ENOTDIR" ? "missing" : "unreadable", code };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, reason: "not_file", code: "EISDIR" };
    if (st.size > maxBytes) return { ok: false, reason: "too_large", size: st.size };
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
    return { ok: true, bytes: buffer.subarray(0, length) };
  } catch (err) {
    return { ok: false, reason: "unreadable", code: (err as NodeJS.ErrnoException).code ?? "unknown error" };
  } finally {
    closeSync(fd);
  }
}

/** Resolves after other queued work ran, when `budgetMs` passed since the last yield. */
export function createPacer(budgetMs: number): () => Promise<void> {
  let last = performance.now();
  return async () => {
    if (performance.now() - last < budgetMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    last = performance.now();
  };
}

/** A path's stat, or undefined when it cannot be had (missing, no permission, a loop …). */
export function statQuiet(p: string): Stats | undefined {
  try {
    return statSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
