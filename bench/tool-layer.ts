/**
 * bench/tool-layer.ts — the tool layer's own CPU per `recipes__get` /
 * `recipes__search` call: what the daemon runs for a call between the
 * protocol's tools/call handler and the answer (the call's context as the
 * composition root makes it, the registry's argument validation, the
 * handler with its lookup, use recording and metrics series, the revision
 * stamp, the deterministic rendering and the result window), without HTTP,
 * sessions or an SDK. Each build's own dist/ modules (a library over a
 * generated catalog, its registry, its metrics) answer the same calls.
 *
 *   npm run build
 *   npx tsx bench/tool-layer.ts [--build now=dist] [--build main=/path/dist] [--recipes 2000]
 *                               [--tools get,search] [--rounds 12] [--calls 2000] [--callgrind]
 *
 * Default: every build in one process, alternating in slices of 100 calls
 * inside each round; µs of process CPU per call and the per-round ratio
 * against the first build. --callgrind: each build alone under valgrind's
 * callgrind, counted only over --calls calls per tool after a warm-up,
 * with a full collection before and at the end of the counted window (each
 * window pays for its own garbage): instructions per call, which a loaded
 * host does not move. Builds from 4f49cc7 on (the tool list's module is
 * looked up in either place).
 * Asserts nothing.
 */
import { readdirSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { benchQueries, generateTree, recipeName } from "./lib/generate.js";
import { control, countEachBuild, dumped } from "./lib/callgrind.js";

const { values } = parseArgs({
  options: {
    build: { type: "string", multiple: true, default: ["now=dist"] },
    recipes: { type: "string", default: "2000" },
    tools: { type: "string", default: "get,search" },
    rounds: { type: "string", default: "12" },
    calls: { type: "string", default: "2000" },
    callgrind: { type: "boolean", default: false },
    /** Internal: this process is one build under callgrind, writing its dumps to this prefix, over this tree. */
    "callgrind-child": { type: "string" },
    tree: { type: "string" },
  },
});
const SIZE = Number(values.recipes);
const ROUNDS = Number(values.rounds);
const CALLS = Number(values.calls);
const PER_SKILL = 10;
const SKILLS = Math.ceil(SIZE / PER_SKILL);
const TOOLS = String(values.tools).split(",").filter((t): t is "get" | "search" => t === "get" || t === "search");
const SLICE = 100;

interface Outcome {
  readonly kind: string;
  readonly result?: { readonly content: ReadonlyArray<{ readonly text: string }>; readonly isError: boolean };
}
/** One build's tool path: one call as the composition root runs it (context per call, registry). */
type Caller = (tool: "get" | "search", i: number) => void;

const work = await fs.mkdtemp(path.join(os.tmpdir(), "tool-layer-"));
const tree = values.tree !== undefined ? { root: values.tree } : await generateTree(path.join(work, "skills"), SKILLS, PER_SKILL);
const queries = benchQueries(2000);
const logger = pino({ level: "silent" });

function args(tool: "get" | "search", i: number): Record<string, unknown> {
  if (tool === "search") return { query: queries[i % queries.length]!, limit: 10 };
  // bench:server's spread: 8 clients, each walking the skills one step a call.
  const client = i % 8;
  const step = Math.floor(i / 8);
  const skill = (client * 31 + step) % SKILLS;
  return { skill: `bench-skill-${skill}`, anchor: recipeName(skill, step % PER_SKILL) };
}

async function load(spec: string): Promise<{ name: string; call: Caller; stop(): Promise<void> }> {
  const [name, dir] = spec.includes("=") ? (spec.split("=", 2) as [string, string]) : [spec, spec];
  const dist = path.resolve(dir!);
  const from = async <T>(file: string): Promise<T> => (await import(pathToFileURL(path.join(dist, file)).href)) as T;
  const { RecipeLibrary } = await from<{ RecipeLibrary: new (options: unknown) => { load(): Promise<unknown>; close?(): Promise<void> } }>("recipes/catalog/library.js");
  const { createSearchEngine } = await from<{ createSearchEngine(options: unknown): unknown }>("recipes/search/engine.js");
  const catalogs = await from<{
    recipeRegistry(definitions: unknown, logger: unknown): { call(name: string, args: unknown, context: unknown): Outcome | Promise<Outcome> };
    recipeToolDefinitions?(): unknown;
  }>("compose/catalogs.js");
  // Before 15cb223 the tool list lived in server/tools/index.js.
  const recipeToolDefinitions = catalogs.recipeToolDefinitions ?? (await from<{ recipeToolDefinitions(): unknown }>("server/tools/index.js")).recipeToolDefinitions;
  const { recipeRegistry } = catalogs;
  const { createServerMetrics } = await from<{ createServerMetrics(options: unknown): { recipeUses?(dcc: string): unknown } }>("server/metrics.js");
  const { recipeContext } = await from<{ recipeContext(...a: unknown[]): unknown }>("server/tools/context.js");
  const state = path.join(work, `state-${name}`);
  const library = new RecipeLibrary({
    settings: { dcc: "maya", skillRoots: [tree.root], privateDir: path.join(state, "private"), stateDir: state },
    search: createSearchEngine({ provider: null }),
    logger,
    parseWorkers: 0,
  });
  await library.load();
  const registry = recipeRegistry(recipeToolDefinitions(), logger);
  const metrics = createServerMetrics({ catalogs: () => [], processMetrics: false });
  // Builds before per-recipe metrics take no observer (their recipeContext ignores the argument).
  const observeUse = metrics.recipeUses?.("maya");
  const signal = new AbortController().signal;
  let sink = 0;
  const call: Caller = (tool, i) => {
    // A context per call, as compose/app.ts makes one.
    const context = recipeContext(library, logger, { user: null, signal }, undefined, undefined, observeUse);
    const outcome = registry.call(tool === "get" ? "recipes__get" : "recipes__search", args(tool, i), context);
    if (outcome instanceof Promise) throw new Error(`${name}: ${tool} answered asynchronously`);
    if (outcome.kind !== "result" || outcome.result!.isError) throw new Error(`${name}: ${tool}: ${outcome.result?.content[0]?.text.slice(0, 200)}`);
    sink += outcome.result!.content[0]!.text.length;
  };
  return { name, call, stop: async () => void (sink > 0 && (await library.close?.())) };
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;


if (values["callgrind-child"] !== undefined) {
  const prefix = values["callgrind-child"];
  const built = await load((values.build as string[])[0]!);
  const gc = (globalThis as { gc?: () => void }).gc;
  const figures: Record<string, number> = {};
  for (const tool of TOOLS) {
    for (let i = 0; i < 3000; i += 1) built.call(tool, i);
    gc?.();
    await control("-i", "on");
    await control("-z");
    for (let i = 0; i < CALLS; i += 1) built.call(tool, 10_000 + i);
    gc?.();
    await control("-d", tool);
    await control("-i", "off");
    figures[tool] = dumped(prefix) / CALLS;
    for (const file of readdirSync(path.dirname(prefix)).filter((f) => f.startsWith(path.basename(prefix)))) await fs.rm(path.join(path.dirname(prefix), file));
  }
  process.stdout.write(`${JSON.stringify(figures)}\n`);
  process.exit(0);
}

if (values.callgrind) {
  const self = fileURLToPath(import.meta.url);
  const results = await countEachBuild(self, values.build as string[], work, ["--tree", tree.root, "--recipes", String(SIZE), "--tools", TOOLS.join(","), "--calls", String(CALLS)], "ignore");
  console.log(`tool-layer --callgrind: ${SIZE} recipes; ${CALLS} calls per tool after 3000; thousands of instructions per call (all threads)`);
  for (const tool of TOOLS) {
    const base = results[0]!.figures[tool]!;
    console.log(`${tool.padEnd(7)} ${results.map((r, k) => `${r.name} ${(r.figures[tool]! / 1000).toFixed(2)}k${k === 0 ? "" : ` (${(r.figures[tool]! / base).toFixed(3)}×)`}`).join("; ")}`);
  }
  await fs.rm(work, { recursive: true, force: true }).catch(() => undefined);
  process.exit(0);
}

const builds: Array<Awaited<ReturnType<typeof load>>> = [];
for (const spec of values.build as string[]) builds.push(await load(spec));
console.log(`tool-layer: ${SIZE} recipes; ${ROUNDS} rounds × ${CALLS} calls per build and tool, alternating in slices of ${SLICE}; µs of process CPU per call`);
for (const tool of TOOLS) {
  for (let i = 0; i < 3000; i += 1) for (const b of builds) b.call(tool, i);
  const perBuild: number[][] = builds.map(() => []);
  let n = 10_000;
  for (let r = 0; r < ROUNDS; r += 1) {
    const used = builds.map(() => 0);
    for (let done = 0; done < CALLS; done += SLICE) {
      const order = builds.map((_, k) => k);
      if ((done / SLICE + r) % 2 === 1) order.reverse();
      for (const k of order) {
        const start = process.cpuUsage();
        for (let j = 0; j < SLICE; j += 1) builds[k]!.call(tool, n + j);
        const spent = process.cpuUsage(start);
        used[k]! += spent.user + spent.system;
      }
      n += SLICE;
    }
    used.forEach((us, k) => perBuild[k]!.push(us / CALLS));
  }
  const first = perBuild[0]!;
  console.log(
    `${tool.padEnd(7)} ` +
      builds
        .map((b, k) => {
          const mine = perBuild[k]!;
          if (k === 0) return `${b.name} ${median(mine).toFixed(2)} µs`;
          const ratios = mine.map((x, r) => x / first[r]!);
          const lower = ratios.filter((x) => x < 1).length;
          return `${b.name} ${median(mine).toFixed(2)} µs (${median(ratios).toFixed(3)}× ${builds[0]!.name}, rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}, lower in ${lower} of ${ratios.length})`;
        })
        .join("; "),
  );
}
for (const b of builds) await b.stop().catch(() => undefined);
await fs.rm(work, { recursive: true, force: true }).catch(() => undefined);
process.exit(0);
