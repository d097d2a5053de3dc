/**
 * What the serve command tells a person while it starts: a banner once it
 * listens (version, endpoint URLs per DCC, skill roots in priority order,
 * private store, auth), a warning per configured root that does not exist,
 * progress while a load takes longer than a second and while the semantic
 * warm-up runs, and per-root counts when the catalog is loaded. Every figure
 * comes from the libraries' own state (loadProgress, search status), polled;
 * nothing is parsed from logs.
 *
 * Each fact once: a built-in default root that does not exist is named once
 * (not per DCC, not again in the "ready" lines). Progress is one line for all
 * DCCs: on a terminal a status line rewritten in place every second; anywhere
 * else (JSON, a pretty log redirected to a file) at most one line per 10 s.
 */
import type { Logger } from "pino";
import type { Config } from "../config/resolve.js";
import type { RecipeLibrary } from "../recipes/catalog/library.js";
import { reportRoots, rootState, type RootReport } from "./roots-report.js";
import { publicEndpoint } from "../config/dcc-endpoints.js";
import { createEtaTracker, formatDuration, type EtaTracker, type WarmupProgress } from "../recipes/search/warmup-eta.js";
import type { StatusLine } from "./status-line.js";

const TICK_MS = 1000;
/** Longest a load runs before progress is shown. */
const QUIET_LOAD_MS = 1000;
/** Least time between two progress lines where lines cannot be rewritten. */
const LINE_INTERVAL_MS = 10_000;

interface StartupReportInput {
  readonly config: Config;
  readonly version: string;
  readonly url: string;
  readonly libraries: ReadonlyMap<string, RecipeLibrary>;
  readonly logger: Logger;
  /** Every DCC's first load. */
  readonly loaded: Promise<void>;
  /** A terminal's status line: progress rewrites it instead of logging lines. */
  readonly statusLine?: StatusLine | null;
  /** Node's version, for the banner; default process.versions.node. */
  readonly nodeVersion?: string;
  /** Clock in ms; default performance.now(), whose zero is the process's start. */
  readonly now?: () => number;
}

interface StartupReport {
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

/** A root the banner lists under its DCC: not a built-in default that does not exist (those are named once, at the end). */
function listedUnderDcc(root: string, builtIn: ReadonlySet<string>): boolean {
  return !builtIn.has(root) || rootState(root) === "found";
}

function bannerLines(config: Config, version: string, nodeVersion: string, url: string): string[] {
  const lines = [`recipe-server ${version} on Node ${nodeVersion}`];
  for (const e of endpointsOf(config, url)) lines.push(`  ${e.dcc}: MCP ${e.mcp.join(" and ")}   catalog page ${e.ui}`);
  const absentDefaults = new Set<string>();
  for (const dcc of config.dccs) {
    const builtIn = new Set(dcc.builtInRoots);
    lines.push(`  ${dcc.name} skill roots, searched in this order:`);
    const listed = dcc.skillRoots.filter((root) => listedUnderDcc(root, builtIn));
    if (listed.length === 0) lines.push("    (none)");
    listed.forEach((root, i) => lines.push(`    ${i + 1}. ${root}  [${rootState(root)}${builtIn.has(root) ? ", built-in default" : ""}]`));
    for (const root of dcc.skillRoots) if (!listedUnderDcc(root, builtIn)) absentDefaults.add(root);
    lines.push(`    private playbooks: ${dcc.privateDir}`);
  }
  if (absentDefaults.size > 0) {
    lines.push("  built-in default roots, searched once they exist:");
    for (const root of absentDefaults) lines.push(`    ${root}`);
  }
  // One line, and only when a DCC can run: without --dcc-endpoint nothing changes.
  if (config.dccEndpoints.length > 0) {
    const runs = config.dccEndpoints.map((e) => `${e.dcc} on ${e.url}`);
    const not = config.dccs.filter((d) => !config.dccEndpoints.some((e) => e.dcc === d.name)).map((d) => d.name);
    lines.push(`  runs recipes (recipes__run): ${runs.join(", ")}${not.length > 0 ? `; not ${not.join(", ")} (no --dcc-endpoint)` : ""}`);
  }
  lines.push(`  auth: ${authMode(config)}`);
  if (config.configFile !== null) lines.push(`  config file: ${config.configFile}`);
  return lines;
}

/** The "ready" line's per-root counts: the roots that exist (the banner named the others). */
function readyLines(roots: readonly RootReport[]): string[] {
  return roots.filter((r) => r.state === "found").map((r) => `    ${r.index + 1}. ${r.path}  ${r.skills ?? 0} skills, ${r.recipes ?? 0} recipes`);
}

interface Progress {
  readonly text: string;
  readonly data: Record<string, unknown>;
}

export function startStartupReport(input: StartupReportInput): StartupReport {
  const { config, logger, libraries } = input;
  const now = input.now ?? (() => performance.now());
  const statusLine = input.statusLine ?? null;
  const nodeVersion = input.nodeVersion ?? process.versions.node;
  logger.info(
    {
      banner: {
        version: input.version,
        node: nodeVersion,
        endpoints: endpointsOf(config, input.url),
        dccs: config.dccs.map((d) => ({ dcc: d.name, roots: reportRoots(d.skillRoots, null).map(({ path, state }) => ({ path, state })), privateDir: d.privateDir })),
        auth: authMode(config),
        // Header names only: their values (a token) never reach a log.
        dccEndpoints: config.dccEndpoints.map(publicEndpoint),
        configFile: config.configFile,
      },
    },
    bannerLines(config, input.version, nodeVersion, input.url).join("\n"),
  );
  const warned = new Set<string>();
  for (const dcc of config.dccs) {
    const builtIn = new Set(dcc.builtInRoots);
    for (const root of dcc.skillRoots) {
      const state = rootState(root);
      if (state !== "found" && !builtIn.has(root) && !warned.has(root)) {
        warned.add(root);
        logger.warn({ dcc: dcc.name, root, state }, `skill root ${root} ${state === "missing" ? "does not exist" : "is not a directory"}: no skills come from it`);
      }
    }
  }

  let firstLoadDone = false;
  const trackers = new Map<string, EtaTracker>();
  const current = (): Progress | null => {
    if (!firstLoadDone && now() >= QUIET_LOAD_MS) {
      const loading = [...libraries].map(([dcc, library]) => ({ dcc, ...library.loadProgress() })).filter((l) => l.loading);
      if (loading.length > 0) {
        return {
          text: `loading: ${loading.map((l) => `${l.dcc} ${l.skills} skills, ${l.recipes} recipes`).join("; ")} so far`,
          data: { phase: "load", dccs: loading.map(({ dcc, skills, recipes }) => ({ dcc, skills, recipes })) },
        };
      }
    }
    const warming: Array<WarmupProgress & { dcc: string }> = [];
    for (const [dcc, library] of libraries) {
      let tracker = trackers.get(dcc);
      if (tracker === undefined) trackers.set(dcc, (tracker = createEtaTracker(now)));
      const warm = tracker.observe(library.search.status());
      if (warm !== null && warm.embedded < warm.total) warming.push({ dcc, ...warm });
    }
    if (warming.length === 0) return null;
    // All DCCs warm up together: the last to finish says when it is over.
    const etaSeconds = warming.some((w) => w.etaSeconds === null) ? null : Math.max(...warming.map((w) => w.etaSeconds!));
    const eta = etaSeconds === null ? "ETA measuring" : `ETA ${formatDuration(etaSeconds)}`;
    return {
      text: `semantic warm-up: ${warming.map((w) => `${w.dcc} ${w.embedded}/${w.total}`).join(", ")} recipes embedded, ${eta}`,
      data: { phase: "semantic", etaSeconds, dccs: warming },
    };
  };

  let lastLineAt: number | null = null;
  const tick = (): void => {
    const progress = current();
    if (statusLine !== null) {
      if (progress === null) statusLine.clear();
      else statusLine.show(progress.text);
      return;
    }
    if (progress === null) return;
    const t = now();
    if (lastLineAt !== null && t - lastLineAt < LINE_INTERVAL_MS) return;
    lastLineAt = t;
    logger.info({ progress: progress.data }, progress.text);
  };
  const timer = setInterval(tick, TICK_MS);
  timer.unref();

  input.loaded.then(
    () => {
      firstLoadDone = true;
      for (const dcc of config.dccs) {
        const snapshot = libraries.get(dcc.name)?.current() ?? null;
        const roots = reportRoots(dcc.skillRoots, snapshot);
        const skills = snapshot?.skills.size ?? 0;
        const recipes = snapshot?.recipes.size ?? 0;
        const diagnostics = snapshot?.diagnostics.length ?? 0;
        logger.info(
          { summary: { dcc: dcc.name, skills, recipes, diagnostics, roots } },
          [`${dcc.name} ready: ${skills} skills, ${recipes} recipes, ${diagnostics} diagnostics (recipe-server paths --dcc ${dcc.name} lists them)`, ...readyLines(roots)].join("\n"),
        );
      }
    },
    () => undefined,
  );
  return {
    stop: () => {
      clearInterval(timer);
      statusLine?.clear();
    },
  };
}
