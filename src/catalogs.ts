/**
 * The daemon's recipe side, without its HTTP side: one recipe library
 * (catalog + search + private store) per DCC and the one embedding model
 * they share. Kept apart from app.ts so that serve.ts can start loading the
 * catalogs before it loads the server stack (fastify, the MCP SDK): that
 * stack's module loading and set-up then overlap the load's first steps.
 */
import type { Logger } from "pino";
import type { Config } from "./config.js";
import { RecipeLibrary } from "./recipes/library.js";
import { noParseWorkers, type ParseWorkerSupply } from "./recipes/parse-threads.js";
import { createEmbeddingProvider } from "./recipes/search/embeddings/factory.js";
import type { EmbeddingProvider } from "./recipes/search/embeddings/types.js";
import { createSearchEngine } from "./recipes/search/engine.js";
import { stateFiles } from "./recipes/state-files.js";

export interface RecipeCatalogs {
  readonly libraries: ReadonlyMap<string, RecipeLibrary>;
  /** Every DCC's first load; the same promise on every call. */
  load(): Promise<void>;
  /**
   * Resolves once every DCC's first load is under way (RecipeLibrary.loadUnderway):
   * its parse workers are starting, so work done from here on overlaps them.
   */
  underway(): Promise<void>;
  /** True once every DCC's first load has finished. */
  loaded(): boolean;
  /** Stops the watchers, flushes the stores, stops parse workers no load took and releases the model. */
  close(): Promise<void>;
}

export interface OpenCatalogsOptions {
  /**
   * Parse workers started ahead by the caller (see parse-threads.ts). The
   * catalogs own them: whatever no first load took is terminated once the
   * first loads are done.
   */
  readonly parseWorkers?: ParseWorkerSupply;
}

export function openCatalogs(config: Config, logger: Logger, options: OpenCatalogsOptions = {}): RecipeCatalogs {
  const parseWorkers = options.parseWorkers ?? noParseWorkers;
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
    libraries.set(dcc.name, new RecipeLibrary({ settings: { dcc: dcc.name, ...dcc }, search, logger, parseWorkers }));
  }

  // Not awaited by the load: readiness does not wait for idle workers to stop.
  // A supply is the caller's code: its failure to stop is logged, never thrown.
  const releaseParseWorkers = (): Promise<void> =>
    Promise.resolve()
      .then(() => parseWorkers.release())
      .catch((error: unknown) => logger.warn({ err: error }, "parse workers started ahead were not stopped"));

  let done = false;
  let loading: Promise<void> | null = null;
  return {
    libraries,
    load() {
      loading ??= Promise.all([...libraries.values()].map((library) => library.load()))
        .finally(() => void releaseParseWorkers())
        .then(() => {
          done = true;
        });
      return loading;
    },
    underway: async () => {
      await Promise.all([...libraries.values()].map((library) => library.loadUnderway()));
    },
    loaded: () => done,
    async close() {
      await Promise.all([...libraries.values()].map(async (library) => {
        await library.stopWatching();
        await library.close();
        await library.search.close();
      }));
      await releaseParseWorkers();
      await embeddings?.close();
    },
  };
}
