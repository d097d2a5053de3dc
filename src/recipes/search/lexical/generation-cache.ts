import type { PostingStore } from "./postings.js";

/**
 * Values derived from a posting store, kept for one store generation (any
 * put, removal or compaction starts afresh), within a budget of weighed
 * values and evicted least recently used first. A value heavier than the
 * whole budget is handed back without being kept.
 */
export class GenerationCache<K, V> {
  private store: PostingStore | null = null;
  private generation = -1;
  private readonly values = new Map<K, V>();
  private held = 0;

  constructor(
    private readonly budget: number,
    private readonly weigh: (value: V) => number = () => 1,
  ) {}

  /** The value for `key` in the store's current generation, built by `build` when absent. */
  get(store: PostingStore, key: K, build: () => V): V {
    if (this.store !== store || this.generation !== store.generation) {
      this.values.clear();
      this.held = 0;
      this.store = store;
      this.generation = store.generation;
    }
    const known = this.values.get(key);
    if (known !== undefined) {
      // Map order is insertion order: re-inserting marks it most recently used.
      this.values.delete(key);
      this.values.set(key, known);
      return known;
    }
    const value = build();
    const weight = this.weigh(value);
    if (weight > this.budget) return value;
    for (const [oldest, evicted] of this.values) {
      if (this.held + weight <= this.budget) break;
      this.values.delete(oldest);
      this.held -= this.weigh(evicted);
    }
    this.values.set(key, value);
    this.held += weight;
    return value;
  }

  get size(): number {
    return this.values.size;
  }
}
