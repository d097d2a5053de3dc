/**
 * What the search engine (engine.ts) offers its callers: the options it is
 * built with (the embedding provider among them: one small interface for
 * every backend, docs/configuration.md), the calls a catalog and the tools
 * make, the queries, hits and answers they exchange, and its status.
 */
import type { FusionOptions } from "./fusion.js";
import type { Recipe } from "../types.js";

export type SearchMode = "lexical" | "hybrid";

export interface SearchQuery {
  readonly text: string;
  /** A recipe matches when its dcc equals this or is `any`. */
  readonly dcc?: string;
  readonly skill?: string;
  /** A recipe matches when its skill's `layer` equals this (`domain` also matches a skill naming none). */
  readonly layer?: string;
  readonly visibility?: "all" | "public" | "private";
  readonly limit: number;
}

export interface SearchHit {
  readonly recipe: Recipe;
  readonly score: number;
}

export interface SearchAnswer {
  readonly mode: SearchMode;
  readonly hits: readonly SearchHit[];
}

/** The slice of a pino logger the search engine uses. */
export interface SearchLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export const silentLogger: SearchLogger = {
  info: () => undefined,
  warn: () => undefined,
  debug: () => undefined,
};

/** One small interface for every embedding backend (docs/configuration.md). */
export interface EmbeddingProvider {
  /** Stable identity of model + settings; part of the vector cache key. */
  readonly id: string;
  readonly dimension: number;
  /** Vectors in input order, L2-normalised. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
  /**
   * Optional: settles when the backend can embed without a load delay (a
   * local model in memory); rejects when it never will. The search engine
   * stays lexical until then, even when every vector came from the cache.
   */
  readonly ready?: Promise<unknown>;
  close(): Promise<void>;
}

/** Scales `v` in place to unit length, as `embed` promises; a zero vector, or one already unit length, is left as it is. */
export function normalise(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  if (n > 0 && Math.abs(n - 1) > 1e-6) for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

export interface SearchEngineOptions {
  /** null = lexical only (`--embeddings none`). The caller owns and closes it. */
  provider: EmbeddingProvider | null;
  /**
   * Vector cache directory; absent = memory only. One directory per engine:
   * an engine keeps only its own live vectors in the file it writes.
   */
  cacheDir?: string;
  logger?: SearchLogger;
  /** Fusion tuning; the default is what bench/relevance chose. */
  fusion?: Partial<FusionOptions>;
  /**
   * Evaluation knob for bench/relevance: rank by one side only. Production
   * leaves it at "fused".
   */
  ranking?: "fused" | "lexical" | "semantic";
  /**
   * Evaluation knob for bench/relevance: score recipes by their primary
   * embedding view only (the single-text ranking before multi-view).
   */
  semanticViews?: "all" | "primary";
}

export interface SearchStatus {
  lexical: "empty" | "ready";
  semantic: "off" | "warming" | "ready" | "failed";
  embedded: number;
  total: number;
  revision: number;
}

export interface SimilarOptions {
  limit: number;
  visibility?: "all" | "public" | "private";
  excludeId?: string;
}

export interface SearchEngine {
  /**
   * Replace the indexed set with this catalog's recipes. Incremental: only
   * recipes whose recipeId or content hash changed are re-indexed and
   * re-embedded. Searches answer from the new set at once, as a fully built
   * index would: the lexical index fills in the background after the call,
   * and a ranked search first indexes what is still waiting. Embeddings are
   * queued in the background.
   */
  update(recipes: readonly Recipe[], revision: number): void;
  /**
   * Recipes a load has read but not yet published: queued for the index
   * (indexed once a publish starts the background indexing, or by an
   * earlier ranked search), so update() need not look at them again. Only
   * ids not served now are taken; searches see none of them before
   * update() serves them, and update() indexes nothing twice.
   */
  warm(recipes: readonly Recipe[]): void;
  /**
   * Ranked hits. Empty or blank `text`: every recipe passing the filters,
   * sorted by recipeId, score 0, mode "lexical". Mode is "hybrid" only when
   * the semantic side is ready and the query embedding succeeded. A lexical
   * answer is returned synchronously, a hybrid one (a query embedding to wait
   * for) as a promise: a caller with nothing to await answers without giving
   * up its turn.
   */
  search(query: SearchQuery): SearchAnswer | Promise<SearchAnswer>;
  /** Close matches to a draft (used by `recipe create` for its `similar` list). */
  similar(text: string, options: SimilarOptions): Promise<readonly SearchHit[]>;
  status(): SearchStatus;
  /** Resolves when semantic warm-up finished (or immediately when off/failed). */
  whenSemanticReady(): Promise<void>;
  /** Stops background embedding and flushes the vector cache. */
  close(): Promise<void>;
}
