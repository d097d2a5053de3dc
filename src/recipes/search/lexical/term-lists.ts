import type { PostingStore } from "./postings.js";

/**
 * A term's live documents with the term's whole contribution to each (its
 * fields' BM25 parts summed): what scoring a long posting list computes on
 * every query, kept for the store generation it was computed in.
 */
export interface TermList {
  readonly slots: Int32Array;
  readonly scores: Float64Array;
}

/**
 * Term lists of long posting lists, for one store generation at a time (any
 * put, removal or compaction starts afresh), bounded in documents held and
 * evicted least recently used first. The cost of a query is its terms'
 * posting lengths, and the long lists are the common words that recur from
 * one query to the next: those are worth keeping; a rare word's short list
 * is scored directly.
 */
export class TermListCache {
  private store: PostingStore | null = null;
  private generation = -1;
  private readonly lists = new Map<number, TermList>();
  private heldDocs = 0;

  constructor(
    /** Postings (fields included) from which a term's list is kept. */
    readonly minPostings = 512,
    /** Documents held over all lists: 12 bytes each. */
    private readonly maxDocs = 262_144,
  ) {}

  /** The term's list in the store's current generation, built by `build` when absent. */
  get(store: PostingStore, term: number, build: () => TermList): TermList {
    if (this.store !== store || this.generation !== store.generation) {
      this.lists.clear();
      this.heldDocs = 0;
      this.store = store;
      this.generation = store.generation;
    }
    const known = this.lists.get(term);
    if (known !== undefined) {
      // Map order is insertion order: re-inserting marks it most recently used.
      this.lists.delete(term);
      this.lists.set(term, known);
      return known;
    }
    const list = build();
    if (list.slots.length > this.maxDocs) return list;
    for (const [oldest, evicted] of this.lists) {
      if (this.heldDocs + list.slots.length <= this.maxDocs) break;
      this.lists.delete(oldest);
      this.heldDocs -= evicted.slots.length;
    }
    this.lists.set(term, list);
    this.heldDocs += list.slots.length;
    return list;
  }

  get size(): number {
    return this.lists.size;
  }
}
