/**
 * What the serve command tells a person while it starts: a banner once it
 * listens (version, endpoint URLs per DCC, skill roots in priority order,
 * private store, auth), a warning per configured root that does not exist,
 * progress while a load takes longer than a second and while the semantic
 * warm-up runs (at most one line per DCC per second), and per-root counts
 * when the catalog is loaded. Every figure comes from the libraries' own
 * state (loadProgress, search status), polled; nothing is parsed from logs.
 */
import type { Logger } from "pino";
import type { Config } from "../config/resolve.js";
import type { RecipeLibrary } from "../recipes/catalog/library.js";
import { reportRoots, rootState } from "./roots-report.js";
import { publicEndpoint } from "../config/dcc-endpoints.js";
import { createEtaTracker, formatDuration, type EtaTracker } from "../recipes/search/warmup-eta.js";

const TICK_MS = 1000;

export interface StartupReportInput {
  readonly config: Config;
  readonly version: string;
  readonly url: string;
  readonly libraries: ReadonlyMap<string, RecipeLibrary>;
  readonly logger: Logger;
  /** Every DCC's first load. */
  readonly loaded: Promise<void>;
  /** Clock in ms; default performance.now(), whose zero is the process's start. */
  readonly now?: () => number;
}

export interface StartupReport {
  stop(): void;
}

function authMode(config: Pick<Config, "token" | "insecureNoAuth">): string {
  if (config.token !== null) return "bearer token (--token)";
  return config.insecureNoAuth ? "none (--insecure-no-auth: reachable without a token)" : "none (loopback only)";
}

/** Endpoint URLs per DCC: the first DCC also answers at /mcp. */
function endpointsOf(config: Pick<Config, "dccs">, url: string): { dcc: string; mcp: string[]; ui: string }[] {
  return config.dccs.map((dcc, i) => ({
    dcc: dcc.name,
    mcp: [...(i === 0 ? [`${url}/mcp`] : []), `${url}/mcp/${dcc.name}`],
    ui: `${url}/ui/${dcc.name}`,
  }));
}

function bannerLines(config: Config, version: string, url: string): string[] {
  const lines = [`recipe-server ${version}`];
  for (const e of endpointsOf(config, url)) lines.push(`  ${e.dcc}: MCP ${e.mcp.join(" and ")}   catalog page ${e.ui}`);
  for (const dcc of config.dccs) {
    lines.push(`  ${dcc.name} skill roots, searched in this order:`);
    if (dcc.skillRoots.length === 0) lines.push("    (none)");
    const builtIn = new Set(dcc.builtInRoots);
    dcc.skillRoots.forEach((root, i) => lines.push(`    ${i + 1}. ${root}  [${rootState(root)}${builtIn.has(root) ? ", built-in default" : ""}]`));
    lines.push(`  ${dcc.name} private playbooks: ${dcc.privateDir}`);
  }
  const runs = new Map(config.dccEndpoints.map((e) => [e.dcc, e.url]));
  for (const dcc of config.dccs) {
    const url = runs.get(dcc.name);
    lines.push(url === undefined ? `  ${dcc.name} runs recipes: no (no --dcc-endpoint)` : `  ${dcc.name} runs recipes on ${url} (recipes__run; whether it answers is logged once probed)`);
  }
  lines.push(`  auth: ${authMode(config)}`);
  if (config.configFile !== null) lines.push(`  config file: ${config.configFile}`);
  return lines;
}

export function startStartupReport(input: StartupReportInput): StartupReport {
  const { config, logger, libraries } = input;
  const now = input.now ?? (() => performance.now());
  logger.info(
    {
      banner: {
        version: input.version,
        endpoints: endpointsOf(config, input.url),
        dccs: config.dccs.map((d) => ({ dcc: d.name, roots: reportRoots(d.skillRoots, null).map(({ path, state }) => ({ path, state })), privateDir: d.privateDir })),
        auth: authMode(config),
        // Header names only: their values (a token) never reach a log.
        dccEndpoints: config.dccEndpoints.map(publicEndpoint),
        configFile: config.configFile,
      },
    },
    bannerLines(config, input.version, input.url).join("\n"),
  );
  for (const dcc of config.dccs) {
    const builtIn = new Set(dcc.builtInRoots);
    for (const root of dcc.skillRoots) {
      const state = rootState(root);
      if (state !== "found" && !builtIn.has(root)) {
        logger.warn({ dcc: dcc.name, root, state }, `skill root ${root} ${state === "missing" ? "does not exist" : "is not a directory"}: no skills come from it`);
      }
    }
  }

  let firstLoadDone = false;
  const trackers = new Map<string, EtaTracker>();
  const tick = (): void => {
    for (const [dcc, library] of libraries) {
      const load = library.loadProgress();
      if (!firstLoadDone && load.loading && now() >= TICK_MS) {
        logger.info({ progress: { dcc, phase: "load", skills: load.skills, recipes: load.recipes } }, `loading ${dcc}: ${load.skills} skills, ${load.recipes} recipes so far`);
      }
      let tracker = trackers.get(dcc);
      if (tracker === undefined) trackers.set(dcc, (tracker = createEtaTracker(now)));
      const warm = tracker.observe(library.search.status());
      if (warm !== null && warm.embedded < warm.total) {
        const eta = warm.etaSeconds === null ? "ETA measuring" : `ETA ${formatDuration(warm.etaSeconds)}`;
        logger.info({ progress: { dcc, phase: "semantic", ...warm } }, `semantic warm-up ${dcc}: ${warm.embedded}/${warm.total} recipes embedded, ${eta}`);
      }
    }
  };
  const timer = setInterval(tick, TICK_MS);
  timer.unref();

  input.loaded.then(
    () => {
      firstLoadDone = true;
      for (const dcc of config.dccs) {
        const snapshot = libraries.get(dcc.name)?.current() ?? null;
        const roots = reportRoots(dcc.skillRoots, snapshot);
        const lines = roots.map((r) => `    ${r.index + 1}. ${r.path}  [${r.state}] ${r.skills ?? 0} skills, ${r.recipes ?? 0} recipes`);
        const skills = snapshot?.skills.size ?? 0;
        const recipes = snapshot?.recipes.size ?? 0;
        const diagnostics = snapshot?.diagnostics.length ?? 0;
        logger.info(
          { summary: { dcc: dcc.name, skills, recipes, diagnostics, roots } },
          [`${dcc.name} ready: ${skills} skills, ${recipes} recipes, ${diagnostics} diagnostics (recipe-server paths --dcc ${dcc.name} lists them)`, ...lines].join("\n"),
        );
      }
    },
    () => undefined,
  );
  return {
    stop: () => clearInterval(timer),
  };
}
