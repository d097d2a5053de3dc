/** One small interface for every embedding backend (SPEC §6). */
export interface EmbeddingProvider {
  /** Stable identity of model + settings; part of the vector cache key. */
  readonly id: string;
  readonly dimension: number;
  /** Vectors in input order, L2-normalised. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
  close(): Promise<void>;
}
