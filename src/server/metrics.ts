/**
 * Prometheus metrics for one server instance (`GET /metrics`). Each server
 * owns its Registry: two servers in one process (tests, embedding) must not
 * share or collide on prom-client's global default registry. Catalog and
 * search figures are read at scrape time from a callback, so nothing has to
 * push them on every change.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from "prom-client";
import { packageVersion } from "../util/version.js";
import { COUNTER_INDEX, USAGE_COUNTERS, type UsageCounter } from "../recipes/store/usage-counts.js";

/** One DCC's catalog as the metrics see it, read at scrape time. */
export interface CatalogFigures {
  readonly dcc: string;
  readonly loaded: boolean;
  readonly revision: number;
  readonly skills: number;
  readonly recipes: number;
  readonly privateRecipes: number;
  readonly diagnostics: { readonly errors: number; readonly warnings: number };
  /** Lexical index state ("empty" | "ready"). */
  readonly lexical: string;
  /** Semantic index state ("off" | "warming" | "ready" | "failed"). */
  readonly semantic: string;
  /** The private playbook store answers (always true for the file store). */
  readonly storeReady?: boolean;
}

interface ServerMetricsOptions {
  readonly catalogs: () => readonly CatalogFigures[];
  /** Process metrics (RSS, heap, event-loop lag, GC): on by default. */
  readonly processMetrics?: boolean;
}

interface RequestEvent {
  readonly route: string;
  readonly method: string;
  readonly status: number;
  readonly ms: number;
}

interface ToolCallEvent {
  readonly tool: string;
  readonly ms: number;
  readonly success: boolean;
  readonly error?: string;
}

/** A finished recipes__run (outcome and step timings; never arguments or results). */
interface RunMetricsEvent {
  readonly dcc: string;
  readonly status: string;
  readonly error?: string;
  readonly steps: readonly { readonly status: string; readonly ms: number }[];
}

export interface ServerMetrics {
  readonly registry: Registry;
  readonly contentType: string;
  observeRequest(event: RequestEvent): void;
  observeToolCall(event: ToolCallEvent): void;
  setSessions(count: number): void;
  countReload(dcc: string): void;
  observeRun(event: RunMetricsEvent): void;
  /** A DCC's recorder of recipe uses (tools/context.ts recordUse); bind once per DCC, call per use. */
  recipeUses(dcc: string): (recipeId: string, counter: UsageCounter) => void;
  render(): Promise<string>;
}

/**
 * Recipes of a DCC that get their own `recipe` label in
 * recipe_server_recipe_uses_total: the first this many used since start.
 * Uses of any other public recipe are counted under `recipe="_other"`, of
 * private playbooks (users' own text) always under `recipe="_private"`.
 */
export const RECIPE_LABEL_CAP = 100;

/** A usage counter as the metrics' tool and outcome labels. */
const USE_LABELS: Readonly<Record<UsageCounter, readonly [tool: string, outcome: string]>> = {
  get: ["get", "ok"],
  apply: ["apply", "ok"],
  validate_pass: ["validate", "pass"],
  validate_fail: ["validate", "fail"],
  run_succeeded: ["run", "succeeded"],
  run_failed: ["run", "failed"],
  run_dry_run: ["run", "dry_run"],
  run_recovered: ["run", "recovered"],
  run_cancelled: ["run", "cancelled"],
};

const PREFIX = "recipe_server_";
/** Seconds; tool calls and requests are mostly sub-millisecond to tens of ms. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const SEMANTIC_STATES = ["off", "warming", "ready", "failed"] as const;

/** Routes are labels; anything not a registered route collapses to one value to bound cardinality. */
function routeLabel(route: string): string {
  return route === "" || route === "unknown" ? "unmatched" : route;
}

export function createServerMetrics(options: ServerMetricsOptions): ServerMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });

  const requests = new LabelledCounter(registry, `${PREFIX}http_requests_total`, "HTTP requests answered, by route, method and status", ["route", "method", "status"]);
  const requestSeconds = new LabelledHistogram(
    registry,
    `${PREFIX}http_request_duration_seconds`,
    "HTTP request duration (GET streams: how long the stream stayed open)",
    ["route", "method"],
  );
  const toolCalls = new LabelledCounter(
    registry,
    `${PREFIX}tool_calls_total`,
    "Tool calls by tool and outcome (success | error | timeout) and tool error code",
    ["tool", "outcome", "error"],
  );
  const toolSeconds = new LabelledHistogram(registry, `${PREFIX}tool_call_duration_seconds`, "Tool call duration by tool", ["tool"]);
  const sessions = new Gauge({ name: `${PREFIX}sessions`, help: "Live MCP sessions", registers: [registry] });
  // Always 1; the labels say what is running (a dashboard joins on them, an alert spots a mixed rollout).
  new Gauge({ name: `${PREFIX}build_info`, help: "The running build: package version and Node version", labelNames: ["version", "node"] as const, registers: [registry] })
    .set({ version: packageVersion(), node: process.versions.node }, 1);
  const reloads = new Counter({
    name: `${PREFIX}catalog_reloads_total`,
    help: "Catalog snapshots published after the first load (hot reloads and playbook writes)",
    labelNames: ["dcc"] as const,
    registers: [registry],
  });

  const runs = new LabelledCounter(
    registry,
    `${PREFIX}recipe_runs_total`,
    "recipes__run runs by DCC, status (succeeded | failed | dry_run | recovered | cancelled) and error code",
    ["dcc", "status", "error"],
  );
  // Labelled by DCC and step status, not by tool: the DCC names its tools, and labels must stay bounded.
  const stepSeconds = new LabelledHistogram(
    registry,
    `${PREFIX}recipe_run_step_duration_seconds`,
    "Duration of one recipe step on the DCC (undo steps included), by DCC and step status",
    ["dcc", "status"],
  );

  const recipeCalls = new LabelledCounter(
    registry,
    `${PREFIX}recipe_calls_total`,
    "Recipe uses by DCC, tool (get | apply | validate | run) and outcome (ok; pass | fail; the run's status)",
    ["dcc", "tool", "outcome"],
  );
  const recipeUses = new LabelledCounter(
    registry,
    `${PREFIX}recipe_uses_total`,
    `Recipe uses per recipe, for the first ${RECIPE_LABEL_CAP} recipes used per DCC since start; the rest under recipe="_other", private playbooks under recipe="_private"`,
    ["dcc", "recipe", "tool", "outcome"],
  );

  // Scrape-time gauges: each collect() rebuilds its values from the live catalogs.
  const catalogGauge = (name: string, help: string, labelNames: readonly string[], fill: (gauge: Gauge, figures: readonly CatalogFigures[]) => void): void => {
    const gauge: Gauge = new Gauge({
      name: `${PREFIX}${name}`,
      help,
      labelNames,
      registers: [registry],
      collect() {
        gauge.reset();
        fill(gauge, options.catalogs());
      },
    });
  };
  const perDcc: ReadonlyArray<[name: string, help: string, value: (c: CatalogFigures) => number]> = [
    ["catalog_ready", "1 once the DCC's catalog has loaded", (c) => (c.loaded ? 1 : 0)],
    ["store_ready", "1 while the DCC's private playbook store answers", (c) => (c.storeReady === false ? 0 : 1)],
    ["catalog_revision", "Revision of the DCC's current catalog snapshot", (c) => c.revision],
    ["catalog_skills", "Skills in the DCC's catalog", (c) => c.skills],
  ];
  for (const [name, help, value] of perDcc) {
    catalogGauge(name, help, ["dcc"], (gauge, all) => {
      for (const c of all) gauge.set({ dcc: c.dcc }, value(c));
    });
  }
  catalogGauge("catalog_recipes", "Recipes in the DCC's catalog, by visibility", ["dcc", "visibility"], (gauge, all) => {
    for (const c of all) {
      gauge.set({ dcc: c.dcc, visibility: "public" }, c.recipes - c.privateRecipes);
      gauge.set({ dcc: c.dcc, visibility: "private" }, c.privateRecipes);
    }
  });
  catalogGauge("catalog_diagnostics", "Diagnostics in the DCC's catalog, by severity", ["dcc", "severity"], (gauge, all) => {
    for (const c of all) {
      gauge.set({ dcc: c.dcc, severity: "error" }, c.diagnostics.errors);
      gauge.set({ dcc: c.dcc, severity: "warning" }, c.diagnostics.warnings);
    }
  });
  catalogGauge(
    "search_mode",
    "1 for the search engine's current state: lexical (empty|ready) and semantic (off|warming|ready|failed)",
    ["dcc", "index", "state"],
    (gauge, all) => {
      for (const c of all) {
        for (const state of ["empty", "ready"]) gauge.set({ dcc: c.dcc, index: "lexical", state }, c.lexical === state ? 1 : 0);
        for (const state of SEMANTIC_STATES) gauge.set({ dcc: c.dcc, index: "semantic", state }, c.semantic === state ? 1 : 0);
      }
    },
  );

  /** A request's two series, bound once per route, method and status (all bounded sets). */
  const requestSeries = new Map<string, { readonly count: CounterChild; readonly seconds: HistogramChild }>();
  /** A tool call's two series, bound once per tool, outcome and error code. */
  const toolSeries = new Map<string, { readonly count: CounterChild; readonly seconds: HistogramChild }>();

  return {
    registry,
    contentType: registry.contentType,
    observeRequest(event) {
      const key = `${event.route} ${event.method} ${event.status}`;
      let series = requestSeries.get(key);
      if (series === undefined) {
        const route = routeLabel(event.route);
        series = { count: requests.child([route, event.method, String(event.status)]), seconds: requestSeconds.child([route, event.method]) };
        requestSeries.set(key, series);
      }
      series.count.inc();
      series.seconds.observe(event.ms / 1000);
    },
    observeToolCall(event) {
      const outcome = event.success ? "success" : event.error === "timeout" ? "timeout" : "error";
      const error = event.error ?? "";
      const key = `${event.tool} ${outcome} ${error}`;
      let series = toolSeries.get(key);
      if (series === undefined) {
        series = { count: toolCalls.child([event.tool, outcome, error]), seconds: toolSeconds.child([event.tool]) };
        toolSeries.set(key, series);
      }
      series.count.inc();
      series.seconds.observe(event.ms / 1000);
    },
    setSessions(count) {
      sessions.set(count);
    },
    countReload(dcc) {
      reloads.inc({ dcc });
    },
    observeRun(event) {
      // Runs are seconds apart: a child per run costs nothing worth caching.
      runs.child([event.dcc, event.status, event.error ?? ""]).inc();
      for (const step of event.steps) stepSeconds.child([event.dcc, step.status]).observe(step.ms / 1000);
    },
    recipeUses(dcc) {
      const byCounter = USAGE_COUNTERS.map((counter) => recipeCalls.child([dcc, ...USE_LABELS[counter]]));
      /** A recipe label's series, each bound on the first use of its counter. */
      const seriesOf = (label: string) => {
        const bound = new Array<CounterChild | undefined>(USAGE_COUNTERS.length);
        return (i: number) => (bound[i] ??= recipeUses.child([dcc, label, ...USE_LABELS[USAGE_COUNTERS[i]!]])).inc();
      };
      const labelled = new Map<string, (i: number) => void>();
      const other = seriesOf("_other");
      const privately = seriesOf("_private");
      return (recipeId, counter) => {
        const i = COUNTER_INDEX[counter];
        byCounter[i]!.inc();
        let count = labelled.get(recipeId);
        if (count === undefined) {
          if (recipeId.startsWith("private/")) count = privately;
          else if (labelled.size < RECIPE_LABEL_CAP) labelled.set(recipeId, (count = seriesOf(recipeId)));
          else count = other;
        }
        count(i);
      };
    },
    render: () => registry.metrics(),
  };
}

/*
 * The per-call series. prom-client's Counter and Histogram hash a label
 * object on every inc/observe, bound children included, and its histogram
 * finds a bucket by a float-keyed property; these run on every request and
 * every tool call. Here a child is bound once per label set and adds to
 * plain numbers; the registry reads them at scrape time, in prom-client's
 * text format (same names, labels, `le` buckets, _sum and _count).
 */

type Labels = Record<string, string | number>;

/**
 * What prom-client's Registry reads of a metric (registry.js: name, help,
 * type, get(), reset()); prom-client's Metric type also asks for
 * MetricObject members the registry never reads, hence the casts where
 * these register.
 */
interface Scraped {
  readonly name: string;
  readonly help: string;
  readonly type: "counter" | "histogram";
  readonly aggregator: "sum";
  readonly values: ReadonlyArray<{ readonly metricName?: string; readonly labels: Labels; readonly value: number }>;
}

interface CounterChild {
  inc(): void;
}

interface HistogramChild {
  observe(seconds: number): void;
}

function labelsOf(names: readonly string[], values: readonly string[]): Labels {
  const labels: Labels = {};
  names.forEach((name, i) => (labels[name] = values[i]!));
  return labels;
}

/** A metric whose label sets are bound once (`series`) to a plain-number record of type S. */
abstract class LabelledMetric<S extends { readonly labels: Labels }> {
  abstract readonly type: Scraped["type"];
  readonly aggregator = "sum" as const;
  protected readonly series = new Map<string, S>();

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  protected bind(values: readonly string[], make: (labels: Labels) => S): S {
    const key = JSON.stringify(values);
    let series = this.series.get(key);
    if (series === undefined) {
      series = make(labelsOf(this.labelNames, values));
      this.series.set(key, series);
    }
    return series;
  }

  protected scraped(values: Scraped["values"]): Promise<Scraped> {
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}

/** A counter counted in plain numbers. */
class LabelledCounter extends LabelledMetric<{ readonly labels: Labels; value: number }> {
  readonly type = "counter" as const;

  child(values: readonly string[]): CounterChild {
    const bound = this.bind(values, (labels) => ({ labels, value: 0 }));
    return {
      inc: () => {
        bound.value += 1;
      },
    };
  }

  get(): Promise<Scraped> {
    return this.scraped([...this.series.values()].map((s) => ({ labels: { ...s.labels }, value: s.value })));
  }

  reset(): void {
    for (const s of this.series.values()) s.value = 0;
  }
}

/** A histogram over LATENCY_BUCKETS counted in a typed array. */
class LabelledHistogram extends LabelledMetric<{ readonly labels: Labels; readonly counts: Float64Array; sum: number; count: number }> {
  readonly type = "histogram" as const;

  child(values: readonly string[]): HistogramChild {
    const bound = this.bind(values, (labels) => ({ labels, counts: new Float64Array(LATENCY_BUCKETS.length), sum: 0, count: 0 }));
    return {
      observe: (seconds) => {
        // The first bucket whose bound is ≥ the value (past the last: only +Inf, i.e. count).
        let i = 0;
        while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]!) i += 1;
        if (i < LATENCY_BUCKETS.length) bound.counts[i]! += 1;
        bound.sum += seconds;
        bound.count += 1;
      },
    };
  }

  get(): Promise<Scraped> {
    const values: Array<Scraped["values"][number]> = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((le, i) => {
        cumulative += s.counts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { le, ...s.labels }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: "+Inf", ...s.labels }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: { ...s.labels }, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...s.labels }, value: s.count });
    }
    return this.scraped(values);
  }

  reset(): void {
    for (const s of this.series.values()) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}
