/**
 * Rank fusion. Reciprocal Rank Fusion needs no score calibration between a
 * BM25 scale (unbounded) and cosine similarity (-1..1), which is why it is
 * the default; `weighted` is kept for the relevance bench to compare against
 * (bench/relevance/run.ts prints both). Lexical hits are discounted by how
 * much of the query they actually cover, so the stray prefix/typo matches a
 * paraphrase produces do not outvote the semantic ranking.
 */

export interface Ranked {
  readonly id: string;
  /** Larger is better; only the order matters to RRF. */
  readonly score: number;
  /** Lexical only: query coverage 0..1 (see LexicalMatch). */
  readonly coverage?: number;
}

interface Fused {
  readonly id: string;
  /** 0..1: 1 means first in every list. */
  readonly score: number;
}

type FusionMethod = "rrf" | "weighted";

export interface FusionOptions {
  readonly method: FusionMethod;
  /** RRF constant: larger flattens the contribution of top ranks. */
  readonly k: number;
  /** Share of the lexical list (0..1); the semantic list gets the rest. */
  readonly lexicalWeight: number;
  /**
   * A lexical hit counts coverage^power of its weight: 0 ignores coverage,
   * 2 lets a hit that matched one word of five through a typo count 1/50th.
   */
  readonly coveragePower: number;
}

/**
 * Chosen with bench/relevance (101 labelled queries), re-checked after the
 * semantic side moved to multi-view scoring: idf-weighted coverage^2 lifts
 * the paraphrase MRR from ~0.12 (plain RRF, coverage ignored) to the
 * semantic side's own (~0.29) while the keyword MRR stays near lexical level
 * (~0.96-0.98). k=10/30/60, power 1-3 and RRF vs weighted sum all land within
 * ±0.02 MRR of each other, less than the noise of a 101-query set (one query
 * moving from rank 2 to 1 is 0.005), so the rule that needs no calibration
 * between a BM25 scale and cosine stays.
 */
export const DEFAULT_FUSION: FusionOptions = { method: "rrf", k: 60, lexicalWeight: 0.5, coveragePower: 2 };

function quality(r: Ranked, options: FusionOptions): number {
  return options.coveragePower === 0 ? 1 : (r.coverage ?? 1) ** options.coveragePower;
}

function byScoreThenId(a: Fused, b: Fused): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Both lists must be sorted best first. */
export function fuse(lexical: readonly Ranked[], semantic: readonly Ranked[], options: FusionOptions): Fused[] {
  const total = new Map<string, number>();
  const wl = options.lexicalWeight;
  const ws = 1 - wl;
  if (options.method === "rrf") {
    const best = wl / (options.k + 1) + ws / (options.k + 1);
    lexical.forEach((r, i) => total.set(r.id, (total.get(r.id) ?? 0) + (wl * quality(r, options)) / (options.k + i + 1) / best));
    semantic.forEach((r, i) => total.set(r.id, (total.get(r.id) ?? 0) + ws / (options.k + i + 1) / best));
  } else {
    const top = lexical.length > 0 ? lexical[0]!.score : 1;
    for (const r of lexical) total.set(r.id, (total.get(r.id) ?? 0) + (wl * quality(r, options) * r.score) / (top || 1));
    // Cosine rarely goes below 0 for related text; clamp so unrelated vectors add nothing.
    for (const r of semantic) total.set(r.id, (total.get(r.id) ?? 0) + ws * Math.max(0, r.score));
  }
  return [...total].map(([id, score]) => ({ id, score: Math.min(1, score) })).sort(byScoreThenId);
}
