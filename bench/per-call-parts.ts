/**
 * bench/per-call-parts.ts — the two per-call parts of a tool call that this
 * project's own code decides, each against the way it was done before, in
 * one process, alternating rounds (a whole-server A/B on a shared 2-core host
 * cannot see a few tens of µs in a call of a millisecond):
 *
 * 1. rendering a recipes__get answer: the whole entry built in sorted key
 *    order from the recipe's stored sorted entry (stable-json then only walks
 *    it) against spreading the entry as written (stable-json then copies it
 *    deep), both then serialized once, as the registry does;
 * 2. the per-call metrics: a request and a tool call counted in series bound
 *    once (src/server/metrics.ts) against prom-client's Counter/Histogram
 *    given label objects on every inc/observe.
 *
 *   npx tsx bench/per-call-parts.ts [--rounds 10] [--ms 300]
 *
 * Prints µs per call for each side and the ratio per round. Asserts nothing.
 */
import { parseArgs } from "node:util";
import { Counter, Histogram, Registry } from "prom-client";
import { provenanceOf, wholeEntry } from "../src/recipes/api/entry-view.js";
import { parsePack } from "../src/recipes/packs/parsed-pack.js";
import { yamlRecipes } from "../src/recipes/packs/yaml-recipe.js";
import type { YamlRecipe } from "../src/recipes/types.js";
import { createServerMetrics } from "../src/server/metrics.js";
import { entryAsYaml } from "../src/server/tools/yaml-text.js";
import type { SkillInfo } from "../src/skills/types.js";
import { sortKeys } from "../src/util/stable-json.js";
import { packYaml } from "./lib/generate.js";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "10" }, ms: { type: "string", default: "300" } } });
const ROUNDS = Number(values.rounds);
const MS = Number(values.ms);

const skill = { name: "bench-skill-3", dcc: "maya", tags: ["bench"], searchHint: "bevel" } as unknown as SkillInfo; // the fields yamlRecipes reads
const recipes = yamlRecipes(skill, "RECIPES.yaml", parsePack(packYaml(3, 10), "RECIPES.yaml")).recipes as YamlRecipe[];

/** The get answer's context, as recipes__get builds it, with `recipe` from `whole`. */
function getAnswer(recipe: YamlRecipe, whole: (r: YamlRecipe) => Record<string, unknown>): unknown {
  return {
    context: { anchor: recipe.name, content: entryAsYaml(recipe.entry), format: "yaml", pack: recipe.pack, provenance: provenanceOf(recipe), recipe: whole(recipe), skill: recipe.skill },
    message: `Recipe ${recipe.recipeId}`,
    revision: 1,
    success: true,
  };
}
/** The whole entry as it was built before: the entry as written spread, then sorted by a deep copy at render. */
const spreadEntry = (recipe: YamlRecipe): Record<string, unknown> => ({
  ...recipe.entry,
  inputs_schema: recipe.inputsSchema,
  steps: recipe.steps,
  toolset_profiles: recipe.toolsetProfiles,
  provenance: provenanceOf(recipe),
});
let sink = 0;
const render = (whole: (r: YamlRecipe) => Record<string, unknown>) => (i: number): void => {
  const sorted = sortKeys(getAnswer(recipes[i % recipes.length]!, whole));
  sink += JSON.stringify(sorted).length;
};

const metrics = createServerMetrics({ catalogs: () => [], processMetrics: false });
const peer = new Registry();
const requests = new Counter({ name: "r_total", help: "x", labelNames: ["route", "method", "status"], registers: [peer] });
const requestSeconds = new Histogram({ name: "r_seconds", help: "x", labelNames: ["route", "method"], buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers: [peer] });
const calls = new Counter({ name: "t_total", help: "x", labelNames: ["tool", "outcome", "error"], registers: [peer] });
const callSeconds = new Histogram({ name: "t_seconds", help: "x", labelNames: ["tool"], buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers: [peer] });
const TOOLS = ["recipes__search", "recipes__get"];
const bound = (i: number): void => {
  metrics.observeRequest({ route: "/mcp", method: "POST", status: 200, ms: 0.8 + (i % 7) / 10 });
  metrics.observeToolCall({ tool: TOOLS[i % 2]!, ms: 0.3 + (i % 5) / 10, success: true });
};
const labelled = (i: number): void => {
  const ms = 0.8 + (i % 7) / 10;
  requests.inc({ route: "/mcp", method: "POST", status: String(200) });
  requestSeconds.observe({ route: "/mcp", method: "POST" }, ms / 1000);
  calls.inc({ tool: TOOLS[i % 2]!, outcome: "success", error: "" });
  callSeconds.observe({ tool: TOOLS[i % 2]! }, (0.3 + (i % 5) / 10) / 1000);
};

/** µs of CPU per call of `op` over about MS ms. */
function measure(op: (i: number) => void): number {
  const cpu0 = process.cpuUsage();
  const until = performance.now() + MS;
  let n = 0;
  while (performance.now() < until) for (let k = 0; k < 100; k += 1) op(n++);
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / n;
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
// The two renderings must write the same bytes.
for (const recipe of recipes) {
  if (JSON.stringify(sortKeys(getAnswer(recipe, wholeEntry))) !== JSON.stringify(sortKeys(getAnswer(recipe, spreadEntry)))) throw new Error(`renderings differ for ${recipe.recipeId}`);
}
for (const [name, now, before] of [
  ["recipes__get answer rendered (sorted entry / spread + deep sort)", render(wholeEntry), render(spreadEntry)],
  ["per-call metrics (bound series / prom-client label objects)", bound, labelled],
] as const) {
  measure(now);
  measure(before);
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r += 1) {
    if (r % 2 === 0) {
      a.push(measure(now));
      b.push(measure(before));
    } else {
      b.push(measure(before));
      a.push(measure(now));
    }
  }
  const ratios = a.map((x, i) => x / b[i]!);
  console.log(
    `${name}: ${median(a).toFixed(2)} / ${median(b).toFixed(2)} µs per call (medians of ${ROUNDS} rounds), ` +
      `ratio ${median(ratios).toFixed(2)}× (rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}, lower in ${ratios.filter((x) => x < 1).length} of ${ROUNDS})`,
  );
}
if (sink === 0) console.log("");
