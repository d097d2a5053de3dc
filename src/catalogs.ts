/**
 * The daemon's recipe side, without its HTTP side: one recipe library
 * (catalog + search + private store) per DCC and the one embedding model
 * they share. Kept apart from app.ts so that serve.ts can start loading the
 * catalogs before it sets up the server stack (fastify, the MCP SDK).
 */
import type { Logger } from "pino";
import type { Config } from "./config.js";
import { RecipeLibrary } from "./recipes/library.js";
import { createEmbeddingProvider } from "./recipes/search/embeddings/factory.js";
import type { EmbeddingProvider } from "./recipes/search/embeddings/types.js";
import { createSearchEngine } from "./recipes/search/engine.js";
import { stateFiles } from "./recipes/state-files.js";

export interface RecipeCatalogs {
  readonly libraries: ReadonlyMap<string, RecipeLibrary>;
  /** Every DCC's first load; the same promise on every call. */
  load(): Promise<void>;
  /** True once every DCC's first load has finished. */
  loaded(): boolean;
  /** Stops the watchers, flushes the stores and releases the model. */
  close(): Promise<void>;
}

export interface OpenCatalogsOptions {
  /** Parse worker threads per large load; default parseWorkerCount(), 0 = the calling thread only. */
  readonly parseWorkers?: number;
}

export function openCatalogs(config: Config, logger: Logger, options: OpenCatalogsOptions = {}): RecipeCatalogs {
  // One model for every DCC: it is the heavy part (~200 MB for the local one).
  const embeddings: EmbeddingProvider | null = createEmbeddingProvider(config.embeddings.kind, {
    ...(config.embeddings.url !== null
      ? {
          openai: {
            url: config.embeddings.url,
            model: config.embeddings.model ?? "text-embedding-3-small",
            ...(config.embeddings.apiKey !== null ? { apiKey: config.embeddings.apiKey } : {}),
          },
        }
      : {}),
  });
  const libraries = new Map<string, RecipeLibrary>();
  for (const dcc of config.dccs) {
    const search = createSearchEngine({
      provider: embeddings,
      cacheDir: stateFiles(dcc.stateDir).vectors,
      logger: logger.child({ dcc: dcc.name, component: "search" }),
    });
    const workers = options.parseWorkers !== undefined ? { parseWorkers: options.parseWorkers } : {};
    libraries.set(dcc.name, new RecipeLibrary({ settings: { dcc: dcc.name, ...dcc }, search, logger, ...workers }));
  }

  let done = false;
  let loading: Promise<void> | null = null;
  return {
    libraries,
    load() {
      loading ??= Promise.all([...libraries.values()].map((library) => library.load())).then(() => {
          done = true;
        });
      return loading;
    },
    loaded: () => done,
    async close() {
      await Promise.all([...libraries.values()].map(async (library) => {
        await library.stopWatching();
        await library.close();
        await library.search.close();
      }));
      await embeddings?.close();
    },
  };
}
