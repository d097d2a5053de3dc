import { FIELD_BOOST, SEARCH_FIELDS } from "../document.js";
import { ensure, f64, i32 } from "./grow.js";
import type { Derived, QueryPlan } from "./plan.js";
import type { PostingStore } from "./postings.js";
import { TermListCache, type TermList } from "./term-lists.js";
import { TopK } from "./topk.js";

/** What the scorer returns per match (LexicalMatch's shape). */
export interface ScoredMatch {
  readonly id: string;
  readonly raw: number;
  readonly coverage: number;
}

/** Coverage credit per query word: matched exactly, as a prefix, through a typo. */
const EXACT = 1;
const PREFIX = 0.7;
const FUZZY = 0.4;

/**
 * BM25+ as MiniSearch 7 scores it (the index this one replaced; the ranking
 * is unchanged): per field, idf over the documents holding the term in that
 * field, k1 1.2, b 0.7, delta 0.5, the field's length counted in unique
 * tokens; a document's sum is multiplied by the number of query words it
 * matched.
 */
const K1 = 1.2;
const B = 0.7;
const DELTA = 0.5;

const FIELDS = SEARCH_FIELDS.length;
const BOOST = Float64Array.from(SEARCH_FIELDS, (f) => FIELD_BOOST[f]);

/** BM25+'s term-frequency part of a posting's score: delta + tf (k1 + 1) / (tf + norm). */
function tfNorm(meta: number, norms: Float64Array, slot: number): number {
  const tf = meta >>> 3;
  return DELTA + (tf * (K1 + 1)) / (tf + norms[slot * FIELDS + (meta & 7)]!);
}

/**
 * A term's main postings in [from, to) summed per live document with its
 * per-field factors. A document's postings of one term sit next to each
 * other (one put adds them all, compaction keeps their order), so the
 * per-slot scratch is later touched once per document, not once per field.
 */
function buildList(store: PostingStore, norms: Float64Array, factor: Float64Array, postings: Uint32Array, from: number, to: number): TermList {
  const alive = store.alive;
  const slots: number[] = [];
  const scores: number[] = [];
  let p = from;
  while (p < to) {
    const slot = postings[p]!;
    let score = 0;
    do {
      const meta = postings[p + 1]!;
      score += factor[meta & 7]! * tfNorm(meta, norms, slot);
      p += 2;
    } while (p < to && postings[p] === slot);
    if (!alive[slot]) continue;
    slots.push(slot);
    scores.push(score);
  }
  return { slots: Int32Array.from(slots), scores: Float64Array.from(scores) };
}

/** One term's factor row at weight 1: boost * idf per field (the row accumulate builds for a weight-1 term). */
function unitFactor(df: Uint32Array, n: number, term: number): Float64Array {
  const row = new Float64Array(FIELDS);
  for (let f = 0; f < FIELDS; f++) {
    const m = df[term * FIELDS + f] ?? 0;
    row[f] = 1 * BOOST[f]! * Math.log(1 + (n - m + 0.5) / (m + 0.5));
  }
  return row;
}

function popcount(x: number): number {
  x = x >>> 0;
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * Scores a query plan over a posting store: per-slot accumulators (reused
 * across queries, zero between them), then a top-k pass that asks the
 * caller's filter only about documents that would make the cut.
 */
export class Scorer {
  private acc: Float64Array = new Float64Array(0);
  private sourceBits: Int32Array = new Int32Array(0);
  private exactBits: Int32Array = new Int32Array(0);
  private prefixBits: Int32Array = new Int32Array(0);
  private touched: Int32Array = new Int32Array(0);
  /** Per slot and field: BM25's length normalisation, k1 * (1 - b + b * len / avg); valid for normsGeneration of normsStore. */
  private norms: Float64Array = new Float64Array(0);
  private normsStore: PostingStore | null = null;
  private normsGeneration = -1;
  private readonly termLists: TermListCache;

  constructor(termListMinPostings?: number) {
    this.termLists = new TermListCache(termListMinPostings);
  }

  rank(store: PostingStore, plan: QueryPlan, accept: (id: string) => boolean, k: number): ScoredMatch[] {
    if (plan.derived.length === 0) return [];
    const slots = store.slotCount;
    this.acc = ensure(this.acc, slots, f64);
    this.sourceBits = ensure(this.sourceBits, slots, i32);
    this.exactBits = ensure(this.exactBits, slots, i32);
    this.prefixBits = ensure(this.prefixBits, slots, i32);
    this.touched = ensure(this.touched, slots, i32);
    let count = 0;
    try {
      count = this.accumulate(store, plan.derived);
      return this.select(store, count, plan, accept, k);
    } finally {
      for (let i = 0; i < count; i++) {
        const slot = this.touched[i]!;
        this.acc[slot] = 0;
        this.sourceBits[slot] = 0;
        this.exactBits[slot] = 0;
        this.prefixBits[slot] = 0;
      }
    }
  }

  /** Adds every live posting of the derived terms into the per-slot scratch; returns how many slots it touched (listed in `touched`). */
  private accumulate(store: PostingStore, derived: readonly Derived[]): number {
    const { df, offsets, main } = store;
    const n = store.liveCount;
    const norms = this.normsFor(store);
    // factor[d * FIELDS + f]: weight * boost * idf of derived term d in field f.
    const factor = new Float64Array(derived.length * FIELDS);
    derived.forEach((d, i) => {
      for (let f = 0; f < FIELDS; f++) {
        const m = df[d.term * FIELDS + f] ?? 0;
        factor[i * FIELDS + f] = d.weight * BOOST[f]! * Math.log(1 + (n - m + 0.5) / (m + 0.5));
      }
    });
    let count = 0;
    const mainTerms = store.mainTerms;
    let deltaTerms: Map<number, number[]> | null = null;
    derived.forEach((d, i) => {
      if (d.term < mainTerms) {
        const from = 2 * offsets[d.term]!;
        const to = 2 * offsets[d.term + 1]!;
        if (to - from >= 2 * this.termLists.minPostings) {
          // Kept lists hold the term's weight-1 sums; an expansion scales them by its weight.
          const list = this.termLists.get(store, d.term, () => buildList(store, norms, unitFactor(df, n, d.term), main, from, to));
          count = this.addList(list, d, d.weight, count);
        } else {
          count = this.addList(buildList(store, norms, factor.subarray(i * FIELDS, (i + 1) * FIELDS), main, from, to), d, 1, count);
        }
      }
      if (store.deltaCount > 0) {
        deltaTerms ??= new Map();
        const list = deltaTerms.get(d.term);
        if (list) list.push(i);
        else deltaTerms.set(d.term, [i]);
      }
    });
    if (deltaTerms) {
      const terms: Map<number, number[]> = deltaTerms;
      const alive = store.alive;
      store.eachDeltaChunk((delta, end) => {
        for (let j = 0; j < end; j += 3) {
          // A delta triple is (term, slot, meta).
          const list = terms.get(delta[j]!);
          const slot = delta[j + 1]!;
          if (list === undefined || !alive[slot]) continue;
          const meta = delta[j + 2]!;
          for (const i of list) count = this.addScore(derived[i]!, slot, factor[i * FIELDS + (meta & 7)]! * tfNorm(meta, norms, slot), count);
        }
      });
    }
    return count;
  }

  /** Adds one document's score for a derived term; returns the touched count. */
  private addScore(d: Derived, slot: number, score: number, touchedCount: number): number {
    let count = touchedCount;
    if (this.sourceBits[slot] === 0) this.touched[count++] = slot;
    this.acc[slot]! += score;
    this.sourceBits[slot]! |= d.source;
    this.exactBits[slot]! |= d.exact;
    this.prefixBits[slot]! |= d.prefix;
    return count;
  }

  /** Adds a term list, scaled, into the per-slot scratch; returns the touched count. */
  private addList(list: TermList, d: Derived, scale: number, touchedCount: number): number {
    const { acc, sourceBits, exactBits, prefixBits, touched } = this;
    const { slots, scores } = list;
    const { source, exact, prefix } = d;
    let count = touchedCount;
    for (let j = 0; j < slots.length; j++) {
      const slot = slots[j]!;
      if (sourceBits[slot] === 0) touched[count++] = slot;
      // Exact at scale 1; an expansion's weight rounds once more than a sum built with it.
      acc[slot]! += scale * scores[j]!;
      sourceBits[slot]! |= source;
      exactBits[slot]! |= exact;
      prefixBits[slot]! |= prefix;
    }
    return count;
  }

  /** Length normalisation of every slot's fields, recomputed only after the store changed. */
  private normsFor(store: PostingStore): Float64Array {
    if (this.normsStore === store && this.normsGeneration === store.generation) return this.norms;
    const { lengths, slotCount } = store;
    const n = store.liveCount;
    const base = K1 * (1 - B);
    const perLength = new Float64Array(FIELDS);
    for (let f = 0; f < FIELDS; f++) perLength[f] = n > 0 && store.lengthSum[f]! > 0 ? (K1 * B * n) / store.lengthSum[f]! : 0;
    const norms = this.norms.length >= slotCount * FIELDS ? this.norms : new Float64Array(slotCount * FIELDS * 2);
    for (let slot = 0; slot < slotCount; slot++) {
      for (let f = 0; f < FIELDS; f++) norms[slot * FIELDS + f] = base + perLength[f]! * lengths[slot * FIELDS + f]!;
    }
    this.norms = norms;
    this.normsStore = store;
    this.normsGeneration = store.generation;
    return norms;
  }

  /** Top k accepted documents with their coverage; `accept` runs only for contenders. */
  private select(store: PostingStore, count: number, plan: QueryPlan, accept: (id: string) => boolean, k: number): ScoredMatch[] {
    const { acc, sourceBits, exactBits, prefixBits } = this;
    const { words, df: wordDf } = plan;
    const n = store.liveCount;
    const ids = store.ids;
    const top = new TopK(k, ids, store.orderedSlots);
    const touched = this.touched;
    for (let i = 0; i < count; i++) {
      const slot = touched[i]!;
      const score = acc[slot]! * popcount(sourceBits[slot]!);
      if (score < top.floor) continue;
      if (top.admits(score, slot) && accept(ids[slot]!)) top.push(score, slot);
    }
    // Share of the query's information the document matched: each query term
    // weighs its idf, so in a long draft the rare words ("bevel", "chamfer")
    // decide, and a paraphrase's stray matches on common words count little.
    const idf = wordDf.map((d) => Math.log(1 + (n - d + 0.5) / (d + 0.5)));
    const total = idf.reduce((a, b) => a + b, 0);
    return top.drain().map(({ slot, score }) => {
      let sum = 0;
      for (let i = 0; i < words.length; i++) {
        const bit = 1 << i;
        if (exactBits[slot]! & bit) sum += EXACT * idf[i]!;
        else if (prefixBits[slot]! & bit) sum += PREFIX * idf[i]!;
        else if (sourceBits[slot]! & bit) sum += FUZZY * idf[i]!;
      }
      return { id: ids[slot]!, raw: score, coverage: total > 0 ? sum / total : 0 };
    });
  }
}
