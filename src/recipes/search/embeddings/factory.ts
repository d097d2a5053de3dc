import { createLocalProvider, type LocalProviderOptions } from "./local.js";
import { createOpenAIProvider, type OpenAIProviderOptions } from "./openai.js";
import type { EmbeddingProvider } from "./types.js";

export type EmbeddingKind = "local" | "openai" | "none";

export interface EmbeddingProviderOptions {
  readonly local?: LocalProviderOptions;
  /** Required for kind "openai" (config resolves url, model and key). */
  readonly openai?: OpenAIProviderOptions;
}

/**
 * The provider for `--embeddings`. `none` is null: the engine then runs
 * lexical only. The caller owns the provider and closes it on shutdown.
 */
export function createEmbeddingProvider(kind: EmbeddingKind, options: EmbeddingProviderOptions = {}): EmbeddingProvider | null {
  switch (kind) {
    case "none":
      return null;
    case "local":
      return createLocalProvider(options.local);
    case "openai":
      if (!options.openai) throw new Error("createEmbeddingProvider: kind openai needs options.openai (url, model)");
      return createOpenAIProvider(options.openai);
  }
}
