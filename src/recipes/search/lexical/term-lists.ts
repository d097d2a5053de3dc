import { GenerationCache } from "./generation-cache.js";

/**
 * A term's live documents with the term's whole contribution to each (its
 * fields' BM25 parts summed): what scoring a long posting list computes on
 * every query, kept for the store generation it was computed in.
 */
export interface TermList {
  /** In ascending order. */
  readonly slots: Int32Array;
  readonly scores: Float64Array;
  /** The largest of scores (0 when empty): bounds what the term adds to any document. */
  readonly max: number;
}

/**
 * Term lists of long posting lists, for one store generation at a time (any
 * put, removal or compaction starts afresh), bounded in documents held and
 * evicted least recently used first. The cost of a query is its terms'
 * posting lengths, and the long lists are the common words that recur from
 * one query to the next: those are worth keeping; a rare word's short list
 * is scored directly.
 */
export class TermListCache extends GenerationCache<number, TermList> {
  constructor(
    /** Postings (fields included) from which a term's list is kept. */
    readonly minPostings = 512,
    /** Documents held over all lists: 12 bytes each. */
    maxDocs = 262_144,
  ) {
    super(maxDocs, (list) => list.slots.length);
  }
}
