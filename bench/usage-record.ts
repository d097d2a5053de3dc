/**
 * bench/usage-record.ts — what counting a use costs a tool call: a real
 * `recipes__get` through the tool registry on a loaded library (the
 * example skills), with usage recording on (the file store's buffer and the
 * metrics' recipe series, as the daemon runs it) against the same call with
 * recording off (a store whose `record` does nothing, no metrics observer),
 * in one process, alternating rounds, process CPU per call. The batch write
 * (lock, read-add, atomic replace of usage.json) happens between rounds, off
 * the calls as in the daemon (at most once per 2 s), and is measured on its
 * own: CPU per batch. Then the recording alone (store + metrics) per use.
 *
 *   npx tsx bench/usage-record.ts [--rounds 10] [--ms 400] [--users]
 *
 * `--users`: each call as one of 20 users (a row per recipe and user). Prints
 * µs per call for each side and the ratio per round. Asserts nothing.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pino from "pino";
import { recipeRegistry } from "../src/compose/catalogs.js";
import { RecipeLibrary } from "../src/recipes/catalog/library.js";
import { createSearchEngine } from "../src/recipes/search/engine.js";
import type { UsageStore } from "../src/recipes/store/usage-store.js";
import { createServerMetrics } from "../src/server/metrics.js";
import { recipeContext, type RecipeToolContext } from "../src/server/tools/context.js";
import { recipeToolDefinitions } from "../src/compose/catalogs.js";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "10" }, ms: { type: "string", default: "400" }, users: { type: "boolean", default: false } } });
const ROUNDS = Number(values.rounds);
const MS = Number(values.ms);

const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "bench-usage-"));
const logger = pino({ level: "silent" });
const library = new RecipeLibrary({
  settings: { dcc: "houdini", skillRoots: [path.resolve("skills-example")], privateDir: path.join(tmp, "private"), stateDir: path.join(tmp, "state") },
  search: createSearchEngine({ provider: null }),
  logger,
  parseWorkers: 0,
});
const snapshot = await library.load();
const gets = [...snapshot.recipes.values()].filter((r) => r.visibility === "public").map((r) => ({ skill: r.skill, anchor: r.name }));

const registry = recipeRegistry(recipeToolDefinitions(), logger);
const metrics = createServerMetrics({ catalogs: () => [], processMetrics: false });
const signal = new AbortController().signal;
const users = values.users ? Array.from({ length: 20 }, (_, i) => ({ user: `user-${i}`, playbooks: library, loaded: Promise.resolve() })) : [undefined];
const observeUse = metrics.recipeUses("houdini");

/** The same library with a store that counts nothing: the call as it would be without recording. */
const silent: UsageStore = {
  record: () => undefined,
  get: () => undefined,
  read: () => Promise.resolve({ recipes: new Map(), asOf: "", complete: true }),
  flush: () => Promise.resolve(),
  load: () => Promise.resolve(),
};
const unrecorded = Object.create(library, { usage: { value: silent } }) as RecipeLibrary;

const contexts = (lib: RecipeLibrary, observe: boolean): RecipeToolContext[] =>
  users.map((caller) => recipeContext(lib, logger, { signal }, caller, undefined, observe ? observeUse : undefined));
const on = contexts(library, true);
const off = contexts(unrecorded, false);

let sink = 0;
/** µs of CPU per call over about MS ms; then `settle` (the batch write), not counted. */
async function measure(ctx: readonly RecipeToolContext[], settle: () => Promise<void>): Promise<number> {
  const cpu0 = process.cpuUsage();
  const until = performance.now() + MS;
  let n = 0;
  while (performance.now() < until) {
    for (let k = 0; k < 50; k += 1, n += 1) {
      const outcome = registry.call("recipes__get", gets[n % gets.length]!, ctx[n % ctx.length]!);
      if (outcome instanceof Promise) throw new Error("recipes__get answered asynchronously");
      if (outcome.kind === "result") sink += outcome.result.content[0]!.text.length;
    }
  }
  const cpu = process.cpuUsage(cpu0);
  const c1 = process.cpuUsage();
  await settle();
  const written = process.cpuUsage(c1);
  if (settle === flush) batches.push((written.user + written.system) / 1000);
  return (cpu.user + cpu.system) / n;
}
const batches: number[] = [];

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function flush(): Promise<void> {
  return library.usage.flush();
}
const nothing = () => Promise.resolve();
await measure(on, flush);
await measure(off, nothing);
const a: number[] = [];
const b: number[] = [];
for (let r = 0; r < ROUNDS; r += 1) {
  if (r % 2 === 0) {
    a.push(await measure(on, flush));
    b.push(await measure(off, nothing));
  } else {
    b.push(await measure(off, nothing));
    a.push(await measure(on, flush));
  }
}
// The recording alone, as tools/context.ts recordUse does it per call: the store's buffer and the metrics' series.
const ids = gets.map((g) => `${g.skill}/${g.anchor}`);
const userIds = users.map((caller) => caller?.user ?? "");
function recordOnly(): number {
  const cpu0 = process.cpuUsage();
  const until = performance.now() + MS;
  let n = 0;
  while (performance.now() < until) {
    for (let k = 0; k < 1000; k += 1, n += 1) {
      const id = ids[n % ids.length]!;
      library.usage.record(id, "get", userIds[n % userIds.length]);
      observeUse(id, "get");
    }
  }
  const cpu = process.cpuUsage(cpu0);
  return ((cpu.user + cpu.system) * 1000) / n;
}
const alone: number[] = [];
for (let r = 0; r < ROUNDS; r += 1) alone.push(recordOnly());
await library.usage.flush();
console.log(`recording alone (store buffer + metrics series): ${median(alone).toFixed(0)} ns CPU per use (median of ${ROUNDS} rounds)`);
const ratios = a.map((x, i) => x / b[i]!);
const stored = JSON.parse(await fs.readFile(path.join(tmp, "state", "usage.json"), "utf8")) as { usage: Record<string, unknown> };
console.log(
  `recipes__get with usage recorded / without (${gets.length} recipes, ${users.length} user(s), ${Object.keys(stored.usage).length} recipes in usage.json): ` +
    `${median(a).toFixed(2)} / ${median(b).toFixed(2)} µs CPU per call (medians of ${ROUNDS} rounds), ` +
    `+${(median(a) - median(b)).toFixed(2)} µs, ratio ${median(ratios).toFixed(3)}× (rounds ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}, higher in ${ratios.filter((x) => x > 1).length} of ${ROUNDS})`,
);
console.log(`batch write (lock, read-add, atomic replace of usage.json): ${median(batches).toFixed(2)} ms CPU per batch (median of ${batches.length})`);
await library.close();
await fs.rm(tmp, { recursive: true, force: true });
if (sink === 0) console.log("");
