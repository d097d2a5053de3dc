/**
 * Basic usage of recipes (docs/tools.md `get`): how often each recipeId was
 * fetched and when last. `record` is synchronous and only touches memory; the
 * counts reach disk in one small JSON file, written atomically and debounced,
 * so a burst of gets costs one write. `flush` (shutdown) makes them durable.
 *
 * One process owns the file: two processes sharing it keep their own counts
 * and the last one to write wins.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { ensurePrivateDir, writeFileAtomic } from "./atomic-write.js";

export interface UsageEntry {
  readonly count: number;
  /** ISO time of the last `record`. */
  readonly lastUsedAt: string;
}

export interface UsageLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface UsageStoreOptions {
  readonly file: string;
  readonly now?: () => Date;
  /** How long after a `record` the file is written. Default 2000 ms. */
  readonly flushDelayMs?: number;
  readonly logger?: UsageLogger;
}

export interface UsageStore {
  /** Counts one use; never blocks and never throws. */
  record(recipeId: string): void;
  get(recipeId: string): UsageEntry | undefined;
  /** Writes pending counts now; resolves when they are on disk. */
  flush(): Promise<void>;
  /**
   * Reads the file; counts recorded before `load` are added to it. Only the
   * first call reads: the file then holds counts already in memory, and
   * adding them again (a second full catalog load) would double them.
   */
  load(): Promise<void>;
}

/** Two tallies of one recipe as one: counts added, the later use kept (ISO times compare as text). */
export function addUses(a: UsageEntry | undefined, b: UsageEntry): UsageEntry {
  return a === undefined ? b : { count: a.count + b.count, lastUsedAt: a.lastUsedAt > b.lastUsedAt ? a.lastUsedAt : b.lastUsedAt };
}

const FORMAT_VERSION = 1;
const MAX_USAGE_FILE_BYTES = 16 * 1024 * 1024;

export function openUsageStore(options: UsageStoreOptions): UsageStore {
  return new JsonUsageStore(options);
}

class JsonUsageStore implements UsageStore {
  private readonly file: string;
  private readonly now: () => Date;
  private readonly delay: number;
  private readonly logger: UsageLogger | undefined;
  private readonly entries = new Map<string, UsageEntry>();
  /**
   * Each id's line of the file as last rendered. A write re-renders only the
   * ids recorded since: under steady gets the file holds every id ever
   * fetched (tens of thousands) while a few hundred change between writes.
   */
  private readonly lines = new Map<string, string>();
  private dirty = false;
  /** Recipe ids in file order; null once an id was added since it was sorted. */
  private sortedIds: string[] | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** The write in progress; writes never overlap. */
  private writing: Promise<void> | undefined;
  /** The first load's read of the file; every later load answers with it. */
  private loading: Promise<void> | undefined;

  constructor(options: UsageStoreOptions) {
    this.file = path.resolve(options.file);
    this.now = options.now ?? (() => new Date());
    this.delay = options.flushDelayMs ?? 2000;
    this.logger = options.logger;
  }

  record(recipeId: string): void {
    const previous = this.entries.get(recipeId);
    if (previous === undefined) this.sortedIds = null;
    this.entries.set(recipeId, { count: (previous?.count ?? 0) + 1, lastUsedAt: this.now().toISOString() });
    this.lines.delete(recipeId);
    this.dirty = true;
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush().catch((error: unknown) => {
          this.logger?.warn({ err: (error as NodeJS.ErrnoException).code ?? String(error) }, "could not write usage counts");
        });
      }, this.delay);
      // Pending counts must not keep a finished process alive; shutdown flushes.
      this.timer.unref();
    }
  }

  get(recipeId: string): UsageEntry | undefined {
    return this.entries.get(recipeId);
  }

  async flush(): Promise<void> {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    // A write in progress may have started before some counts: wait for it,
    // then write once more. Not until nothing is dirty: under steady use a
    // count lands during every write, and looping on that rewrote the file
    // back to back instead of once per debounce (regression: usage flush
    // under load). Counts recorded during this write arm the timer again.
    while (this.writing !== undefined) await this.writing.catch(() => undefined);
    if (!this.dirty) return;
    const writing = this.writeOnce().finally(() => {
      this.writing = undefined;
    });
    this.writing = writing;
    await writing;
  }

  load(): Promise<void> {
    return (this.loading ??= this.readStored());
  }

  private async readStored(): Promise<void> {
    let text: string;
    try {
      const stat = await fs.stat(this.file);
      if (stat.size > MAX_USAGE_FILE_BYTES) {
        this.warnCorrupt(`the file is ${stat.size} bytes`);
        return;
      }
      text = await fs.readFile(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      this.warnCorrupt(`the file cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
      return;
    }
    const stored = parseUsage(text);
    if (stored === null) {
      this.warnCorrupt("the file is not a usage record");
      return;
    }
    this.sortedIds = null;
    for (const [id, entry] of stored) {
      this.lines.delete(id);
      this.entries.set(id, addUses(this.entries.get(id), entry));
    }
  }

  private async writeOnce(): Promise<void> {
    this.dirty = false;
    const text = usageText((this.sortedIds ??= [...this.entries.keys()].sort()), this.entries, this.lines);
    try {
      const dir = path.dirname(this.file);
      await ensurePrivateDir(dir);
      await writeFileAtomic(dir, path.basename(this.file), text);
    } catch (error) {
      this.dirty = true; // try again on the next flush
      throw error;
    }
  }

  private warnCorrupt(reason: string): void {
    this.logger?.warn({ file: path.basename(this.file), reason }, "usage counts unreadable; starting from empty");
  }
}

/**
 * The file: one JSON object, each recipe on its own line in id order (diffable, and
 * cheap to rewrite: under steady gets the daemon writes it every few seconds, and a
 * catalog can have tens of thousands of ids). Lines are joined rather than appended
 * to one string: a chain of appends is flattened again when written, which cost more
 * than rendering every line.
 */
function usageText(ids: readonly string[], entries: ReadonlyMap<string, UsageEntry>, lines: Map<string, string>): string {
  const rendered = new Array<string>(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    let line = lines.get(id);
    if (line === undefined) {
      const entry = entries.get(id)!;
      line = `${JSON.stringify(id)}:{"count":${entry.count},"lastUsedAt":${JSON.stringify(entry.lastUsedAt)}}`;
      lines.set(id, line);
    }
    rendered[i] = line;
  }
  return `{"version":${FORMAT_VERSION},"usage":{${ids.length === 0 ? "" : "\n"}${rendered.join(",\n")}\n}}\n`;
}

function parseUsage(text: string): Map<string, UsageEntry> | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) return null;
  const usage = (data as Record<string, unknown>).usage;
  if (usage === null || typeof usage !== "object" || Array.isArray(usage)) return null;
  const out = new Map<string, UsageEntry>();
  for (const [id, raw] of Object.entries(usage as Record<string, unknown>)) {
    if (raw === null || typeof raw !== "object") continue;
    const { count, lastUsedAt } = raw as Record<string, unknown>;
    if (typeof count !== "number" || !Number.isSafeInteger(count) || count < 0) continue;
    if (typeof lastUsedAt !== "string" || Number.isNaN(Date.parse(lastUsedAt))) continue;
    out.set(id, { count, lastUsedAt });
  }
  return out;
}
