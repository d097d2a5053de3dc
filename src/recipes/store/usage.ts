/**
 * Usage counts in one hand-readable JSON file in the state dir (the file
 * store's half of usage-store.ts). Every process on the host that shares
 * the file adds to it: a batch is written under the file's lock
 * (file-lock.ts) as read → add → atomic replace, so no process's counts are
 * overwritten by another's. The file is re-read only when another process
 * changed it since this one last read or wrote it.
 */
import { promises as fs, type Stats } from "node:fs";
import path from "node:path";
import { ensurePrivateDir, writeFileAtomic } from "./atomic-write.js";
import { acquireFileLock } from "./file-lock.js";
import { BufferedUsageStore, type BufferOptions, type UsageStore } from "./usage-store.js";
import { addRow, addTally, emptyTally, type Tally, type UsageRows } from "./usage-counts.js";
import { parseUsageFile, usageFileText } from "./usage-file-format.js";

export type { UsageStore } from "./usage-store.js";

interface UsageStoreOptions extends BufferOptions {
  readonly file: string;
  /** How long a write waits for another process's lock before keeping its batch for the next flush. Default 10 s. */
  readonly lockTimeoutMs?: number;
}

const MAX_USAGE_FILE_BYTES = 16 * 1024 * 1024;
/** A lock older than this is a crashed writer's: a write holds it for one read and one small write. */
const LOCK_STALE_MS = 30_000;

export function openUsageStore(options: UsageStoreOptions): UsageStore {
  return new FileUsageStore(options);
}

/** What identifies one version of the file: an atomic replace changes the inode and the times. */
type Version = string;

function versionOf(stat: Stats): Version {
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
}

class FileUsageStore extends BufferedUsageStore {
  private readonly file: string;
  private readonly dir: string;
  private readonly lockTimeoutMs: number;
  /** The file's rows as this process last read or wrote them, and which version of the file that was. */
  private rows: UsageRows = new Map();
  private version: Version | null = null;
  /** Each recipe's line of the file as last rendered (usage-file-format.ts); dropped for ids a write changes. */
  private readonly lines = new Map<string, string>();
  private sortedIds: string[] | null = null;

  constructor(options: UsageStoreOptions) {
    super(options);
    this.file = path.resolve(options.file);
    this.dir = path.dirname(this.file);
    this.lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
  }

  protected async readTotals(): Promise<Map<string, Tally> | null> {
    if ((await this.refresh()) !== "ok") return null;
    return new Map(this.storedTotals);
  }

  protected async readRows(recipeIds: readonly string[] | undefined): Promise<UsageRows | null> {
    if ((await this.refresh()) !== "ok") return null;
    if (recipeIds === undefined) return this.rows;
    const out: UsageRows = new Map();
    for (const id of recipeIds) {
      const byUser = this.rows.get(id);
      if (byUser !== undefined) out.set(id, byUser);
    }
    return out;
  }

  protected async writeBatch(batch: UsageRows): Promise<boolean> {
    // The replace below is atomic and nothing can fail after it: a batch is either in the file or not, so a
    // retried batch (same rows) is simply added now.
    await ensurePrivateDir(this.dir);
    const lock = await acquireFileLock(this.dir, path.basename(this.file), { timeoutMs: this.lockTimeoutMs, staleMs: LOCK_STALE_MS });
    if (lock.kind !== "acquired") {
      this.logger?.warn({ file: path.basename(this.file), lock: lock.kind }, "usage file busy; counts kept for the next flush");
      return false;
    }
    try {
      // Another process may have added its counts since this one last looked.
      const state = await this.refresh();
      if (state === "unreadable") return false;
      if (state === "corrupt") await this.setAside();
      const merged = new Map(this.rows);
      for (const [id, byUser] of batch) {
        // Rows of this batch's ids are copied before they are added to: `this.rows` stays as the file is until it is written.
        const copy = new Map<string, Tally>();
        for (const [user, tally] of merged.get(id) ?? []) copy.set(user, { counts: [...tally.counts], last: tally.last });
        merged.set(id, copy);
        for (const [user, tally] of byUser) addRow(merged, id, user, tally);
      }
      const changed = new Set(batch.keys());
      if (this.sortedIds !== null && [...changed].some((id) => !this.rows.has(id))) this.sortedIds = null;
      for (const id of changed) this.lines.delete(id);
      const ids = (this.sortedIds ??= [...merged.keys()].sort());
      await writeFileAtomic(this.dir, path.basename(this.file), usageFileText(ids, merged, this.lines));
      // Stored: from here on the batch must count as written, whatever fails next.
      this.rows = merged;
      const stat = await fs.stat(this.file).catch(() => null);
      this.version = stat === null ? null : versionOf(stat);
      return true;
    } finally {
      // A lock that cannot be removed now is taken over as stale later; the batch's fate is already decided.
      await lock.release().catch(() => undefined);
    }
  }

  /**
   * Re-reads the file when it is not the version last read or written here.
   * "corrupt": it exists but is no usage file (or is over the size limit);
   * "unreadable": it could not be read now (permissions, I/O).
   */
  private async refresh(): Promise<"ok" | "corrupt" | "unreadable"> {
    let stat: Stats;
    try {
      stat = await fs.stat(this.file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") return this.problem("unreadable", `the file cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
      if (this.version !== null || this.rows.size > 0) this.replaceRows(new Map());
      this.version = null;
      return "ok";
    }
    const version = versionOf(stat);
    if (version === this.version) return "ok";
    if (stat.size > MAX_USAGE_FILE_BYTES) return this.problem("corrupt", `the file is ${stat.size} bytes; the limit is ${MAX_USAGE_FILE_BYTES}`);
    let text: string;
    try {
      text = await fs.readFile(this.file, "utf8");
    } catch (error) {
      return this.problem("unreadable", `the file cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
    }
    const parsed = parseUsageFile(text);
    if (parsed === null) return this.problem("corrupt", "the file is not a usage record");
    this.replaceRows(parsed);
    this.version = version;
    this.warned = false;
    return "ok";
  }

  /** Under the lock: a corrupt file is renamed aside (kept for a look) and counting starts again from empty. */
  private async setAside(): Promise<void> {
    const aside = `${this.file}.corrupt-${new Date(this.now()).toISOString().replace(/[:.]/g, "-")}`;
    await fs.rename(this.file, aside);
    this.logger?.warn({ file: path.basename(this.file), movedTo: path.basename(aside) }, "corrupt usage file set aside; counting from empty");
    this.replaceRows(new Map());
    this.version = null;
  }

  private replaceRows(rows: UsageRows): void {
    this.rows = rows;
    this.lines.clear();
    this.sortedIds = null;
    this.storedTotals.clear();
    for (const [id, byUser] of rows) {
      const total = emptyTally();
      for (const tally of byUser.values()) addTally(total, tally);
      this.storedTotals.set(id, total);
    }
  }

  private warned = false;

  private problem<K extends "corrupt" | "unreadable">(kind: K, reason: string): K {
    if (!this.warned) this.logger?.warn({ file: path.basename(this.file), reason }, "usage counts unreadable");
    this.warned = true;
    return kind;
  }
}
