/**
 * checkSchema against compileSchema, in one run: what the daemon pays at load to learn each
 * recipe schema's verdict. Two sets:
 *  1. the bench tree's 40,000 schemas (1,000 skills x 20 recipes, inputs_schema and
 *     output_contract; bench/lib/generate.ts packYaml parsed with js-yaml, distinct objects
 *     as the loader holds them);
 *  2. every inputs_schema / output_contract of the real packs in ../shared/data/real-skills,
 *     each pass repeated to ~40,000 schemas.
 * Rounds alternate the order (check then compile, compile then check) so background load on
 * a shared machine hits both alike. Per round: µs per schema on wall clock and on process
 * CPU (which includes V8's GC helper threads), GC pause time observed during the pass, and
 * the compile/check ratio; printed as median and range over the rounds. Then bytes allocated
 * per schema (heap growth over batches small enough to fit the young generation, after a
 * full GC; the median batch, as a scavenge inside a batch would undercount it).
 * Target: checkSchema >= 3x faster than compileSchema.
 *
 *   npx tsx bench/jsonschema-check.ts
 */
import fs from "node:fs";
import path from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import v8 from "node:v8";
import vm from "node:vm";
import yaml from "js-yaml";
import { checkSchema, compileSchema } from "../src/jsonschema/index.js";
import { packYaml } from "./lib/generate.js";
import { collectSchemas, findRecipeFiles } from "./lib/real-packs.js";

const repoRoot = path.resolve(import.meta.dirname, "..");
const realSkills = path.resolve(repoRoot, "../shared/data/real-skills");
const ROUNDS = 11;

function benchTreeSchemas(): unknown[] {
  const out: unknown[] = [];
  for (let skill = 0; skill < 1000; skill++) collectSchemas(yaml.load(packYaml(skill, 20)), out);
  return out;
}

function realPackSchemas(): unknown[] | null {
  if (!fs.existsSync(realSkills)) {
    console.warn(`real skill packs not found at ${realSkills}; skipping that set`);
    return null;
  }
  const found: unknown[] = [];
  for (const file of findRecipeFiles(realSkills)) collectSchemas(yaml.load(fs.readFileSync(file, "utf8")), found);
  // Fresh parsed copies up to ~40,000, so each pass is as long as the bench tree's.
  const out: unknown[] = [];
  const copies = Math.ceil(40_000 / Math.max(1, found.length));
  for (let c = 0; c < copies; c++) for (const s of found) out.push(JSON.parse(JSON.stringify(s)) as unknown);
  console.log(`real packs: ${found.length} schemas (${found.filter((s) => checkSchema(s) !== null).length} refused), x${copies} copies`);
  return out;
}

let gcMs = 0;
const gcObserver = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
});
gcObserver.observe({ entryTypes: ["gc"] });

interface Sample {
  wallUs: number;
  cpuUs: number;
  gcMs: number;
}

/** GC entries arrive on a later turn of the event loop (a timer, not setImmediate). */
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 20));

async function timePass(fn: () => number, n: number): Promise<Sample> {
  await settle();
  const gc0 = gcMs;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const refused = fn();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await settle();
  if (refused < 0) throw new Error("unreachable");
  return { wallUs: (wall * 1000) / n, cpuUs: (cpu.user + cpu.system) / n, gcMs: gcMs - gc0 };
}

function checkAll(schemas: readonly unknown[]): number {
  let refused = 0;
  for (const s of schemas) if (checkSchema(s) !== null) refused++;
  return refused;
}

function compileAll(schemas: readonly unknown[]): number {
  let refused = 0;
  for (const s of schemas) if (!compileSchema(s).ok) refused++;
  return refused;
}

function stats(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const med = s[Math.floor(s.length / 2)]!;
  return `${med.toFixed(2)} [${s[0]!.toFixed(2)}–${s[s.length - 1]!.toFixed(2)}]`;
}

async function bench(name: string, schemas: readonly unknown[]): Promise<void> {
  if (checkAll(schemas) !== compileAll(schemas)) throw new Error(`${name}: verdicts differ`);
  const check: Sample[] = [];
  const compile: Sample[] = [];
  for (let r = 0; r < ROUNDS + 1; r++) {
    const order = r % 2 === 0 ? ["check", "compile"] : ["compile", "check"];
    for (const which of order) {
      const s = which === "check" ? await timePass(() => checkAll(schemas), schemas.length) : await timePass(() => compileAll(schemas), schemas.length);
      // Round 0 warms both up.
      if (r > 0) (which === "check" ? check : compile).push(s);
    }
  }
  const ratio = (f: (s: Sample) => number): number[] => check.map((c, i) => f(compile[i]!) / f(c));
  console.log(`\n## ${name}: ${schemas.length} schemas, ${ROUNDS} alternating rounds, median [min–max]`);
  console.log(`checkSchema   µs/schema wall ${stats(check.map((s) => s.wallUs))}, cpu ${stats(check.map((s) => s.cpuUs))}, GC ms/pass ${stats(check.map((s) => s.gcMs))}`);
  console.log(`compileSchema µs/schema wall ${stats(compile.map((s) => s.wallUs))}, cpu ${stats(compile.map((s) => s.cpuUs))}, GC ms/pass ${stats(compile.map((s) => s.gcMs))}`);
  console.log(`ratio compile/check (same round): wall ${stats(ratio((s) => s.wallUs))}, cpu ${stats(ratio((s) => s.cpuUs))}`);
}

v8.setFlagsFromString("--expose-gc");
const fullGc = vm.runInNewContext("gc") as () => void;

function bytesPerSchema(fn: (s: unknown) => unknown, schemas: readonly unknown[]): number {
  const BATCH = 200;
  const per: number[] = [];
  for (let start = 0; start + BATCH <= schemas.length && per.length < 25; start += BATCH) {
    fullGc();
    const h0 = process.memoryUsage().heapUsed;
    for (let i = start; i < start + BATCH; i++) fn(schemas[i]);
    per.push((process.memoryUsage().heapUsed - h0) / BATCH);
  }
  per.sort((a, b) => a - b);
  return per[Math.floor(per.length / 2)]!;
}

function allocation(name: string, schemas: readonly unknown[]): void {
  const check = bytesPerSchema((s) => checkSchema(s), schemas);
  const compile = bytesPerSchema((s) => compileSchema(s), schemas);
  console.log(`${name}: bytes allocated per schema: checkSchema ${Math.round(check)}, compileSchema ${Math.round(compile)} (${(compile / check).toFixed(1)}x)`);
}

console.log(`node ${process.version}; target: checkSchema >= 3x faster than compileSchema`);
const tree = benchTreeSchemas();
await bench("bench tree (packYaml, 1,000 skills x 20 recipes, both fields)", tree);
const real = realPackSchemas();
if (real !== null) await bench("real packs' inputs_schema + output_contract", real);
gcObserver.disconnect();
console.log("");
allocation("bench tree", tree);
if (real !== null) allocation("real packs", real);
