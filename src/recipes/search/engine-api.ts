/**
 * What the search engine (engine.ts) offers its callers: the options it is
 * built with, the calls a catalog and the tools make, and its status.
 */
import type { EmbeddingProvider } from "./embeddings/types.js";
import type { FusionOptions } from "./fusion.js";
import type { SearchLogger } from "./types.js";
import type { Recipe } from "../types.js";
import type { SearchAnswer, SearchHit, SearchQuery } from "./types.js";

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
   * re-embedded. The lexical side is updated synchronously; embeddings are
   * queued in the background.
   */
  update(recipes: readonly Recipe[], revision: number): void;
  /**
   * Indexes recipes a load has read but not yet published, so indexing
   * overlaps the rest of the load (parsing on a worker thread). Only ids not
   * served now are taken; searches see none of them before update() serves
   * them, and update() indexes nothing twice.
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
