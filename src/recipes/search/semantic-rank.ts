/**
 * Ranking over the semantic index's vectors (semantic.ts): the rows of the
 * live documents' views packed in document order, and a cosine scan of them.
 */
import type { Ranked } from "./fusion.js";
import { TopK, dotHalves, dotWords } from "./semantic-scan.js";
import type { VectorStore } from "./vector-store.js";

/**
 * Candidates pre-ranked by the primary view before every view of theirs is
 * scored. Scoring all views of 20,000 recipes would multiply the scan (the
 * search latency budget in docs/benchmarks.md); below this many recipes the ranking is exact.
 */
const PRIMARY_SHORTLIST = 1000;

/**
 * Which store rows to scan, in document order: `primary` holds one row
 * per document; `extra` the further views of document i in entries
 * extraStart[i] .. extraStart[i+1]. Row numbers, not copies: the store
 * already holds each vector once in one array. Rebuilt lazily after the
 * live set or the store changes.
 */
export interface Packed {
  readonly ids: string[];
  readonly dim: number;
  /** Store row of each document's primary view. */
  readonly primary: Int32Array;
  /** Store rows of the further views, document by document. */
  readonly extra: Int32Array;
  readonly extraStart: Int32Array;
}

export function packRows(live: Iterable<{ readonly id: string; readonly views: readonly { readonly hash: string }[] }>, store: VectorStore, dim: number): Packed {
  const ids: string[] = [];
  const primary: number[] = [];
  const extra: number[] = [];
  const extraStart: number[] = [0];
  const usable = dim === store.dimension;
  for (const e of live) {
    // A document is ranked once its primary view is in; the others join as they arrive.
    const first = usable ? store.rowOf(e.views[0]!.hash) : undefined;
    if (first === undefined) continue;
    ids.push(e.id);
    primary.push(first);
    for (let i = 1; i < e.views.length; i++) {
      const row = store.rowOf(e.views[i]!.hash);
      if (row !== undefined) extra.push(row);
    }
    extraStart.push(extra.length);
  }
  return { ids, dim, primary: Int32Array.from(primary), extra: Int32Array.from(extra), extraStart: Int32Array.from(extraStart) };
}

/**
 * Cosine (vectors are L2-normalised) of the query and each accepted live
 * document's best view. Documents are pre-ranked by their primary view and
 * the best PRIMARY_SHORTLIST of them scored on every view: exact up to that
 * catalog size. `views: "primary"` ranks by the primary view alone (an
 * evaluation knob for bench/relevance).
 */
export function rankRows(
  packed: Packed,
  store: VectorStore,
  query: Float32Array,
  accept: (id: string) => boolean,
  limit: number,
  views: "all" | "primary",
): Ranked[] {
  const { ids, dim, primary, extra, extraStart } = packed;
  const matrix = store.matrix;
  const words = store.words;
  const shortlist = new TopK(views === "primary" ? limit : Math.max(limit, PRIMARY_SHORTLIST));
  for (let doc = 0; doc < ids.length; doc++) {
    const at = primary[doc]! * dim;
    const score = words ? dotWords(words, at >> 1, query, dim) : dotHalves(matrix, at, query, dim);
    if (shortlist.admits(score) && accept(ids[doc]!)) shortlist.push(ids[doc]!, score, doc);
  }
  if (views === "primary") return shortlist.sorted();
  const top = new TopK(limit);
  for (const { id, score, doc } of shortlist.items()) {
    let best = score;
    for (let e = extraStart[doc]!; e < extraStart[doc + 1]!; e++) {
      const at = extra[e]! * dim;
      best = Math.max(best, words ? dotWords(words, at >> 1, query, dim) : dotHalves(matrix, at, query, dim));
    }
    if (top.admits(best)) top.push(id, best, doc);
  }
  return top.sorted();
}
