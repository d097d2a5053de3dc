/**
 * The daemon's recipe side, without its HTTP side: one recipe library
 * (catalog + search + private store) per DCC and the one embedding model
 * they share. Kept apart from app.ts so that serve.ts can start loading the
 * catalogs before it sets up the server stack (fastify, the MCP SDK).
 */
import type { Logger } from "pino";
import type { Config } from "../config/resolve.js";
import path from "node:path";
import { RecipeLibrary, stateFiles, type LibrarySettings } from "../recipes/catalog/library.js";
import { writeBudgetFor } from "../recipes/store/deadline.js";
import { NO_OWNER, UserLibraries } from "../recipes/catalog/user-libraries.js";
import { createLocalProvider } from "../recipes/search/embeddings/local.js";
import { createOpenAIProvider, type OpenAIProviderOptions } from "../recipes/search/embeddings/openai.js";
import type { EmbeddingProvider } from "../recipes/search/types.js";
import { createSearchEngine } from "../recipes/search/engine.js";
import { PgConnections } from "../recipes/store/pg/pg-connections.js";
import type { DccConfig, EmbeddingsKind } from "../config/types.js";
import { answerRevision, type RecipeToolContext } from "../server/tools/context.js";
import type { ToolDefinition } from "../server/tools/define.js";
import { createToolRegistry, type ToolRegistry } from "../server/tools/registry.js";
import { recipesApply } from "../server/tools/recipes-apply.js";
import { recipesGet } from "../server/tools/recipes-get.js";
import { createRecipesList } from "../server/tools/recipes-list.js";
import { recipesSearch } from "../server/tools/recipes-search.js";
import { recipesValidate } from "../server/tools/recipes-validate.js";
import { createRecipeTool, type RecipeToolOptions } from "../server/tools/recipe.js";
import { recipesRun } from "../server/tools/recipes-run.js";

interface EmbeddingProviderOptions {
  /** Required for kind "openai" (config resolves url, model and key). */
  readonly openai?: OpenAIProviderOptions;
}

/**
 * The provider for `--embeddings`. `none` is null: the engine then runs
 * lexical only. The caller owns the provider and closes it on shutdown.
 */
export function createEmbeddingProvider(kind: EmbeddingsKind, options: EmbeddingProviderOptions = {}): EmbeddingProvider | null {
  switch (kind) {
    case "none":
      return null;
    case "local":
      return createLocalProvider();
    case "openai":
      if (!options.openai) throw new Error("createEmbeddingProvider: kind openai needs options.openai (url, model)");
      return createOpenAIProvider(options.openai);
  }
}

/**
 * The one way a recipe library is made (the daemon's DCCs, each user's
 * playbooks, registerRecipesTools): its settings, and a search engine over
 * the shared embedding model with its vector cache in `vectorDir` (none:
 * memory only).
 */
export function openLibrary(options: {
  readonly settings: LibrarySettings;
  readonly embeddings: EmbeddingProvider | null;
  readonly vectorDir?: string;
  readonly logger: Logger;
  /** The search engine's logger (default `logger`). */
  readonly searchLogger?: Logger;
  /** Parse worker threads per large load; default parseWorkerCount(), 0 = the calling thread only. */
  readonly parseWorkers?: number;
}): RecipeLibrary {
  return new RecipeLibrary({
    settings: options.settings,
    search: searchFor(options.embeddings, options.vectorDir, options.searchLogger ?? options.logger),
    logger: options.logger,
    ...(options.parseWorkers !== undefined ? { parseWorkers: options.parseWorkers } : {}),
  });
}

function searchFor(embeddings: EmbeddingProvider | null, vectorDir: string | undefined, logger: Logger) {
  return createSearchEngine({ provider: embeddings, ...(vectorDir !== undefined ? { cacheDir: vectorDir } : {}), logger });
}

/** The five dcc-mcp-core compatible tools (what `registerRecipesTools` adds). */
export function coreRecipeToolDefinitions(): ToolDefinition<RecipeToolContext>[] {
  return [createRecipesList(), recipesSearch, recipesGet, recipesValidate, recipesApply];
}

/** Every tool the daemon serves, in the order tools/list shows them. */
export function recipeToolDefinitions(options: RecipeToolOptions = {}): ToolDefinition<RecipeToolContext>[] {
  return [...coreRecipeToolDefinitions(), createRecipeTool(options)];
}

/** The tools of a DCC that can run recipes (a `--dcc-endpoint`): recipes__run beside the rest. */
export function runnableToolDefinitions(options: RecipeToolOptions = {}): ToolDefinition<RecipeToolContext>[] {
  return [...coreRecipeToolDefinitions(), recipesRun, createRecipeTool(options)];
}

/** The one way the tool registry is made: handler bugs logged, every answer stamped with the revision of the snapshot it came from. */
export function recipeRegistry(definitions: readonly ToolDefinition<RecipeToolContext>[], logger: Logger): ToolRegistry<RecipeToolContext> {
  return createToolRegistry<RecipeToolContext>(
    definitions,
    (tool, error) => logger.error({ tool, err: error }, "tool handler failed"),
    answerRevision,
  );
}

/** A DCC's configuration as a library's settings: the fields a library takes, named one by one. */
function librarySettings(dcc: DccConfig, pgConnections: PgConnections | undefined, writes: { writeTimeoutMs: number; historyLimit: number }): LibrarySettings {
  return {
    dcc: dcc.name,
    skillRoots: dcc.skillRoots,
    privateDir: dcc.privateDir,
    stateDir: dcc.stateDir,
    storeUrl: dcc.storeUrl,
    writeTimeoutMs: writes.writeTimeoutMs,
    historyLimit: writes.historyLimit,
    ...(pgConnections !== undefined ? { pgConnections } : {}),
  };
}

export interface RecipeCatalogs {
  readonly libraries: ReadonlyMap<string, RecipeLibrary>;
  /** With a users file: each DCC's per-user playbook libraries (the DCC library then holds public recipes only). */
  readonly users: ReadonlyMap<string, UserLibraries> | null;
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
  const users = config.usersFile === null ? null : new Map<string, UserLibraries>();
  // With users, every user's store (and each DCC's) shares one connection per URL, so the
  // database sees replicas × URLs connections, not replicas × users. Single-user: as before.
  const pgConnections = users === null ? undefined : new PgConnections(logger.child({ component: "store" }));
  for (const dcc of config.dccs) {
    const settings = librarySettings(dcc, pgConnections, { writeTimeoutMs: writeBudgetFor(config.limits.requestTimeoutMs), historyLimit: config.limits.historyLimit });
    // With users, playbooks belong to users: the DCC library's own store is an owner nobody can be.
    const shared = users === null ? settings : { ...settings, privateDir: path.join(dcc.privateDir, NO_OWNER), owner: NO_OWNER };
    libraries.set(
      dcc.name,
      openLibrary({
        settings: shared,
        embeddings,
        vectorDir: stateFiles(dcc.stateDir).vectors,
        logger,
        searchLogger: logger.child({ dcc: dcc.name, component: "search" }),
        ...(options.parseWorkers !== undefined ? { parseWorkers: options.parseWorkers } : {}),
      }),
    );
    users?.set(
      dcc.name,
      new UserLibraries({
        settings,
        logger: logger.child({ dcc: dcc.name }),
        watch: config.watch ? (config.watchPollMs !== null ? { pollMs: config.watchPollMs } : {}) : null,
        createSearch: (stateDir, user) => searchFor(embeddings, stateFiles(stateDir).vectors, logger.child({ dcc: dcc.name, user, component: "search" })),
      }),
    );
  }

  let done = false;
  let loading: Promise<void> | null = null;
  return {
    libraries,
    users,
    load() {
      loading ??= Promise.all([...libraries.values()].map((library) => library.load())).then(() => {
          done = true;
        });
      return loading;
    },
    loaded: () => done,
    async close() {
      await Promise.all([
        ...[...libraries.values()].map(async (library) => {
          await library.stopWatching();
          await library.close();
          await library.search.close();
        }),
        ...[...(users?.values() ?? [])].map((perUser) => perUser.close()),
      ]);
      await embeddings?.close();
    },
  };
}
