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
