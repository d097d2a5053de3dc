/**
 * Composition root: config → one recipe library (catalog + search + private
 * store) per DCC → tool registry → one MCP endpoint per DCC path → HTTP.
 * `createRecipeServer` is also the library entry for embedding the daemon.
 */
import path from "node:path";
import pino, { type Logger } from "pino";
import { isLoopbackHost, type Config } from "./config.js";
import { countDiagnostics } from "./recipes/catalog.js";
import { RecipeLibrary } from "./recipes/library.js";
import { createEmbeddingProvider } from "./recipes/search/embeddings/factory.js";
import { createSearchEngine } from "./recipes/search/engine.js";
import { buildHttpApp, type HttpApp, type McpEndpoint } from "./server/http/app.js";
import { attachCatalogResources, notifyResourceListChanged } from "./server/mcp/catalog-resources.js";
import { createMcpServer } from "./server/mcp/create-server.js";
import { createServerMetrics, type ServerMetrics } from "./server/metrics.js";
import type { RecipeToolContext } from "./server/tools/context.js";
import { recipeToolDefinitions } from "./server/tools/index.js";
import { createToolRegistry } from "./server/tools/registry.js";
import { packageVersion } from "./version.js";

export interface RecipeServerOptions {
  /** Defaults to a pino logger on stdout at config.logLevel. */
  readonly logger?: Logger;
}

export interface RecipeServer {
  readonly config: Config;
  readonly libraries: ReadonlyMap<string, RecipeLibrary>;
  readonly http: HttpApp;
  readonly logger: Logger;
  /** This server's Prometheus registry (also served at GET /metrics). */
  readonly metrics: ServerMetrics;
  /** Listen, then load every catalog in the background; resolves once listening. */
  start(): Promise<{ port: number; url: string }>;
  /** Resolves once every catalog has loaded. */
  ready(): Promise<void>;
  stop(): Promise<void>;
}

const INSTRUCTIONS =
  "Recipes are reusable, validated DCC playbooks. Search with recipes__search (or the grouped `recipe` tool), " +
  "read one with recipes__get, check inputs with recipes__validate, then recipes__apply returns the steps to execute " +
  "and the output_contract to check the observed result against.";

export function createRecipeServer(config: Config, options: RecipeServerOptions = {}): RecipeServer {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const version = packageVersion();
  const libraries = new Map<string, RecipeLibrary>();
  // One model for every DCC: it is the heavy part (~200 MB for the local one).
  const embeddings = createEmbeddingProvider(config.embeddings.kind, {
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
  for (const dcc of config.dccs) {
    const search = createSearchEngine({
      provider: embeddings,
      cacheDir: path.join(dcc.stateDir, "vectors"),
      logger: logger.child({ dcc: dcc.name, component: "search" }),
    });
    libraries.set(dcc.name, new RecipeLibrary({ settings: { dcc: dcc.name, ...dcc }, search, logger }));
  }
  const registry = createToolRegistry<RecipeToolContext>(recipeToolDefinitions(), (tool, error) =>
    logger.error({ tool, err: error }, "tool handler failed"),
    (context) => context.library.current()?.revision,
  );

  const metrics = createServerMetrics({
    catalogs: () =>
      [...libraries.values()].map((library) => {
        const summary = catalogSummary(library);
        let privateRecipes = 0;
        for (const recipe of library.current()?.recipes.values() ?? []) if (recipe.visibility === "private") privateRecipes += 1;
        return { ...summary, privateRecipes, lexical: summary.search.lexical, semantic: summary.search.semantic };
      }),
  });
  for (const library of libraries.values()) {
    library.onChange((_snapshot, previous) => {
      if (previous !== null) metrics.countReload(library.dcc);
    });
  }

  const endpoints: McpEndpoint[] = [];
  const first = config.dccs[0]?.name;
  for (const [dcc, library] of libraries) {
    const createServer = () =>
      attachCatalogResources(createMcpServer<RecipeToolContext>({
        name: `recipe-server-${dcc}`,
        version,
        instructions: INSTRUCTIONS,
        registry,
        contextFor: () => ({ library, logger }),
        logger,
        maxArgumentBytes: config.limits.maxToolArgumentBytes,
        timeoutMs: config.limits.requestTimeoutMs,
        onToolCall: (event) => metrics.observeToolCall(event),
      }), library);
    if (dcc === first) endpoints.push({ path: "/mcp", createServer });
    endpoints.push({ path: `/mcp/${dcc}`, createServer });
  }

  let loaded = false;
  const http = buildHttpApp({
    endpoints,
    guard: {
      bindHost: config.host,
      bindIsLoopback: isLoopbackHost(config.host),
      allowedOrigins: config.allowedOrigins,
      token: config.token,
    },
    stateless: config.stateless,
    limits: config.limits,
    logger,
    metrics,
    onRequestDone: (event) => metrics.observeRequest(event),
    onSessionCount: (count) => metrics.setSessions(count),
    readiness: () => ({
      ready: loaded,
      body: {
        version,
        dccs: [...libraries.values()].map(catalogSummary),
      },
    }),
  });

  // Hot reload: a visible catalog change is announced to the live sessions of that DCC's endpoints.
  for (const [dcc, library] of libraries) {
    const paths = dcc === first ? ["/mcp", `/mcp/${dcc}`] : [`/mcp/${dcc}`];
    library.onChange((_snapshot, previous, change) => {
      if (previous !== null && change.visible && http.sessions !== null) {
        notifyResourceListChanged(paths.flatMap((p) => http.sessions!.serversOn(p)));
      }
    });
  }

  let loading: Promise<void> | null = null;
  const load = (): Promise<void> => {
    loading ??= Promise.all([...libraries.values()].map((library) => library.load())).then(() => {
      loaded = true;
    });
    return loading;
  };

  return {
    config,
    libraries,
    http,
    logger,
    metrics,
    async start() {
      const address = await http.listen(config.port, config.host);
      logger.info({ url: `${address.url}/mcp`, dccs: config.dccs.map((d) => d.name) }, `serving MCP at ${address.url}/mcp`);
      load().catch((error: unknown) => logger.error({ err: error }, "catalog load failed"));
      if (config.watch) {
        for (const library of libraries.values()) {
          library.watch().catch((error: unknown) => logger.error({ err: error, dcc: library.dcc }, "file watcher failed to start"));
        }
      }
      return address;
    },
    ready: () => load(),
    async stop() {
      await http.close();
      await Promise.all([...libraries.values()].map(async (library) => {
        await library.stopWatching();
        await library.flush();
        await library.search.close();
      }));
      await embeddings?.close();
    },
  };
}

/** What /readyz and /metrics report of one DCC's catalog. */
function catalogSummary(library: RecipeLibrary) {
  const snapshot = library.current();
  return {
    dcc: library.dcc,
    loaded: snapshot !== null,
    revision: snapshot?.revision ?? 0,
    skills: snapshot?.skills.size ?? 0,
    recipes: snapshot?.recipes.size ?? 0,
    diagnostics: countDiagnostics(snapshot?.diagnostics ?? []),
    search: library.search.status(),
  };
}
