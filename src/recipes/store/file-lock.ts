/**
 * A lock file per playbook (`.<slug>.md.lock`, created with O_EXCL), so that
 * updates are serialized across store instances and processes sharing one
 * private dir — e.g. `--dcc maya,houdini --private-dir X` opens two stores on
 * X in one process. The in-process KeyedMutex queues callers first; this lock
 * only arbitrates between independent writers.
 *
 * A lock left by a crashed writer is taken over when its process is gone or
 * when it is older than `staleMs`. Takeover renames the stale lock aside
 * before removing it and checks it moved the lock it judged stale, so two
 * waiters cannot both break one lock and then remove each other's.
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { HOST_TAG, isProcessAlive, tempFileName } from "./atomic-write.js";

interface FileLockOptions {
  /** Give up waiting after this long. */
  readonly timeoutMs: number;
  /** A lock older than this is abandoned whatever its holder. */
  readonly staleMs: number;
}

type LockOutcome =
  | { readonly kind: "acquired"; release(): Promise<void> }
  | { readonly kind: "timeout" }
  | { readonly kind: "missing-dir" };

export function lockFileName(target: string): string {
  return `.${target}.lock`;
}

export async function acquireFileLock(dir: string, target: string, options: FileLockOptions): Promise<LockOutcome> {
  const lockPath = path.join(dir, lockFileName(target));
  const token = `${process.pid} ${HOST_TAG} ${randomBytes(6).toString("hex")}\n`;
  const deadline = Date.now() + options.timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const taken = await tryCreate(dir, lockPath, token);
    if (taken === "missing-dir") return { kind: "missing-dir" };
    if (taken) return { kind: "acquired", release: () => release(lockPath, token) };
    if (await breakIfStale(dir, lockPath, options.staleMs)) continue;
    if (Date.now() >= deadline) return { kind: "timeout" };
    // Short waits first: the holder usually finishes within a write or two.
    await new Promise((resolve) => setTimeout(resolve, Math.min(1 + attempt, 20) * (0.5 + Math.random())));
  }
}

const LOCK_PATTERN = /^\..+\.lock$/;

export function isLockFileName(name: string): boolean {
  return LOCK_PATTERN.test(name);
}

/** Removes lock files whose holder is gone or that are older than `staleMs`; returns how many. */
export async function cleanupStaleLocks(dir: string, names: readonly string[], staleMs: number): Promise<number> {
  let removed = 0;
  for (const name of names) {
    if (!isLockFileName(name)) continue;
    const lockPath = path.join(dir, name);
    const before = await fs.stat(lockPath).catch(() => null);
    if (before && (await breakIfStale(dir, lockPath, staleMs))) {
      if ((await fs.stat(lockPath).catch(() => null)) === null) removed++;
    }
  }
  return removed;
}

/**
 * Creates the lock with its content already in it (temp file + exclusive
 * link), so a writer killed at any instant never leaves an empty lock whose
 * owner cannot be told.
 */
async function tryCreate(dir: string, lockPath: string, token: string): Promise<boolean | "missing-dir"> {
  const tempPath = path.join(dir, tempFileName(path.basename(lockPath)));
  try {
    await fs.writeFile(tempPath, token, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "missing-dir";
    throw error;
  }
  try {
    await fs.link(tempPath, lockPath);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS" && code !== "EXDEV") throw error;
  } finally {
    await fs.rm(tempPath, { force: true });
  }
  // No hard links here: exclusive create, content written just after.
  try {
    await fs.writeFile(lockPath, token, { flag: "wx", mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

async function release(lockPath: string, token: string): Promise<void> {
  // Only remove the lock if it is still ours (it may have been judged stale and taken over).
  const content = await fs.readFile(lockPath, "utf8").catch(() => null);
  if (content === token) await fs.rm(lockPath, { force: true });
}

async function breakIfStale(dir: string, lockPath: string, staleMs: number): Promise<boolean> {
  const [stat, content] = await Promise.all([
    fs.stat(lockPath).catch(() => null),
    fs.readFile(lockPath, "utf8").catch(() => null),
  ]);
  if (stat === null || content === null) return true; // released meanwhile: try again at once
  const [pidText, host] = content.split(" ");
  const pid = Number(pidText);
  // Another host's pid means nothing here; only age can free its lock.
  const holderGone = host === HOST_TAG && Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && !isProcessAlive(pid);
  const old = Date.now() - stat.mtimeMs > staleMs;
  // A lock file whose content is not written yet is fresh, not stale.
  const unreadable = content === "" && !old;
  if (unreadable || (!holderGone && !old)) return false;
  const aside = path.join(dir, `${path.basename(lockPath)}.${randomBytes(6).toString("hex")}.stale`);
  try {
    await fs.rename(lockPath, aside);
  } catch {
    return true; // someone else moved it: retry
  }
  const moved = await fs.readFile(aside, "utf8").catch(() => null);
  if (moved !== content) {
    // We moved a newer writer's lock: put it back if its name is still free.
    await fs.link(aside, lockPath).catch(() => undefined);
  }
  await fs.rm(aside, { force: true });
  return true;
}
