import type { Ranked } from "./fusion.js";
import type { EmbeddingProvider, SearchLogger } from "./types.js";
import { VectorCache, type CacheLoad } from "./vector-cache.js";
import { VectorStore } from "./vector-store.js";
import { packRows, rankRows, type Packed } from "./semantic-rank.js";

type SemanticState = "off" | "warming" | "ready" | "failed";

/** One text to embed, keyed by the hash of exactly that text. */
export interface SemanticView {
  readonly hash: string;
  readonly text: string;
}

export interface SemanticEntry {
  readonly id: string;
  /** At least one; the first is the primary view (see `rank`). */
  readonly views: readonly SemanticView[];
}

/** Texts per provider call: large enough to amortise, small enough to yield often. */
const BATCH = 16;
/**
 * During a long warm-up, persist progress at most this often; once ready,
 * vectors embedded for later changes are written this long after the first
 * of them. Writing after every change (the whole file: ~40 MB at 20,000
 * recipes) held each next change's embedding behind it on a replica
 * receiving writes: its semantic leg p50 0.6–1.5 s (bench:replicas
 * --public 20000). A crash loses at most these vectors: they are embedded
 * again on start.
 */
const SAVE_EVERY_MS = 5_000;
/** Recent query vectors kept: agents repeat queries while they iterate. */
const QUERY_CACHE = 256;
/** Query text beyond this is not embedded: USE-Lite's cost grows steeply with length. */
const QUERY_EMBED_LIMIT = 400;

/**
 * Vectors for the views of the live documents, filled in the background.
 * Keyed by text hash so a renamed-but-identical or reloaded recipe is not
 * embedded twice, and a change of what a view holds re-embeds only that view.
 */
export class SemanticIndex {
  private stateValue: SemanticState = "warming";
  private live = new Map<string, SemanticEntry>();
  private liveHashes = new Set<string>();
  private store = new VectorStore();
  private readonly cache: VectorCache | null;
  /** Started at construction so the file is read while the catalog loads; merged by the first pump. */
  private cacheLoad: Promise<CacheLoad> | null;
  private pumping: Promise<void> | null = null;
  /** A save scheduled after a change (see SAVE_EVERY_MS), and the one it started. */
  private saveTimer: NodeJS.Timeout | null = null;
  private saving: Promise<void> = Promise.resolve();
  private closed = false;
  private dirty = false;
  private lastSave = 0;
  private waiters: (() => void)[] = [];
  private embeddedCount = -1;
  private readonly queryVectors = new Map<string, Float32Array>();

  constructor(
    private readonly provider: EmbeddingProvider,
    cacheDir: string | undefined,
    private readonly logger: SearchLogger,
  ) {
    this.cache = cacheDir ? new VectorCache(cacheDir, provider.id, () => provider.dimension) : null;
    // load() answers failures as data; should it ever reject, that is a discarded cache, not an unhandled rejection.
    this.cacheLoad = this.cache
      ? this.cache.load().catch((err: unknown): CacheLoad => ({ ok: false, reason: "corrupt", detail: (err as Error).message }))
      : null;
  }

  get state(): SemanticState {
    return this.stateValue;
  }

  /** Documents every view of which has a vector. */
  get embedded(): number {
    // Memoised: /readyz and /metrics ask on every poll, and a count walks every view.
    if (this.embeddedCount < 0) {
      let n = 0;
      for (const e of this.live.values()) if (e.views.every((v) => this.store.has(v.hash))) n++;
      this.embeddedCount = n;
    }
    return this.embeddedCount;
  }

  /** The live set or the store changed: derived views of them are stale. */
  private changed(): void {
    this.packed = null;
    this.embeddedCount = -1;
  }

  get total(): number {
    return this.live.size;
  }

  setEntries(entries: ReadonlyMap<string, SemanticEntry>): void {
    this.live = new Map(entries);
    this.liveHashes = new Set();
    for (const e of this.live.values()) for (const v of e.views) this.liveHashes.add(v.hash);
    this.changed();
    // A failed provider gets another chance with every catalog change.
    if (this.stateValue === "failed") this.stateValue = "warming";
    this.kick();
  }

  whenReady(): Promise<void> {
    if (this.stateValue !== "warming") return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private settle(state: SemanticState): void {
    this.stateValue = state;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private kick(): void {
    if (this.closed || this.pumping) return;
    this.pumping = this.pump().finally(() => {
      this.pumping = null;
      // Entries may have changed while the last batch was in flight.
      if (!this.closed && this.stateValue !== "failed" && this.pending(1).length > 0) this.kick();
    });
  }

  /**
   * Views without a vector, each text once, document by document so the
   * `embedded` count (readiness progress) rises steadily.
   */
  private pending(max: number): SemanticView[] {
    const out: SemanticView[] = [];
    const hashes = new Set<string>();
    for (const e of this.live.values()) {
      for (const v of e.views) {
        if (this.store.has(v.hash) || hashes.has(v.hash)) continue;
        hashes.add(v.hash);
        out.push(v);
      }
      // Whole documents only, so a batch boundary never splits one.
      if (out.length >= max) break;
    }
    return out;
  }

  private async pump(): Promise<void> {
    const started = Date.now();
    if (this.cacheLoad && this.cache) {
      const loaded = await this.cacheLoad;
      this.cacheLoad = null;
      // Nothing is embedded before the cache is merged, so the loaded store simply becomes the store.
      if (loaded.ok && this.store.size === 0) {
        this.store = loaded.store;
        this.changed();
        this.logger.debug({ vectors: loaded.store.size, ms: Date.now() - started }, "vector cache loaded");
      } else if (!loaded.ok && loaded.reason !== "missing") {
        this.logger.warn({ reason: loaded.reason, detail: loaded.detail, file: this.cache.fileName }, "vector cache discarded");
      }
    }
    let embeddedNow = 0;
    // Work through a snapshot of what is missing, then look again: entries
    // may change while batches are in flight. Rescanning the live set per
    // batch would be quadratic on a large catalog.
    let queue: SemanticView[] = [];
    for (;;) {
      if (this.closed) return;
      if (queue.length === 0) queue = this.pending(Number.POSITIVE_INFINITY);
      const batch = queue.splice(0, BATCH).filter((v) => this.liveHashes.has(v.hash) && !this.store.has(v.hash));
      if (batch.length === 0) {
        if (queue.length === 0) break;
        continue;
      }
      try {
        const out = await this.provider.embed(batch.map((v) => v.text));
        if (out.length !== batch.length) throw new Error(`provider returned ${out.length} vectors for ${batch.length} texts`);
        batch.forEach((v, i) => {
          if (!this.store.add(v.hash, out[i]!)) throw new Error(`provider returned a vector of ${out[i]!.length} dimensions, expected ${this.store.dimension}`);
        });
      } catch (err) {
        this.logger.warn({ err: (err as Error).message, provider: this.provider.id }, "embedding failed; search stays lexical");
        await this.save();
        if (this.stateValue === "warming") this.settle("failed");
        return;
      }
      this.changed();
      embeddedNow += batch.length;
      this.dirty = true;
      if (this.stateValue === "warming" && Date.now() - this.lastSave > SAVE_EVERY_MS) await this.save();
    }
    this.prune();
    if (this.stateValue !== "warming") {
      this.saveSoon();
      return;
    }
    await this.save();
    // With a warm cache nothing was embedded; a query would still wait for the model.
    try {
      await this.provider.ready;
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, provider: this.provider.id }, "embedding model unavailable; search stays lexical");
      this.settle("failed");
      return;
    }
    if (this.closed) return;
    // Pack now rather than in the first query after a restart.
    if (this.store.dimension > 0) this.pack(this.store.dimension);
    this.logger.info({ ms: Date.now() - started, textsEmbedded: embeddedNow, total: this.live.size }, "semantic search ready");
    this.settle("ready");
  }

  /** Drops vectors no live document uses, so reloads do not grow memory. */
  private prune(): void {
    if (this.store.retain((hash) => this.liveHashes.has(hash)) > 0) {
      // Compaction may have moved rows.
      this.changed();
      this.dirty = true;
    }
  }

  private saveSoon(): void {
    if (!this.cache || !this.dirty || this.saveTimer !== null || this.closed) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      this.saving = this.save();
    }, SAVE_EVERY_MS);
    // The close() flushes what is pending: the timer need not keep the process alive.
    this.saveTimer.unref();
  }

  private async save(): Promise<void> {
    this.lastSave = Date.now();
    if (!this.cache || !this.dirty) return;
    this.dirty = false;
    try {
      await this.cache.save(this.store);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, "vector cache not written");
    }
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const key = text.length > QUERY_EMBED_LIMIT ? text.slice(0, QUERY_EMBED_LIMIT) : text;
    const hit = this.queryVectors.get(key);
    if (hit) {
      // Refresh recency: Map iteration order is insertion order.
      this.queryVectors.delete(key);
      this.queryVectors.set(key, hit);
      return hit;
    }
    const [vec] = await this.provider.embed([key]);
    if (!vec) throw new Error("provider returned no vector");
    this.queryVectors.set(key, vec);
    if (this.queryVectors.size > QUERY_CACHE) this.queryVectors.delete(this.queryVectors.keys().next().value as string);
    return vec;
  }

  /** Rebuilt lazily after the live set or the store changes (see packRows). */
  private packed: Packed | null = null;


  /**
   * Cosine of the query and each accepted live document's best view
   * (rankRows); `views: "primary"` ranks by the primary view alone (an
   * evaluation knob for bench/relevance).
   */
  rank(query: Float32Array, accept: (id: string) => boolean, limit: number, views: "all" | "primary" = "all"): Ranked[] {
    return rankRows(this.pack(query.length), this.store, query, accept, limit, views);
  }

  private pack(dim: number): Packed {
    if (this.packed === null || this.packed.dim !== dim) this.packed = packRows(this.live.values(), this.store, dim);
    return this.packed;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.saveTimer !== null) clearTimeout(this.saveTimer);
    this.saveTimer = null;
    await this.pumping;
    await this.saving;
    await this.save();
    if (this.stateValue === "warming") this.settle("failed");
  }
}
