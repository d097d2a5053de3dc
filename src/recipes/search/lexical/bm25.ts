import { FIELD_BOOST, SEARCH_FIELDS } from "../document.js";
import { SATURATED_META, type PostingStore } from "./postings.js";
import type { TermList } from "./plan.js";

/**
 * BM25+ as MiniSearch 7 scores it (the index this one replaced; the ranking
 * is unchanged): per field, idf over the documents holding the term in that
 * field, k1 1.2, b 0.7, delta 0.5, the field's length counted in unique
 * tokens; a document's sum is multiplied by the number of query words it
 * matched.
 */
export const K1 = 1.2;
export const B = 0.7;
const DELTA = 0.5;

export const FIELDS = SEARCH_FIELDS.length;
const BOOST = Float64Array.from(SEARCH_FIELDS, (f) => FIELD_BOOST[f]);

/** BM25+'s term-frequency part of a posting's score: delta + tf (k1 + 1) / (tf + norm). */
export function tfNorm(meta: number, norms: Float64Array, slot: number): number {
  const tf = meta >>> 3;
  return DELTA + (tf * (K1 + 1)) / (tf + norms[slot * FIELDS + (meta & 7)]!);
}

/** boost * idf of a term held in `m` of `n` live documents' field `f`, times weight. */
export function fieldFactor(weight: number, f: number, n: number, m: number): number {
  return weight * BOOST[f]! * Math.log(1 + (n - m + 0.5) / (m + 0.5));
}

/**
 * A term's main postings in [from, to) summed per live document with its
 * per-field factors. A document's postings of one term sit next to each
 * other (one put adds them all, compaction keeps their order), so each
 * document gets one entry, and the entries come in slot order as the range
 * does.
 */
export function buildList(store: PostingStore, norms: Float64Array, factor: Float64Array, from: number, to: number): TermList {
  const alive = store.alive;
  const { mainSlots, mainMeta } = store;
  const slots = new Int32Array(to - from);
  const scores = new Float64Array(slots.length);
  let n = 0;
  let max = 0;
  let p = from;
  while (p < to) {
    const slot = mainSlots[p]!;
    let score = 0;
    do {
      const byte = mainMeta[p]!;
      // A saturated byte's tf sits beside it (postings.ts, TF_IN_BYTE).
      const meta = byte < SATURATED_META ? byte : store.mainMetaAt(p);
      score += factor[meta & 7]! * tfNorm(meta, norms, slot);
      p++;
    } while (p < to && mainSlots[p] === slot);
    if (!alive[slot]) continue;
    slots[n] = slot;
    scores[n++] = score;
    if (score > max) max = score;
  }
  return { slots: slots.slice(0, n), scores: scores.slice(0, n), max };
}

/** One term's factor row at weight 1: boost * idf per field (the row a weight-1 term gets). */
export function unitFactor(df: Uint32Array, n: number, term: number): Float64Array {
  const row = new Float64Array(FIELDS);
  for (let f = 0; f < FIELDS; f++) row[f] = fieldFactor(1, f, n, df[term * FIELDS + f] ?? 0);
  return row;
}

export function popcount(x: number): number {
  x = x >>> 0;
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
