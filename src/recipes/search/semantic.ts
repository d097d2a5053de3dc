import type { EmbeddingProvider } from "./embeddings/types.js";
import type { Ranked } from "./fusion.js";
import type { SearchLogger } from "./logger.js";
import { VectorCache } from "./vector-cache.js";

export type SemanticState = "off" | "warming" | "ready" | "failed";

export interface SemanticEntry {
  readonly id: string;
  readonly hash: string;
  readonly text: string;
}

/** Texts per provider call: large enough to amortise, small enough to yield often. */
const BATCH = 16;
/** During a long warm-up, persist progress at most this often. */
const SAVE_EVERY_MS = 5_000;
/** Recent query vectors kept: agents repeat queries while they iterate. */
const QUERY_CACHE = 256;
/** Query text beyond this is not embedded: the model only reads the head. */
const QUERY_EMBED_LIMIT = 2_000;

/**
 * Vectors for the live documents, filled in the background. Keyed by content
 * hash so a renamed-but-identical or reloaded recipe is not embedded twice.
 */
export class SemanticIndex {
  private stateValue: SemanticState = "warming";
  private live = new Map<string, SemanticEntry>();
  private vectors = new Map<string, Float32Array>();
  private readonly cache: VectorCache | null;
  private cacheLoaded = false;
  private pumping: Promise<void> | null = null;
  private closed = false;
  private dirty = false;
  private lastSave = 0;
  private waiters: (() => void)[] = [];
  private readonly queryVectors = new Map<string, Float32Array>();

  constructor(
    private readonly provider: EmbeddingProvider,
    cacheDir: string | undefined,
    private readonly logger: SearchLogger,
  ) {
    this.cache = cacheDir ? new VectorCache(cacheDir, provider.id, () => provider.dimension) : null;
  }

  get state(): SemanticState {
    return this.stateValue;
  }

  get embedded(): number {
    let n = 0;
    for (const e of this.live.values()) if (this.vectors.has(e.hash)) n++;
    return n;
  }

  get total(): number {
    return this.live.size;
  }

  setEntries(entries: ReadonlyMap<string, SemanticEntry>): void {
    this.live = new Map(entries);
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

  private pending(max: number): SemanticEntry[] {
    const out: SemanticEntry[] = [];
    const hashes = new Set<string>();
    for (const e of this.live.values()) {
      if (this.vectors.has(e.hash) || hashes.has(e.hash)) continue;
      hashes.add(e.hash);
      out.push(e);
      if (out.length >= max) break;
    }
    return out;
  }

  private async pump(): Promise<void> {
    const started = Date.now();
    if (!this.cacheLoaded && this.cache) {
      this.cacheLoaded = true;
      const loaded = await this.cache.load();
      if (loaded.ok) {
        for (const [hash, vec] of loaded.vectors) this.vectors.set(hash, vec);
        this.logger.debug({ vectors: loaded.vectors.size }, "vector cache loaded");
      } else if (loaded.reason !== "missing") {
        this.logger.warn({ reason: loaded.reason, detail: loaded.detail, file: this.cache.fileName }, "vector cache discarded");
      }
    }
    let embeddedNow = 0;
    for (;;) {
      if (this.closed) return;
      const batch = this.pending(BATCH);
      if (batch.length === 0) break;
      let out: Float32Array[];
      try {
        out = await this.provider.embed(batch.map((e) => e.text));
        if (out.length !== batch.length) throw new Error(`provider returned ${out.length} vectors for ${batch.length} texts`);
      } catch (err) {
        this.logger.warn({ err: (err as Error).message, provider: this.provider.id }, "embedding failed; search stays lexical");
        await this.save();
        if (this.stateValue === "warming") this.settle("failed");
        return;
      }
      batch.forEach((e, i) => this.vectors.set(e.hash, out[i]!));
      embeddedNow += batch.length;
      this.dirty = true;
      if (Date.now() - this.lastSave > SAVE_EVERY_MS) await this.save();
    }
    this.prune();
    await this.save();
    if (this.stateValue === "warming") {
      this.logger.info({ ms: Date.now() - started, embedded: embeddedNow, total: this.live.size }, "semantic search ready");
      this.settle("ready");
    }
  }

  /** Drops vectors no live document uses, so reloads do not grow memory. */
  private prune(): void {
    const used = new Set<string>();
    for (const e of this.live.values()) used.add(e.hash);
    for (const hash of this.vectors.keys()) {
      if (!used.has(hash)) {
        this.vectors.delete(hash);
        this.dirty = true;
      }
    }
  }

  private async save(): Promise<void> {
    this.lastSave = Date.now();
    if (!this.cache || !this.dirty) return;
    this.dirty = false;
    try {
      await this.cache.save(this.vectors);
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

  /** Cosine (vectors are L2-normalised) against every accepted live document. */
  rank(query: Float32Array, accept: (id: string) => boolean, limit: number): Ranked[] {
    const scored: Ranked[] = [];
    for (const e of this.live.values()) {
      if (!accept(e.id)) continue;
      const vec = this.vectors.get(e.hash);
      if (!vec || vec.length !== query.length) continue;
      let dot = 0;
      for (let i = 0; i < vec.length; i++) dot += vec[i]! * query[i]!;
      scored.push({ id: e.id, score: dot });
    }
    scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return scored.slice(0, limit);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.pumping;
    await this.save();
    if (this.stateValue === "warming") this.settle("failed");
  }
}
