/**
 * Composition root: config → one recipe library (catalog + search + private
 * store) per DCC → tool registry → one MCP endpoint per DCC path → HTTP.
 * `createRecipeServer` is also the library entry for embedding the daemon.
 */
import path from "node:path";
import pino, { type Logger } from "pino";
import { openCatalogs, recipeRegistry, recipeToolDefinitions, runnableToolDefinitions, type RecipeCatalogs } from "./catalogs.js";
import { isLoopbackHost, type Config } from "../config/resolve.js";
import { countDiagnostics } from "../recipes/catalog/catalog.js";
import type { RecipeLibrary } from "../recipes/catalog/library.js";
import { withUserPlaybooks } from "../recipes/catalog/user-libraries.js";
import { buildHttpApp, type HttpApp, type McpEndpoint } from "../server/transport/http-app.js";
import { endpointServers } from "../server/protocol/endpoint.js";
import { createServerMetrics, type ServerMetrics } from "../server/metrics.js";
import { recipeContext, type RecipeToolContext } from "../server/tools/context.js";
import { isPublicUiPath, registerCatalogUi } from "../server/ui/routes.js";
import type { ToolCallOptions } from "../server/protocol/surface.js";
import { pageToolCaller } from "./page-calls.js";
import { openUsersFile, parseUsersFile, type UsersFile, type UsersTable } from "../server/transport/users.js";
import { createEtaTracker, type EtaTracker } from "../recipes/search/warmup-eta.js";
import { packageVersion } from "../util/version.js";
import { DccRunner } from "../recipes/run/runner.js";
import { McpDccConnection } from "../recipes/run/mcp-connection.js";
import { DEFAULT_RUN_LIMITS } from "../recipes/run/types.js";

export interface RecipeServerOptions {
  /** Defaults to a pino logger on stdout at config.logLevel. */
  readonly logger?: Logger;
  /**
   * Catalogs opened (and perhaps already loading) by the caller with
   * `openCatalogs(config, logger)`; the server then owns them.
   */
  readonly catalogs?: RecipeCatalogs;
}

export interface RecipeServer {
  readonly config: Config;
  readonly libraries: ReadonlyMap<string, RecipeLibrary>;
  readonly http: HttpApp;
  readonly logger: Logger;
  /** The runner of each DCC with a `--dcc-endpoint` (recipes__run). */
  readonly runners: ReadonlyMap<string, DccRunner>;
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

const RUN_INSTRUCTIONS =
  INSTRUCTIONS +
  " This endpoint can also run a structured recipe on the DCC: recipes__run validates the inputs, resolves and preflights " +
  "each step's tool, runs the steps and checks the receipt against the output_contract (dryRun: true to preview).";

export function createRecipeServer(config: Config, options: RecipeServerOptions = {}): RecipeServer {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const version = packageVersion();
  const catalogs = options.catalogs ?? openCatalogs(config, logger);
  const libraries = catalogs.libraries;
  const registry = recipeRegistry(recipeToolDefinitions({ allowPromote: config.allowPromote }), logger);

  const metrics = createServerMetrics({
    catalogs: () =>
      [...libraries.values()].map((library) => {
        const summary = catalogSummary(library);
        let privateRecipes = 0;
        for (const recipe of library.current()?.recipes.values() ?? []) if (recipe.visibility === "private") privateRecipes += 1;
        return { ...summary, privateRecipes, lexical: summary.search.lexical, semantic: summary.search.semantic, storeReady: summary.store.ready };
      }),
  });
  // recipes__run: one runner (connection, one-at-a-time gate) per DCC with an endpoint, and a
  // registry that lists the tool; the other DCCs keep the registry without it.
  const runners = new Map<string, DccRunner>();
  for (const endpoint of config.dccEndpoints) {
    const connection = new McpDccConnection(endpoint.dcc, { url: endpoint.url, headers: endpoint.headers }, { name: "recipe-server", version });
    runners.set(endpoint.dcc, new DccRunner(connection, DEFAULT_RUN_LIMITS, (event) => metrics.observeRun(event)));
  }
  const runnableRegistry =
    runners.size === 0
      ? null
      : recipeRegistry(runnableToolDefinitions({ allowPromote: config.allowPromote }), logger);
  for (const library of libraries.values()) {
    library.onChange((_snapshot, previous) => {
      if (previous !== null) metrics.countReload(library.dcc);
    });
  }

  // /status's warm-up ETA: one tracker per DCC, sampled whenever /status is asked.
  const warmup = new Map<string, EtaTracker>([...libraries.keys()].map((dcc) => [dcc, createEtaTracker()]));
  const endpoints: McpEndpoint[] = [];
  const first = config.dccs[0]?.name;
  // The users file is read at start(); until then no user token passes.
  let usersFile: UsersFile | null = null;
  const noUsers = (parseUsersFile('{"users":[]}') as { ok: true; table: UsersTable }).table;
  // The tool path of each DCC's endpoints, shared by the catalog page's tool calls (compose/page-calls.ts).
  const toolOptions = new Map<string, ToolCallOptions<RecipeToolContext>>();
  for (const [dcc, library] of libraries) {
    const perUser = catalogs.users?.get(dcc);
    const runner = runners.get(dcc);
    const observeUse = metrics.recipeUses(dcc);
    const tools: ToolCallOptions<RecipeToolContext> = {
      registry: runner === undefined || runnableRegistry === null ? registry : runnableRegistry,
      contextFor: (call) => {
        if (call.user === null || perUser === undefined) return recipeContext(library, logger, call, undefined, runner, observeUse);
        const own = perUser.of(call.user);
        return recipeContext(library, logger, call, { user: call.user, playbooks: own.library, loaded: own.loaded }, runner, observeUse);
      },
      logger,
      timeoutMs: config.limits.requestTimeoutMs,
      onToolCall: (event) => metrics.observeToolCall(event),
    };
    // The page's calls reach no MCP edge, so they keep the edge's size check.
    toolOptions.set(dcc, { ...tools, maxArgumentBytes: config.limits.maxToolArgumentBytes });
    const servers = endpointServers<RecipeToolContext>({
      name: `recipe-server-${dcc}`,
      version,
      instructions: runner === undefined ? INSTRUCTIONS : RUN_INSTRUCTIONS,
      catalog: perUser === undefined ? library : withUserPlaybooks(library, perUser),
      maxPromptArgumentBytes: config.limits.maxToolArgumentBytes,
      tools,
    });
    if (dcc === first) endpoints.push({ path: "/mcp", ...servers });
    endpoints.push({ path: `/mcp/${dcc}`, ...servers });
  }

  const http = buildHttpApp({
    endpoints,
    guard: {
      bindHost: config.host,
      bindIsLoopback: isLoopbackHost(config.host),
      allowedOrigins: config.allowedOrigins,
      token: config.token,
      ...(config.usersFile !== null ? { users: () => usersFile?.current() ?? noUsers } : {}),
      isPublic: isPublicUiPath,
    },
    extend: (app, userOf) =>
      registerCatalogUi(
        app,
        {
          libraries,
          contextFor: (library) => ({ library, logger }),
          auth: config.usersFile !== null ? "users" : config.token !== null ? "token" : "none",
          callTool: pageToolCaller((dcc) => toolOptions.get(dcc)),
          runStatus: (dcc) => runners.get(dcc)?.status() ?? null,
          playbooks: async (dcc, user) => {
            const perUser = catalogs.users?.get(dcc);
            if (perUser === undefined) return user === null ? (libraries.get(dcc) ?? null) : null;
            if (user === null) return null;
            const own = perUser.of(user);
            await own.loaded;
            return own.library;
          },
        },
        userOf,
      ),
    stateless: config.stateless,
    limits: config.limits,
    logger,
    metrics,
    onRequestDone: (event) => metrics.observeRequest(event),
    onSessionCount: (count) => metrics.setSessions(count),
    readiness: () => ({
      ready: catalogs.loaded(),
      body: {
        version,
        dccs: [...libraries.values()].map((library) => ({
          ...withoutHostPaths(catalogSummary(library), config.dccs.find((d) => d.name === library.dcc)?.privateDir),
          progress: {
            load: library.loadProgress(),
            semantic: warmup.get(library.dcc)?.observe(library.search.status()) ?? null,
          },
          ...runSummary(runners.get(library.dcc), config.dccEndpoints.find((e) => e.dcc === library.dcc)?.url),
        })),
      },
    }),
  });

  // Hot reload: a visible catalog change is announced to the clients of that DCC's endpoints, both eras.
  for (const [dcc, library] of libraries) {
    const paths = dcc === first ? ["/mcp", `/mcp/${dcc}`] : [`/mcp/${dcc}`];
    library.onChange((_snapshot, previous, change) => {
      if (previous !== null && change.visible) http.announce(paths, { resources: true, prompts: true });
    });
    // A user's playbooks are resources of theirs alone (never prompts): only their clients are told.
    catalogs.users?.get(dcc)?.onChange((user, _snapshot, previous, change) => {
      if (previous !== null && change.visible) http.announce(paths, { resources: true, user });
    });
  }

  return {
    config,
    libraries,
    runners,
    http,
    logger,
    metrics,
    async start() {
      if (config.usersFile !== null && usersFile === null) {
        const opened = await openUsersFile(config.usersFile, { logger });
        if (!opened.ok) throw Object.assign(new Error(`--users-file ${config.usersFile}: ${opened.message}`), { code: "ERR_USERS_FILE" });
        usersFile = opened.users;
        logger.info({ users: usersFile.current().size }, "users file read");
      }
      const address = await http.listen(config.port, config.host);
      logger.info({ url: `${address.url}/mcp`, dccs: config.dccs.map((d) => d.name) }, `serving MCP at ${address.url}/mcp`);
      catalogs.load().catch((error: unknown) => logger.error({ err: error }, "catalog load failed"));
      // Whether each DCC endpoint answers, for /readyz and the log; a DCC started later is found by its first run.
      for (const runner of runners.values()) {
        void runner.probe().then((reachability) =>
          reachability === "answering"
            ? logger.info({ dcc: runner.dcc, reachability }, `${runner.dcc} endpoint answers: recipes__run can run recipes there`)
            : logger.warn({ dcc: runner.dcc, reachability }, `${runner.dcc} endpoint does not answer yet: recipes__run connects again on each run`),
        );
      }
      if (config.watch) {
        for (const library of libraries.values()) {
          library.watch(config.watchPollMs !== null ? { pollMs: config.watchPollMs } : {}).catch((error: unknown) => logger.error({ err: error, dcc: library.dcc }, "file watcher failed to start"));
        }
      }
      return address;
    },
    ready: () => catalogs.load(),
    async stop() {
      usersFile?.close();
      await http.close();
      await Promise.all([...runners.values()].map((runner) => runner.close()));
      await catalogs.close();
    },
  };
}

/** /status's word on a DCC's endpoint: whether it can run recipes and whether the endpoint answered last time. */
function runSummary(runner: DccRunner | undefined, url: string | undefined): { run: Record<string, unknown> } {
  if (runner === undefined || url === undefined) return { run: { enabled: false } };
  const status = runner.status();
  return { run: { enabled: true, endpoint: url, reachability: status.reachability, running: status.running, queued: status.queued } };
}

/**
 * A file store's location as /status shows it: under the private dir as
 * `<private-dir>/…`, elsewhere by its last segment; a postgres location is
 * already a URL without secrets. The answer leaves the host; its paths do not.
 */
function withoutHostPaths<T extends { store: { kind: string; location: string } }>(summary: T, privateDir: string | undefined): T {
  const { kind, location } = summary.store;
  if (kind !== "file" || !path.isAbsolute(location)) return summary;
  const inside = privateDir === undefined ? ".." : path.relative(privateDir, location);
  const shown = inside === "" ? "<private-dir>" : !inside.startsWith("..") && !path.isAbsolute(inside) ? `<private-dir>/${inside.split(path.sep).join("/")}` : `…/${path.basename(location)}`;
  return { ...summary, store: { ...summary.store, location: shown } };
}

/** What /status and /metrics report of one DCC's catalog. */
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
    // Where private playbooks live and whether it answers; public recipes are served either way.
    store: library.store.status(),
  };
}
