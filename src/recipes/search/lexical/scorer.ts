import { B, FIELDS, K1, buildList, fieldFactor, popcount, tfNorm, unitFactor } from "./bm25.js";
import { ensure, f64, i32 } from "./postings.js";
import type { Derived, QueryPlan } from "./plan.js";
import type { PostingStore } from "./postings.js";
import { TermListCache } from "./plan.js";
import { TopK } from "./walk.js";
import { WALKED, walk, type WalkScratch, type Walked } from "./walk.js";

/** What the scorer returns per match (LexicalMatch's shape). */
interface ScoredMatch {
  readonly id: string;
  readonly raw: number;
  readonly coverage: number;
}

/** Coverage credit per query word: matched exactly, as a prefix, through a typo. */
const EXACT = 1;
const PREFIX = 0.7;
const FUZZY = 0.4;

/**
 * Lists beyond which the walk (which looks at every list for every
 * document) costs more than accumulating them per slot: a short prefix's
 * hundreds of expansions.
 */
const WALK_MAX = 16;

/**
 * Scores a query plan over a posting store. The main postings' documents
 * are ranked by walking the terms' lists side by side (lexical/walk.ts);
 * documents added since the last compaction, whose postings sit in the
 * delta log in no order, queries with very many terms, and what the walk
 * leaves when bounds cannot narrow it go through per-slot accumulators
 * (reused across queries, zero between them). Either way the caller's
 * filter is asked only about documents that would make the cut.
 */
export class Scorer {
  private acc: Float64Array = new Float64Array(0);
  private sourceBits: Int32Array = new Int32Array(0);
  private exactBits: Int32Array = new Int32Array(0);
  private prefixBits: Int32Array = new Int32Array(0);
  private touched: Int32Array = new Int32Array(0);
  /** Per-slot arrays of the walk; `source`, `exact`, `prefix` also take the accumulated documents offered to the top k. */
  private readonly kept: WalkScratch = { source: new Int32Array(0), exact: new Int32Array(0), prefix: new Int32Array(0), mark: new Int32Array(0), stamp: 0 };
  /** Per slot and field: BM25's length normalisation, k1 * (1 - b + b * len / avg); valid for normsGeneration of normsStore. */
  private norms: Float64Array = new Float64Array(0);
  private normsStore: PostingStore | null = null;
  private normsGeneration = -1;
  private readonly termLists: TermListCache;

  constructor(
    termListMinPostings?: number,
    private readonly walkMax = WALK_MAX,
  ) {
    this.termLists = new TermListCache(termListMinPostings);
  }

  rank(store: PostingStore, plan: QueryPlan, accept: (id: string) => boolean, k: number): ScoredMatch[] {
    const derived = plan.derived;
    if (derived.length === 0) return [];
    const slots = store.slotCount;
    this.acc = ensure(this.acc, slots, f64);
    this.sourceBits = ensure(this.sourceBits, slots, i32);
    this.exactBits = ensure(this.exactBits, slots, i32);
    this.prefixBits = ensure(this.prefixBits, slots, i32);
    this.touched = ensure(this.touched, slots, i32);
    const kept = this.kept;
    kept.source = ensure(kept.source, slots, i32);
    kept.exact = ensure(kept.exact, slots, i32);
    kept.prefix = ensure(kept.prefix, slots, i32);
    kept.mark = ensure(kept.mark, 2 * slots, i32);
    const norms = this.normsFor(store);
    // factor[d * FIELDS + f]: weight * boost * idf of derived term d in field f;
    // only short lists and the delta need it (kept lists hold their own).
    let factor: Float64Array | null = null;
    const factors = (): Float64Array => {
      if (factor) return factor;
      const n = store.liveCount;
      factor = new Float64Array(derived.length * FIELDS);
      for (let i = 0; i < derived.length; i++) {
        for (let f = 0; f < FIELDS; f++) factor[i * FIELDS + f] = fieldFactor(derived[i]!.weight, f, n, store.df[derived[i]!.term * FIELDS + f] ?? 0);
      }
      return factor;
    };
    const lists = this.mainLists(store, derived, factors, norms);
    const top = new TopK(k, store.ids, store.orderedSlots, store.rank);
    let count = 0;
    try {
      // WALKED, or the words of the main documents the walk offered already (the rest is accumulated).
      const offered = lists.length <= Math.min(this.walkMax, 31) ? walk(lists, top, store.ids, accept, kept) : 0;
      if (offered !== WALKED) for (const list of lists) count = this.addList(list, count);
      if (store.deltaCount > 0) count = this.addDelta(store, derived, factors(), norms, count);
      this.select(store, count, top, accept, offered === WALKED ? 0 : offered);
      return this.matches(store, plan, top);
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

  /** Each derived term's live main postings, summed per document, in derived order. */
  private mainLists(store: PostingStore, derived: readonly Derived[], factors: () => Float64Array, norms: Float64Array): Walked[] {
    const { df, offsets } = store;
    const n = store.liveCount;
    const mainTerms = store.mainTerms;
    const out: Walked[] = [];
    for (let i = 0; i < derived.length; i++) {
      const d = derived[i]!;
      if (d.term >= mainTerms) continue;
      const from = offsets[d.term]!;
      const to = offsets[d.term + 1]!;
      if (from === to) continue;
      const { source, exact, prefix } = d;
      if (to - from >= this.termLists.minPostings) {
        // Kept lists hold the term's weight-1 sums; an expansion scales them by its weight.
        const list = this.termLists.get(store, d.term, () => buildList(store, norms, unitFactor(df, n, d.term), from, to));
        out.push({ list, scale: d.weight, source, exact, prefix });
      } else {
        out.push({ list: buildList(store, norms, factors().subarray(i * FIELDS, (i + 1) * FIELDS), from, to), scale: 1, source, exact, prefix });
      }
    }
    return out;
  }

  /** Adds every delta posting of the derived terms into the per-slot scratch; returns the touched count. */
  private addDelta(store: PostingStore, derived: readonly Derived[], factor: Float64Array, norms: Float64Array, touchedCount: number): number {
    let count = touchedCount;
    const terms = new Map<number, number[]>();
    derived.forEach((d, i) => {
      const list = terms.get(d.term);
      if (list) list.push(i);
      else terms.set(d.term, [i]);
    });
    const alive = store.alive;
    store.eachDelta((term, slot, meta) => {
      const list = terms.get(term);
      if (list === undefined || !alive[slot]) return;
      for (const i of list) count = this.addScore(derived[i]!, slot, factor[i * FIELDS + (meta & 7)]! * tfNorm(meta, norms, slot), count);
    });
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
  private addList(walked: Walked, touchedCount: number): number {
    const { acc, sourceBits, exactBits, prefixBits, touched } = this;
    const { list, scale, source, exact, prefix } = walked;
    const { slots, scores } = list;
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

  /**
   * Offers the accumulated documents to `top`, but for the main ones whose
   * words are `skip` (offered by the walk already; 0 skips none); `accept`
   * runs only for contenders.
   */
  private select(store: PostingStore, count: number, top: TopK, accept: (id: string) => boolean, skip: number): void {
    const { acc, sourceBits, touched, kept } = this;
    const ids = store.ids;
    const main = store.orderedSlots;
    for (let i = 0; i < count; i++) {
      const slot = touched[i]!;
      const score = acc[slot]! * popcount(sourceBits[slot]!);
      if (score < top.floor || (sourceBits[slot] === skip && slot < main)) continue;
      if (top.admits(score, slot) && accept(ids[slot]!)) {
        top.push(score, slot);
        kept.source[slot] = sourceBits[slot]!;
        kept.exact[slot] = this.exactBits[slot]!;
        kept.prefix[slot] = this.prefixBits[slot]!;
      }
    }
  }

  /** The kept documents, best first, with their coverage. */
  private matches(store: PostingStore, plan: QueryPlan, top: TopK): ScoredMatch[] {
    const { source, exact, prefix } = this.kept;
    const { words, df: wordDf } = plan;
    const n = store.liveCount;
    // Share of the query's information the document matched: each query term
    // weighs its idf, so in a long draft the rare words ("bevel", "chamfer")
    // decide, and a paraphrase's stray matches on common words count little.
    const idf = wordDf.map((d) => Math.log(1 + (n - d + 0.5) / (d + 0.5)));
    const total = idf.reduce((a, b) => a + b, 0);
    return top.drain().map(({ slot, score }) => {
      let sum = 0;
      for (let i = 0; i < words.length; i++) {
        const bit = 1 << i;
        if (exact[slot]! & bit) sum += EXACT * idf[i]!;
        else if (prefix[slot]! & bit) sum += PREFIX * idf[i]!;
        else if (source[slot]! & bit) sum += FUZZY * idf[i]!;
      }
      return { id: store.ids[slot]!, raw: score, coverage: total > 0 ? sum / total : 0 };
    });
  }
}
