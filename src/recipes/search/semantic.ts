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
/** Query text beyond this is not embedded: USE-Lite's cost grows steeply with length. */
const QUERY_EMBED_LIMIT = 400;

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
    this.packed = null;
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
        this.packed = null;
        this.logger.debug({ vectors: loaded.vectors.size }, "vector cache loaded");
      } else if (loaded.reason !== "missing") {
        this.logger.warn({ reason: loaded.reason, detail: loaded.detail, file: this.cache.fileName }, "vector cache discarded");
      }
    }
    let embeddedNow = 0;
    // Work through a snapshot of what is missing, then look again: entries
    // may change while batches are in flight. Rescanning the live set per
    // batch would be quadratic on a large catalog.
    let queue: SemanticEntry[] = [];
    for (;;) {
      if (this.closed) return;
      if (queue.length === 0) queue = this.pending(Number.POSITIVE_INFINITY);
      const batch = queue.splice(0, BATCH).filter((e) => this.live.get(e.id)?.hash === e.hash && !this.vectors.has(e.hash));
      if (batch.length === 0) {
        if (queue.length === 0) break;
        continue;
      }
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
      this.packed = null;
      embeddedNow += batch.length;
      this.dirty = true;
      if (Date.now() - this.lastSave > SAVE_EVERY_MS) await this.save();
    }
    this.prune();
    await this.save();
    if (this.stateValue === "warming") {
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
      const any = this.vectors.values().next().value;
      if (any) this.pack(any.length);
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
        this.packed = null;
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

  /**
   * Live vectors packed row by row into one Float32Array: a linear scan over
   * contiguous memory is several times faster than chasing 20,000 small
   * arrays. Rebuilt lazily after the live set or the vectors change.
   */
  private packed: { ids: string[]; matrix: Float32Array; dim: number } | null = null;

  private pack(dim: number): { ids: string[]; matrix: Float32Array; dim: number } {
    if (this.packed && this.packed.dim === dim) return this.packed;
    const ids: string[] = [];
    const rows: Float32Array[] = [];
    for (const e of this.live.values()) {
      const vec = this.vectors.get(e.hash);
      if (vec && vec.length === dim) {
        ids.push(e.id);
        rows.push(vec);
      }
    }
    const matrix = new Float32Array(rows.length * dim);
    rows.forEach((row, i) => matrix.set(row, i * dim));
    this.packed = { ids, matrix, dim };
    return this.packed;
  }

  /** Cosine (vectors are L2-normalised) against every accepted live document. */
  rank(query: Float32Array, accept: (id: string) => boolean, limit: number): Ranked[] {
    const { ids, matrix, dim } = this.pack(query.length);
    const top = new TopK(limit);
    for (let row = 0; row < ids.length; row++) {
      const base = row * dim;
      let dot = 0;
      for (let i = 0; i < dim; i++) dot += matrix[base + i]! * query[i]!;
      if (top.admits(dot) && accept(ids[row]!)) top.push(ids[row]!, dot);
    }
    return top.sorted();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.pumping;
    await this.save();
    if (this.stateValue === "warming") this.settle("failed");
  }
}

/** The k best (score, id) pairs seen, as a min-heap on score; ties prefer the smaller id. */
class TopK {
  private readonly heap: Ranked[] = [];

  constructor(private readonly k: number) {}

  /** Cheap pre-check so the caller can skip the filter for hopeless rows. */
  admits(score: number): boolean {
    return this.k > 0 && (this.heap.length < this.k || score >= this.heap[0]!.score);
  }

  push(id: string, score: number): void {
    const item = { id, score };
    const h = this.heap;
    if (h.length < this.k) {
      h.push(item);
      this.up(h.length - 1);
    } else if (worse(h[0]!, item)) {
      h[0] = item;
      this.down(0);
    }
  }

  sorted(): Ranked[] {
    return [...this.heap].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!worse(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && worse(h[l]!, h[m]!)) m = l;
      if (r < h.length && worse(h[r]!, h[m]!)) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}

/** a ranks below b: lower score, or equal score and larger id. */
function worse(a: Ranked, b: Ranked): boolean {
  return a.score < b.score || (a.score === b.score && a.id > b.id);
}
