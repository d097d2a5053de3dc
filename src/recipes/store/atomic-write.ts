/**
 * Crash-safe file replacement: write a temp file in the same directory, fsync
 * it, then rename (replace) or hard-link (exclusive create) it into place and
 * fsync the directory. A reader, or a process restarted after a crash, sees
 * either the old bytes or the new ones, never a prefix.
 */
import { createHash, randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";

const TEMP_SUFFIX = ".tmp";
// `.<target>.<pid>.<host>.<random>.tmp`: a dot-file, so globs and `*.md` skip
// it. The host tag keeps a writer in another container sharing the directory
// (its own pid namespace) from being judged dead by pid.
const TEMP_PATTERN = /^\.(.+)\.(\d+)\.([0-9a-f]{8})\.([0-9a-f]{12})\.tmp$/;

/** A short stable tag of this host, so pids are only compared on the host they belong to. */
export const HOST_TAG = createHash("sha256").update(os.hostname()).digest("hex").slice(0, 8);

export function tempFileName(target: string): string {
  return `.${target}.${process.pid}.${HOST_TAG}.${randomBytes(6).toString("hex")}${TEMP_SUFFIX}`;
}

export function isTempFileName(name: string): boolean {
  return TEMP_PATTERN.test(name);
}

/** Creates the directory (and parents) private to the user when missing. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
}

async function writeTemp(dir: string, target: string, data: string | Uint8Array, mode = 0o600): Promise<string> {
  const tempPath = path.join(dir, tempFileName(target));
  const handle = await fs.open(tempPath, "wx", mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fs.rm(tempPath, { force: true });
    throw error;
  }
  await handle.close();
  return tempPath;
}

/** Makes a rename or link durable; some platforms cannot open a directory, which is fine there. */
export async function fsyncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, "r");
    await handle.sync();
  } catch (error) {
    if (!isIgnorableDirSyncError(error)) throw error;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

function isIgnorableDirSyncError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "EISDIR" || code === "EPERM" || code === "EINVAL" || code === "EBADF" || code === "EACCES";
}

/**
 * Replaces `dir/target` atomically with `data`. `canCommit`, asked once the
 * data is durable in the temp file and before the rename that makes it
 * visible, can still call the write off (its deadline passed): then the temp
 * file is removed, nothing changed, and the answer is false.
 */
export async function writeFileAtomic(dir: string, target: string, data: string | Uint8Array, canCommit?: () => boolean): Promise<boolean> {
  const tempPath = await writeTemp(dir, target, data);
  if (canCommit !== undefined && !canCommit()) {
    await fs.rm(tempPath, { force: true });
    return false;
  }
  try {
    await renameWithRetry(tempPath, path.join(dir, target));
  } catch (error) {
    await fs.rm(tempPath, { force: true });
    throw error;
  }
  await fsyncDir(dir);
  return true;
}

/**
 * Creates `dir/target` with `data` only if no file of that name exists, with
 * full content from the first moment it is visible. `link` fails with EEXIST
 * instead of replacing, which makes it the exclusive, atomic counterpart of
 * rename. Returns false when the name is taken, "late" when `canCommit`
 * (asked just before the link) called it off. `mode`: the file's, owner-only
 * unless the caller writes for others too.
 */
export async function createFileExclusive(dir: string, target: string, data: string | Uint8Array, canCommit?: () => boolean, mode = 0o600): Promise<boolean | "late"> {
  const tempPath = await writeTemp(dir, target, data, mode);
  const finalPath = path.join(dir, target);
  let outcome: "created" | "taken" | "no_links";
  try {
    if (canCommit !== undefined && !canCommit()) return "late";
    await fs.link(tempPath, finalPath);
    outcome = "created";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") outcome = "taken";
    else if (code === "EPERM" || code === "ENOTSUP" || code === "ENOSYS" || code === "EXDEV") outcome = "no_links";
    else throw error;
  } finally {
    await fs.rm(tempPath, { force: true });
  }
  // File systems without hard links: exclusive open, then write in place.
  // Not crash-atomic, but still never overwrites an existing playbook.
  if (outcome === "no_links") return createInPlaceExclusive(dir, finalPath, data, mode);
  if (outcome === "taken") return false;
  await fsyncDir(dir);
  return true;
}

async function createInPlaceExclusive(dir: string, finalPath: string, data: string | Uint8Array, mode: number): Promise<boolean> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(finalPath, "wx", mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fsyncDir(dir);
  return true;
}

// Windows refuses to replace a file another process holds open (indexers,
// antivirus, editors) for a short while.
async function renameWithRetry(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.rename(from, to);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const transient = process.platform === "win32" && (code === "EPERM" || code === "EACCES" || code === "EBUSY");
      if (!transient || attempt >= 10) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * (attempt + 1)));
    }
  }
}

interface TempCleanupOptions {
  /** Temp files older than this are abandoned whatever their writer. */
  readonly maxAgeMs: number;
  readonly now: number;
}

/**
 * Removes temp files a crashed writer left behind. A temp file is removed when
 * its writer process (on this host) is gone or when it is older than `maxAgeMs`; a live
 * writer's fresh temp file is left alone, so two processes sharing a directory
 * do not break each other's writes. Returns the names removed.
 */
export async function cleanupStaleTempFiles(dir: string, names: readonly string[], options: TempCleanupOptions): Promise<string[]> {
  const removed: string[] = [];
  for (const name of names) {
    const match = TEMP_PATTERN.exec(name);
    if (!match) continue;
    const pid = Number(match[2]);
    const full = path.join(dir, name);
    let stale = match[3] === HOST_TAG && pid !== process.pid && !isProcessAlive(pid);
    if (!stale) {
      const stat = await fs.stat(full).catch(() => null);
      if (!stat) continue;
      stale = options.now - stat.mtimeMs > options.maxAgeMs;
    }
    if (!stale) continue;
    await fs.rm(full, { force: true });
    removed.push(name);
  }
  return removed;
}

/** Whether a process with this pid exists on this host. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
