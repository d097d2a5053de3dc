/**
 * Per-server metrics: each instance has its own registry (two servers in one
 * process do not collide), tool outcomes are labelled, catalog figures are
 * read at scrape time.
 */
import { Counter, Histogram, register as globalRegistry, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createServerMetrics, RECIPE_LABEL_CAP, type CatalogFigures } from "../../src/server/metrics.js";

const MAYA: CatalogFigures = {
  dcc: "maya",
  loaded: true,
  revision: 3,
  skills: 2,
  recipes: 13,
  privateRecipes: 1,
  diagnostics: { errors: 1, warnings: 2 },
  lexical: "ready",
  semantic: "warming",
};

describe("createServerMetrics", () => {
  it("keeps two instances apart and out of the global registry", async () => {
    const a = createServerMetrics({ catalogs: () => [], processMetrics: true });
    const b = createServerMetrics({ catalogs: () => [], processMetrics: true });
    a.observeToolCall({ tool: "recipes__search", ms: 2, success: true });
    a.observeToolCall({ tool: "recipes__search", ms: 2, success: true });
    b.observeToolCall({ tool: "recipes__search", ms: 2, success: true });
    expect(await a.render()).toMatch(/^recipe_server_tool_calls_total\{tool="recipes__search",outcome="success",error=""\} 2$/m);
    expect(await b.render()).toMatch(/^recipe_server_tool_calls_total\{tool="recipes__search",outcome="success",error=""\} 1$/m);
    expect(await a.render()).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(await globalRegistry.metrics()).not.toContain("recipe_server_");
  });

  it("labels outcomes: success, business error with its code, timeout", async () => {
    const m = createServerMetrics({ catalogs: () => [], processMetrics: false });
    m.observeToolCall({ tool: "recipe", ms: 1, success: false, error: "not_found" });
    m.observeToolCall({ tool: "recipe", ms: 60_000, success: false, error: "timeout" });
    const text = await m.render();
    expect(text).toMatch(/^recipe_server_tool_calls_total\{tool="recipe",outcome="error",error="not_found"\} 1$/m);
    expect(text).toMatch(/^recipe_server_tool_calls_total\{tool="recipe",outcome="timeout",error="timeout"\} 1$/m);
    expect(text).toMatch(/^recipe_server_tool_call_duration_seconds_bucket\{le="60",tool="recipe"\} 2$/m);
    expect(text).toMatch(/^recipe_server_tool_call_duration_seconds_bucket\{le="0.001",tool="recipe"\} 1$/m);
  });

  it("reads catalog figures at scrape time", async () => {
    let catalogs: CatalogFigures[] = [];
    const m = createServerMetrics({ catalogs: () => catalogs, processMetrics: false });
    expect(await m.render()).not.toMatch(/^recipe_server_catalog_recipes\{/m);
    catalogs = [MAYA];
    const text = await m.render();
    expect(text).toMatch(/^recipe_server_catalog_recipes\{dcc="maya",visibility="public"\} 12$/m);
    expect(text).toMatch(/^recipe_server_catalog_recipes\{dcc="maya",visibility="private"\} 1$/m);
    expect(text).toMatch(/^recipe_server_catalog_diagnostics\{dcc="maya",severity="error"\} 1$/m);
    expect(text).toMatch(/^recipe_server_catalog_revision\{dcc="maya"\} 3$/m);
    expect(text).toMatch(/^recipe_server_search_mode\{dcc="maya",index="semantic",state="warming"\} 1$/m);
    expect(text).toMatch(/^recipe_server_search_mode\{dcc="maya",index="semantic",state="ready"\} 0$/m);
    catalogs = [{ ...MAYA, revision: 4, semantic: "ready" }];
    const later = await m.render();
    expect(later).toMatch(/^recipe_server_catalog_revision\{dcc="maya"\} 4$/m);
    expect(later).toMatch(/^recipe_server_search_mode\{dcc="maya",index="semantic",state="ready"\} 1$/m);
  });

  it("collapses unmatched routes into one label value", async () => {
    const m = createServerMetrics({ catalogs: () => [], processMetrics: false });
    m.observeRequest({ route: "unknown", method: "GET", status: 404, ms: 1 });
    m.observeRequest({ route: "/mcp", method: "POST", status: 200, ms: 1 });
    m.countReload("maya");
    m.setSessions(3);
    const text = await m.render();
    expect(text).toMatch(/^recipe_server_http_requests_total\{route="unmatched",method="GET",status="404"\} 1$/m);
    expect(text).toMatch(/^recipe_server_sessions 3$/m);
    expect(text).toMatch(/^recipe_server_catalog_reloads_total\{dcc="maya"\} 1$/m);
  });

  it("scrapes its bound per-call series exactly as prom-client's own Counter and Histogram would", async () => {
    const m = createServerMetrics({ catalogs: () => [], processMetrics: false });
    const peer = new Registry();
    const calls = new Counter({ name: "recipe_server_tool_calls_total", help: "x", labelNames: ["tool", "outcome", "error"], registers: [peer] });
    const seconds = new Histogram({
      name: "recipe_server_tool_call_duration_seconds",
      help: "x",
      labelNames: ["tool"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [peer],
    });
    // Bucket edges, values past the last bucket, repeats, two tools and two outcomes.
    const events = [0, 0.5, 1, 2.5, 7, 60_000, 120_000, 1, 0.25].flatMap((ms, i) => [
      { tool: i % 2 === 0 ? "recipes__get" : "recipes__search", ms, success: true },
      { tool: "recipe", ms, success: false, error: "not_found" as const },
    ]);
    for (const event of events) {
      m.observeToolCall(event);
      calls.inc({ tool: event.tool, outcome: event.success ? "success" : "error", error: event.error ?? "" });
      seconds.observe({ tool: event.tool }, event.ms / 1000);
    }
    const series = (text: string, name: string): string[] =>
      text
        .split("\n")
        .filter((line) => line.startsWith(name))
        .sort();
    const ours = await m.render();
    const theirs = await peer.metrics();
    for (const name of ["recipe_server_tool_calls_total{", "recipe_server_tool_call_duration_seconds_"]) {
      expect(series(ours, name).length).toBeGreaterThan(0);
      expect(series(ours, name)).toEqual(series(theirs, name));
    }
    expect(ours).toContain("# TYPE recipe_server_tool_call_duration_seconds histogram");
    expect(ours).toContain("# TYPE recipe_server_tool_calls_total counter");
  });

  it("recipe uses: one series per DCC, tool and outcome; a recipe label for the first RECIPE_LABEL_CAP recipes, the rest folded", async () => {
    const m = createServerMetrics({ catalogs: () => [], processMetrics: false });
    const maya = m.recipeUses("maya");
    const houdini = m.recipeUses("houdini");
    for (let i = 0; i < RECIPE_LABEL_CAP + 50; i++) maya(`skill/recipe-${i}`, "get");
    maya("skill/recipe-0", "validate_fail");
    maya("skill/recipe-120", "run_recovered");
    maya("private/alice-secret-notes", "get");
    houdini("fx/pyro", "run_dry_run");
    const text = await m.render();
    const lines = (prefix: string) => text.split("\n").filter((line) => line.startsWith(prefix));
    expect(lines('recipe_server_recipe_calls_total{dcc="maya",tool="get",outcome="ok"}')).toEqual([
      `recipe_server_recipe_calls_total{dcc="maya",tool="get",outcome="ok"} ${RECIPE_LABEL_CAP + 51}`,
    ]);
    expect(text).toContain('recipe_server_recipe_calls_total{dcc="maya",tool="validate",outcome="fail"} 1');
    expect(text).toContain('recipe_server_recipe_calls_total{dcc="houdini",tool="run",outcome="dry_run"} 1');
    // Bounded: the cap's recipes, _other and _private; never a private playbook's name.
    const recipes = new Set(lines("recipe_server_recipe_uses_total{").map((line) => /recipe="([^"]*)"/.exec(line)![1]));
    expect(recipes.size).toBe(RECIPE_LABEL_CAP + 3);
    expect(recipes.has("_other") && recipes.has("_private") && recipes.has("fx/pyro")).toBe(true);
    expect(text).not.toContain("alice-secret-notes");
    expect(text).toContain('recipe_server_recipe_uses_total{dcc="maya",recipe="_other",tool="get",outcome="ok"} 50');
    expect(text).toContain('recipe_server_recipe_uses_total{dcc="maya",recipe="_other",tool="run",outcome="recovered"} 1');
    expect(text).toContain('recipe_server_recipe_uses_total{dcc="maya",recipe="skill/recipe-0",tool="validate",outcome="fail"} 1');
  });
});
