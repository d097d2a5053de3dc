/**
 * Usage counts as both stores keep them (docs/configuration.md, "Usage
 * counts"): `record` is synchronous, O(1) and only touches memory; uses are
 * buffered per (recipe, user) and added to the stored counts in batches, on
 * an interval (default 2 s), when the buffer holds many rows, and on
 * shutdown (`flush`). A batch is *added* to what is stored (a locked
 * read-add-write of the file, or `n = n + EXCLUDED.n` in PostgreSQL), so
 * processes and replicas sharing a store add up instead of overwriting each
 * other.
 *
 * Reads (`read`) answer the stored counts plus this process's uses not yet
 * written, so once every writer has flushed they are exact.
 */
import { randomUUID } from "node:crypto";
import {
  addRow,
  addTally,
  COUNTER_INDEX,
  copyTally,
  emptyTally,
  recipeUsageOf,
  storableKey,
  type RecipeUsage,
  type Tally,
  type UsageCounter,
  type UsageRows,
} from "./usage-counts.js";

interface UsageLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

interface UsageQuery {
  /** These recipes only; absent: every recipe the store has counts of. */
  readonly recipeIds?: readonly string[];
  /** Also answer this user's own counts (`RecipeUsage.mine`). */
  readonly user?: string;
}

export interface UsageReading {
  /** Recipes with at least one recorded use (an id never used is absent). */
  readonly recipes: ReadonlyMap<string, RecipeUsage>;
  /** ISO time of the read. */
  readonly asOf: string;
  /** False when the stored counts could not be read: the answer is this process's knowledge only. */
  readonly complete: boolean;
}

export interface UsageStore {
  /**
   * Counts one use of `recipeId` by `user` ("" without a users file). Never
   * blocks, never throws; an id no store can keep (over MAX_USAGE_KEY_LENGTH,
   * U+0000, an unpaired surrogate) is not counted.
   */
  record(recipeId: string, counter: UsageCounter, user?: string): void;
  /** A recipe's totals as this process knows them now (stored when last read, plus its own uses since). */
  get(recipeId: string): Tally | undefined;
  /** Stored counts plus this process's unwritten uses. */
  read(query?: UsageQuery): Promise<UsageReading>;
  /** Writes the buffered uses now; resolves when they are stored (or kept for the next flush on failure). */
  flush(): Promise<void>;
  /** Reads the stored totals once (start-up), so `get` answers them. */
  load(): Promise<void>;
}

export interface BufferOptions {
  /** How long after the first buffered use a batch is written. Default 2000 ms. */
  readonly flushIntervalMs?: number;
  /** Buffered (recipe, user) rows that start a write at once. Default 4096. */
  readonly flushRows?: number;
  /** Buffered rows past which a use of a new (recipe, user) is dropped while writes fail. Default 65536. */
  readonly maxRows?: number;
  readonly now?: () => number;
  readonly logger?: UsageLogger;
}

const DEFAULT_USAGE_FLUSH_MS = 2000;

/**
 * The buffer and its batching, shared by both stores. A store says how a
 * batch is added to what it keeps and how the kept rows are read.
 */
export abstract class BufferedUsageStore implements UsageStore {
  /** Uses not yet handed to a write. */
  private pending: UsageRows = new Map();
  private pendingRows = 0;
  /** A new batch being written: still counted by `get` until it is stored (or becomes `retry`). */
  private inflight: UsageRows | null = null;
  /**
   * A batch whose write failed, retried as it is, under the same id, before
   * anything newer: a write that committed but whose answer was lost is then
   * recognised by its id (PostgreSQL) and not added twice.
   */
  private retry: { readonly id: string; readonly rows: UsageRows } | null = null;
  /** Each recipe's totals as stored when last read; `get` adds the buffered uses. */
  protected readonly storedTotals = new Map<string, Tally>();
  /** Writes and reads take turns: a read never sees a batch half-way (written but still buffered). */
  private exclusive: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private urgent = false;
  private dropped = 0;
  private loading: Promise<void> | undefined;
  protected readonly now: () => number;
  protected readonly logger: UsageLogger | undefined;
  private readonly interval: number;
  private readonly flushRows: number;
  private readonly maxRows: number;

  constructor(options: BufferOptions) {
    this.now = options.now ?? Date.now;
    this.logger = options.logger;
    this.interval = options.flushIntervalMs ?? DEFAULT_USAGE_FLUSH_MS;
    this.flushRows = options.flushRows ?? 4096;
    this.maxRows = options.maxRows ?? 65_536;
  }

  /**
   * Adds `batch` to the stored counts; false (batch not stored) to keep it
   * for the next flush. A batch retried after a failure comes again with the
   * same `id` and the same rows; a store that can tell it already applied
   * that id must not apply it again.
   */
  protected abstract writeBatch(batch: UsageRows, id: string): Promise<boolean>;
  /** The stored rows of `recipeIds` (all when absent); null when the store cannot be read. */
  protected abstract readRows(recipeIds: readonly string[] | undefined): Promise<UsageRows | null>;
  /** The stored totals per recipe at start-up; null when the store cannot be read. */
  protected abstract readTotals(): Promise<Map<string, Tally> | null>;

  record(recipeId: string, counter: UsageCounter, user = ""): void {
    let byUser = this.pending.get(recipeId);
    let tally = byUser?.get(user);
    if (tally === undefined) {
      // Checked once per buffered row, not per use: ids come from the catalog.
      if (!storableKey(recipeId) || !storableKey(user)) return;
      if (this.pendingRows >= this.maxRows) {
        this.dropped += 1;
        return;
      }
      if (byUser === undefined) this.pending.set(recipeId, (byUser = new Map()));
      byUser.set(user, (tally = emptyTally()));
      this.pendingRows += 1;
    }
    tally.counts[COUNTER_INDEX[counter]]! += 1;
    tally.last = this.now();
    if (this.pendingRows >= this.flushRows && !this.urgent) {
      this.urgent = true;
      setImmediate(() => void this.flush());
    } else {
      this.flushLater();
    }
  }

  get(recipeId: string): Tally | undefined {
    const stored = this.storedTotals.get(recipeId);
    const buffered = this.pending.get(recipeId);
    const writing = this.inflight?.get(recipeId);
    const retrying = this.retry?.rows.get(recipeId);
    if (buffered === undefined && writing === undefined && retrying === undefined) return stored;
    const total = stored === undefined ? emptyTally() : copyTally(stored);
    for (const unwritten of [buffered, writing, retrying]) for (const tally of unwritten?.values() ?? []) addTally(total, tally);
    return total;
  }

  load(): Promise<void> {
    return (this.loading ??= this.serialize(async () => {
      const totals = await this.readTotals();
      if (totals === null) return;
      for (const [id, tally] of totals) this.storedTotals.set(id, tally);
    }));
  }

  /** Never rejects: a batch that cannot be stored now is kept for the next flush. */
  flush(): Promise<void> {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    return this.serialize(() => this.writePending());
  }

  read(query: UsageQuery = {}): Promise<UsageReading> {
    return this.serialize(async () => {
      const asOf = new Date(this.now()).toISOString();
      const ids = query.recipeIds === undefined ? undefined : [...new Set(query.recipeIds)].filter(storableKey);
      const stored = ids?.length === 0 ? new Map() : await this.readRows(ids);
      const rows: UsageRows = new Map();
      if (stored !== null) {
        for (const [id, byUser] of stored) {
          for (const [user, tally] of byUser) addRow(rows, id, user, tally);
          const total = emptyTally();
          for (const tally of byUser.values()) addTally(total, tally);
          this.storedTotals.set(id, total);
        }
      }
      const wanted = ids === undefined ? null : new Set(ids);
      for (const unwritten of [this.pending, this.retry?.rows ?? new Map<string, Map<string, Tally>>()]) {
        for (const [id, byUser] of unwritten) {
          if (wanted !== null && !wanted.has(id)) continue;
          for (const [user, tally] of byUser) addRow(rows, id, user, tally);
        }
      }
      if (stored === null) {
        // What this process knew when it last read, for the ids asked: totals only, no user split.
        for (const id of wanted ?? this.storedTotals.keys()) {
          const known = this.storedTotals.get(id);
          if (known !== undefined && !rows.has(id)) rows.set(id, new Map([["", copyTally(known)]]));
        }
      }
      const recipes = new Map<string, RecipeUsage>();
      for (const [id, byUser] of rows) recipes.set(id, recipeUsageOf(byUser, query.user));
      return { recipes, asOf, complete: stored !== null };
    });
  }

  private async writePending(): Promise<void> {
    this.urgent = false;
    if (this.retry !== null) {
      if (!(await this.writeOne(this.retry.rows, this.retry.id))) return this.flushLater();
      this.retry = null;
    }
    if (this.pendingRows === 0) return;
    const batch = { id: randomUUID(), rows: this.pending };
    this.pending = new Map();
    this.pendingRows = 0;
    this.inflight = batch.rows;
    const stored = await this.writeOne(batch.rows, batch.id);
    this.inflight = null;
    if (!stored) {
      this.retry = batch;
      this.flushLater();
    }
  }

  private async writeOne(batch: UsageRows, id: string): Promise<boolean> {
    let stored = false;
    try {
      stored = await this.writeBatch(batch, id);
    } catch (error) {
      this.logger?.warn({ err: (error as NodeJS.ErrnoException).code ?? String(error) }, "usage counts not stored; kept for the next flush");
    }
    if (!stored) return false;
    // The stored totals of the recipes just written, other writers' uses included: what `get` answers
    // converges on every recipe this process uses (one read per batch; the file store reads nothing unless
    // another process wrote). When it cannot be read, the batch is added to what was known.
    const fresh = await this.readRows([...batch.keys()]).catch(() => null);
    for (const [recipeId, byUser] of fresh ?? batch) {
      const total = fresh === null ? (this.storedTotals.get(recipeId) ?? emptyTally()) : emptyTally();
      for (const tally of byUser.values()) addTally(total, tally);
      this.storedTotals.set(recipeId, total);
    }
    if (this.dropped > 0) {
      this.logger?.warn({ dropped: this.dropped }, "usage buffer was full while counts could not be stored; uses of new recipes were not counted");
      this.dropped = 0;
    }
    return true;
  }

  /** A flush one interval from now, unless one is already due. */
  private flushLater(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.interval);
    // Buffered uses must not keep a finished process alive; shutdown flushes.
    this.timer.unref();
  }

  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const run = this.exclusive.then(work, work);
    this.exclusive = run.catch(() => undefined);
    return run;
  }
}
