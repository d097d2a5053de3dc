/**
 * Validator benchmark: this validator against ajv (Ajv2020) and
 * @cfworker/json-schema, in one run, on
 *  1. a realistic recipe inputs_schema (bench/fixtures/jsonschema), and
 *  2. every inputs_schema / output_contract of the real packs in ../shared/data/real-skills,
 *  3. a pattern-heavy schema (20 items of 8 patterned strings, patternProperties on keys),
 * and the start-up cost the daemon pays: µs per compile of the generated packs' (bench/lib)
 * inputs_schema and output_contract, of which it compiles 40,000 (1,000 skills x 20 recipes);
 * then the ReDoS probes on our validator (ms each; a backtracking engine takes seconds
 * to minutes on them).
 * Prints compile time, validations/second (both on this process's CPU time) on valid and invalid instances, and ratios.
 * Targets: throughput >= 0.5x ajv and >= 2x cfworker; compile >= 20x faster than ajv.
 *
 * `--peer DIR` adds another copy of this validator as engine "peer", read from
 * DIR/src/jsonschema (it imports nothing else): the way to measure a change against main in
 * the same run, e.g.
 *   mkdir /tmp/main-js && git archive main src/jsonschema | tar -x -C /tmp/main-js
 *   npm run bench:jsonschema -- --peer /tmp/main-js
 *
 *   npm run bench:jsonschema
 */
import fs from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { Validator as CfValidator } from "@cfworker/json-schema";
import { pathToFileURL } from "node:url";
import { parse as parseYaml } from "yaml";
import { compileSchema } from "../src/jsonschema/index.js";
import { recipeYaml } from "./lib/generate.js";
import { patternHeavy, realPackSchemas } from "./jsonschema-instances.js";

const repoRoot = path.resolve(import.meta.dirname, "..");
const fixtures = path.join(repoRoot, "bench/fixtures/jsonschema");
const realSkills = path.resolve(repoRoot, "../shared/data/real-skills");

type Check = (instance: unknown) => boolean;
interface Engine {
  readonly name: string;
  compile(schema: unknown): Check;
}

type CompileFn = typeof compileSchema;

/** The other copy of this validator named by --peer, or null. */
async function loadPeer(): Promise<CompileFn | null> {
  const at = process.argv.indexOf("--peer");
  if (at < 0) return null;
  const dir = process.argv[at + 1];
  if (dir === undefined) throw new Error("--peer needs a directory");
  const mod = (await import(pathToFileURL(path.resolve(dir, "src/jsonschema/index.ts")).href)) as { compileSchema: CompileFn };
  return mod.compileSchema;
}

const peerCompile = await loadPeer();

function makeEngines(): Engine[] {
  // One Ajv instance (its construction, meta-schemas included, is not charged to compile).
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  const peer: Engine[] =
    peerCompile === null
      ? []
      : [
          {
            name: "peer",
            compile(schema) {
              const r = peerCompile(schema, { allErrors: false });
              if (!r.ok) throw new Error(`peer refused: ${r.error.code} ${r.error.message} at ${r.error.schemaPath}`);
              const v = r.validator;
              return (x) => v.validate(x).valid;
            },
          },
        ];
  return [
    ...peer,
    {
      // Stops at the first error, like ajv (allErrors false) and cfworker (shortCircuit).
      name: "ours",
      compile(schema) {
        const r = compileSchema(schema, { allErrors: false });
        if (!r.ok) throw new Error(`refused: ${r.error.code} ${r.error.message} at ${r.error.schemaPath}`);
        const v = r.validator;
        return (x) => v.validate(x).valid;
      },
    },
    {
      // What validateRecipeInputs uses: every error, rendered later.
      name: "ours-all",
      compile(schema) {
        const r = compileSchema(schema);
        if (!r.ok) throw new Error(`refused: ${r.error.code} ${r.error.message} at ${r.error.schemaPath}`);
        const v = r.validator;
        return (x) => v.validate(x).valid;
      },
    },
    {
      name: "ajv",
      compile(schema) {
        const f = ajv.compile(schema as object);
        return (x) => f(x) as boolean;
      },
    },
    {
      name: "cfworker",
      compile(schema) {
        const v = new CfValidator(schema as object, "2020-12", true);
        return (x) => v.validate(x).valid;
      },
    },
  ];
}

/**
 * This process's CPU time in ms. Timing on CPU time rather than wall time keeps figures
 * stable when other work shares the machine (CI runners, parallel test suites).
 */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** ops/second (of CPU time) over one slice of `ms` CPU milliseconds. */
function slice(fn: () => void, ms: number): number {
  let n = 0;
  const start = cpuMs();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 50; i++) fn();
    n += 50;
    now = cpuMs();
  }
  return (n * 1000) / (now - start);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Median compile time in microseconds; each compile gets its own deep copy (ajv caches by object). */
function compileTime(engine: Engine, schemas: readonly unknown[], reps: number): number {
  const times: number[] = [];
  for (let r = 0; r < reps; r++) {
    const copies = Array.from({ length: COMPILE_BATCH }, () => schemas.map((s) => structuredClone(s)));
    const start = cpuMs();
    for (const batch of copies) for (const c of batch) engine.compile(c);
    times.push(((cpuMs() - start) * 1000) / (schemas.length * COMPILE_BATCH));
  }
  return median(times);
}

interface Scenario {
  readonly name: string;
  readonly schemas: readonly unknown[];
  readonly valid: readonly unknown[];
  readonly invalid: readonly unknown[];
}

interface Row {
  compileUs: number;
  validOps: number;
  invalidOps: number;
}

const ROUNDS = 9;
/** Compiles per timed sample, so each sample spans many CPU-clock ticks. */
const COMPILE_BATCH = 10;
const SLICE_MS = 60;

/**
 * Engines are timed in interleaved slices (A B C A B C ...) and each figure is the median
 * slice, so background load on a shared machine hits every engine alike.
 */
function run(s: Scenario): Map<string, Row> {
  const engines = makeEngines();
  const n = s.schemas.length;
  const valid: Array<() => void> = [];
  const invalid: Array<() => void> = [];
  for (const engine of engines) {
    const checks = s.schemas.map((schema) => engine.compile(schema));
    // Sanity: every engine must agree with the instance labels before it is timed.
    checks.forEach((c, i) => {
      if (!c(s.valid[i])) throw new Error(`${engine.name} rejects valid instance ${i} of ${s.name}`);
      if (c(s.invalid[i])) throw new Error(`${engine.name} accepts invalid instance ${i} of ${s.name}`);
    });
    valid.push(() => {
      for (let i = 0; i < n; i++) checks[i]!(s.valid[i]);
    });
    invalid.push(() => {
      for (let i = 0; i < n; i++) checks[i]!(s.invalid[i]);
    });
    for (let i = 0; i < 3000; i++) {
      valid[valid.length - 1]!();
      invalid[invalid.length - 1]!();
    }
  }
  const samples = engines.map(() => ({ compile: [] as number[], valid: [] as number[], invalid: [] as number[] }));
  for (let r = 0; r < ROUNDS; r++) {
    engines.forEach((engine, e) => {
      samples[e]!.compile.push(compileTime(engine, s.schemas, 1));
      samples[e]!.valid.push(slice(valid[e]!, SLICE_MS) * n);
      samples[e]!.invalid.push(slice(invalid[e]!, SLICE_MS) * n);
    });
  }
  const rows = new Map<string, Row>();
  engines.forEach((engine, e) => {
    rows.set(engine.name, {
      compileUs: median(samples[e]!.compile),
      validOps: median(samples[e]!.valid),
      invalidOps: median(samples[e]!.invalid),
    });
  });
  return rows;
}

function report(s: Scenario, rows: Map<string, Row>): void {
  console.log(`\n## ${s.name} (${s.schemas.length} schema${s.schemas.length === 1 ? "" : "s"})`);
  console.log("engine     compile µs/schema   valid validations/s   invalid validations/s");
  for (const [name, r] of rows) {
    console.log(
      `${name.padEnd(10)} ${r.compileUs.toFixed(1).padStart(17)}   ${Math.round(r.validOps).toLocaleString("en").padStart(19)}   ${Math.round(r.invalidOps).toLocaleString("en").padStart(21)}`,
    );
  }
  const ours = rows.get("ours")!;
  const all = rows.get("ours-all")!;
  const ajv = rows.get("ajv")!;
  const cf = rows.get("cfworker")!;
  const x = (a: number, b: number): string => `${(a / b).toFixed(2)}x`;
  console.log(
    `ratios: valid ${x(ours.validOps, ajv.validOps)} ajv (target >= 0.5x), ${x(ours.validOps, cf.validOps)} cfworker (target >= 2x); ` +
      `invalid ${x(ours.invalidOps, ajv.invalidOps)} ajv, ${x(ours.invalidOps, cf.invalidOps)} cfworker; ` +
      `compile ${x(ajv.compileUs, ours.compileUs)} faster than ajv (target >= 20x), ${x(cf.compileUs, ours.compileUs)} vs cfworker`,
  );
  console.log(
    `ours-all (every error, as validateRecipeInputs): valid ${x(all.validOps, ajv.validOps)} ajv, invalid ${x(all.invalidOps, ajv.invalidOps)} ajv, ${x(all.invalidOps, cf.invalidOps)} cfworker`,
  );
  const peer = rows.get("peer");
  if (peer !== undefined) {
    console.log(
      `vs peer (--peer, first error): valid ${x(ours.validOps, peer.validOps)}, invalid ${x(ours.invalidOps, peer.invalidOps)}, compile ${x(peer.compileUs, ours.compileUs)} faster`,
    );
  }
}

function readJson(file: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(fixtures, file), "utf8"));
}

function realPackScenario(): Scenario | null {
  const packs = realPackSchemas(realSkills);
  if (packs === null) return null;
  return {
    name: "real packs' inputs_schema + output_contract",
    schemas: packs.map((p) => p.schema),
    valid: packs.map((p) => p.valid),
    invalid: packs.map((p) => p.invalid),
  };
}

function recipeScenario(): Scenario {
  return {
    name: "realistic recipe inputs_schema",
    schemas: [readJson("recipe-inputs.schema.json")],
    valid: [readJson("recipe-inputs.valid.json")],
    invalid: [readJson("recipe-inputs.invalid.json")],
  };
}

/**
 * µs per compile of each schema shape, over fresh copies (as the daemon compiles each pack's
 * own parsed objects); median of interleaved batches.
 */
function startupCompile(): void {
  const recipe = (parseYaml(`recipes:\n${recipeYaml(0, 0)}`) as { recipes: Array<Record<string, unknown>> }).recipes[0]!;
  const shapes = { inputs_schema: recipe.inputs_schema, output_contract: recipe.output_contract };
  const BATCH = 2000;
  const times: Record<string, number[]> = { inputs_schema: [], output_contract: [] };
  for (let r = 0; r < ROUNDS + 2; r++) {
    for (const [name, schema] of Object.entries(shapes)) {
      const copies = Array.from({ length: BATCH }, () => structuredClone(schema));
      const start = cpuMs();
      for (const c of copies) if (!compileSchema(c).ok) throw new Error(`generated ${name} refused`);
      if (r >= 2) times[name]!.push(((cpuMs() - start) * 1000) / BATCH);
    }
  }
  const inUs = median(times.inputs_schema!);
  const outUs = median(times.output_contract!);
  console.log(`\n## daemon start-up: generated recipe schemas (bench/lib/generate.ts recipeYaml)`);
  console.log(
    `compile µs/schema: inputs_schema ${inUs.toFixed(2)}, output_contract ${outUs.toFixed(2)}; ` +
      `40,000 schemas (1,000 skills x 20 recipes, both fields) ≈ ${Math.round(20_000 * (inUs + outUs) / 1000)} ms`,
  );
}

function patternScenario(): Scenario {
  const { schema, valid, invalid } = patternHeavy();
  return { name: "pattern-heavy (20 items x 8 patterns + patternProperties)", schemas: [schema], valid: [valid], invalid: [invalid] };
}

/**
 * The ReDoS probes: ms per validation on ours (a backtracking engine took 2.7 s to 251 s),
 * and the fan-out probe's time to the step budget's error (6.3 s / 11.9 s before).
 */
function probes(): void {
  const cases: Array<[string, string]> = [
    ["a*a*a*a*a*b", "a".repeat(200)],
    ["\\s+$", `${" ".repeat(100_000)}x`],
    ["^\\S+@\\S+\\.\\S+$", "a".repeat(100_000)],
    ["^\\d*\\d*\\d*\\d*x$", "1".repeat(1000)],
  ];
  console.log("\n## ReDoS probes (ours, ms per validation, median of 5, compiled once)");
  for (const [pattern, s] of cases) {
    const r = compileSchema({ pattern });
    if (!r.ok) throw new Error(`refused ${pattern}`);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      if (r.validator.validate(s).valid) throw new Error(`${pattern} matched`);
      times.push(performance.now() - start);
    }
    console.log(`${JSON.stringify(pattern).padEnd(24)} on ${s.length.toLocaleString("en")} chars: ${median(times).toFixed(2)} ms`);
  }
  // The fan-out row: $defs l0…l27, each keyword [{$ref l(i+1)} x2], validating {}.
  for (const keyword of ["allOf", "anyOf"]) {
    const defs: Record<string, unknown> = {};
    for (let i = 0; i < 28; i++) defs[`l${i}`] = { [keyword]: [{ $ref: `#/$defs/l${i + 1}` }, { $ref: `#/$defs/l${i + 1}` }] };
    defs.l28 = keyword === "anyOf" ? false : {};
    const r = compileSchema({ $ref: "#/$defs/l0", $defs: defs });
    if (!r.ok) throw new Error("fan-out refused");
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      if (r.validator.validate({}).errors[0]?.keyword !== "maxSteps") throw new Error("no maxSteps error");
      times.push(performance.now() - start);
    }
    console.log(`$defs l0…l27 ${keyword} [{$ref}, {$ref}] on {}: maxSteps error in ${median(times).toFixed(1)} ms (every error)`);
  }
}

const scenarios = [recipeScenario(), realPackScenario(), patternScenario()].filter((s): s is Scenario => s !== null);
console.log(
  `node ${process.version}; ajv 8 (Ajv2020, allErrors false), @cfworker/json-schema (shortCircuit), ours (first error) and ours-all (every error)` +
    `${peerCompile === null ? "" : ", peer (--peer copy, first error)"}; median of interleaved slices`,
);
for (const s of scenarios) report(s, run(s));
startupCompile();
probes();
