/**
 * Validator vs ajv per schema, in both modes: first error (ours
 * `allErrors: false` against Ajv2020 `allErrors: false`) and every error (ours, the default
 * validateRecipeInputs uses, against Ajv2020 `allErrors: true`), on valid and invalid data,
 * plus the compile ratio. Each row is one schema; the two sides of a mode alternate in
 * slices of CPU time in the same run, and each figure is the median slice.
 *
 * Two sets, kept apart so the figures that judge cannot be tuned to:
 *  - tuning: bench/fixtures/jsonschema/tuning/*.json, the realistic recipe fixture, the
 *    pattern-heavy scenario, and the real packs' inputs_schema / output_contract
 *    (../shared/data/real-skills, read in place);
 *  - held-out: bench/fixtures/jsonschema/heldout/*.json (scatter, render, retarget recipes),
 *    written before any tuning and only ever measured.
 * A fixture file is { schema, valid: [...], invalid: [...] }; a row's throughput is over all
 * of its instances of that label. Target: every ratio >= 0.5x, held-out included.
 *
 *   npx tsx bench/jsonschema-set.ts [--set heldout|tuning] [--only NAME] [--slice MS] [--rounds N]
 *   npx tsx bench/jsonschema-set.ts --peer DIR   (adds a column: this tree vs DIR/src/jsonschema, first error)
 *   npx tsx bench/jsonschema-set.ts --ours DIR   (DIR/src/jsonschema measured as "ours": the before figures)
 * where DIR is e.g. `git archive <commit> src/jsonschema | tar -x -C DIR` (with node_modules
 * reachable from DIR for re2js).
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { compileSchema } from "../src/jsonschema/index.js";
import { patternHeavy, realPackSchemas } from "./jsonschema-instances.js";

const { values: flags } = parseArgs({
  options: {
    set: { type: "string" },
    only: { type: "string" },
    slice: { type: "string", default: "25" },
    rounds: { type: "string", default: "7" },
    peer: { type: "string" },
    ours: { type: "string" },
  },
});
const SLICE_MS = Number(flags.slice);
const ROUNDS = Number(flags.rounds);

const repoRoot = path.resolve(import.meta.dirname, "..");
const fixtures = path.join(repoRoot, "bench/fixtures/jsonschema");
const realSkills = path.resolve(repoRoot, "../shared/data/real-skills");

interface Case {
  readonly set: "tuning" | "held-out";
  readonly name: string;
  readonly schema: unknown;
  readonly valid: readonly unknown[];
  readonly invalid: readonly unknown[];
}

type Run = (x: unknown) => unknown;
type CompileFn = typeof compileSchema;

/** `--ours DIR`: measure DIR/src/jsonschema as "ours" (a before figure from an older tree, same bench). */
const oursCompile: CompileFn =
  flags.ours === undefined
    ? compileSchema
    : ((await import(pathToFileURL(path.resolve(flags.ours, "src/jsonschema/index.ts")).href)) as { compileSchema: CompileFn }).compileSchema;

const peerCompile: CompileFn | null =
  flags.peer === undefined
    ? null
    : ((await import(pathToFileURL(path.resolve(flags.peer, "src/jsonschema/index.ts")).href)) as { compileSchema: CompileFn }).compileSchema;

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Validations per CPU second over one slice. */
function slice(run: Run, data: readonly unknown[]): number {
  let n = 0;
  const start = cpuMs();
  let now = start;
  while (now - start < SLICE_MS) {
    for (let r = 0; r < 20; r++) for (let i = 0; i < data.length; i++) run(data[i]);
    n += 20 * data.length;
    now = cpuMs();
  }
  return (n * 1000) / (now - start);
}

function ours(schema: unknown, allErrors: boolean, compile: CompileFn = oursCompile): Run {
  const r = compile(schema, { allErrors });
  if (!r.ok) throw new Error(`refused: ${r.error.code} ${r.error.message} at ${r.error.schemaPath}`);
  const v = r.validator;
  // Reads the errors as a caller does, so neither side can skip building them.
  return (x) => v.validate(x).errors.length;
}

function ajvRun(ajv: Ajv2020, schema: unknown): Run {
  const f = ajv.compile(structuredClone(schema) as object);
  return (x) => (f(x) ? 0 : f.errors!.length);
}

/** Median µs per compile of fresh copies, ours and ajv alternating. */
function compileRatio(schema: unknown): { ours: number; ajv: number } {
  const samples = { ours: [] as number[], ajv: [] as number[] };
  const BATCH = 20;
  for (let r = 0; r < 5; r++) {
    let copies = Array.from({ length: BATCH }, () => structuredClone(schema));
    let start = cpuMs();
    for (const c of copies) oursCompile(c);
    samples.ours.push(((cpuMs() - start) * 1000) / BATCH);
    copies = Array.from({ length: BATCH }, () => structuredClone(schema));
    // A fresh instance per batch: ajv caches compiled schemas by identity and by serialisation.
    const ajv = new Ajv2020({ strict: false });
    start = cpuMs();
    for (const c of copies) ajv.compile(c as object);
    samples.ajv.push(((cpuMs() - start) * 1000) / BATCH);
  }
  return { ours: median(samples.ours), ajv: median(samples.ajv) };
}

interface Row {
  readonly c: Case;
  readonly ratios: Record<string, number>;
  readonly compile: number;
}

function measure(c: Case): Row {
  const first = new Ajv2020({ strict: false, allErrors: false });
  const all = new Ajv2020({ strict: false, allErrors: true });
  const runs: Record<string, Run> = {
    ours1: ours(c.schema, false),
    ajv1: ajvRun(first, c.schema),
    oursAll: ours(c.schema, true),
    ajvAll: ajvRun(all, c.schema),
  };
  if (peerCompile !== null) runs.peer1 = ours(c.schema, false, peerCompile);
  // Every side must agree with the labels before it is timed.
  for (const [name, run] of Object.entries(runs)) {
    c.valid.forEach((x, i) => {
      if (run(x) !== 0) throw new Error(`${name} rejects valid instance ${i} of ${c.name}`);
    });
    c.invalid.forEach((x, i) => {
      if (run(x) === 0) throw new Error(`${name} accepts invalid instance ${i} of ${c.name}`);
    });
    for (let w = 0; w < 300; w++) for (const x of [...c.valid, ...c.invalid]) run(x);
  }
  const samples: Record<string, number[]> = {};
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, run] of Object.entries(runs)) {
      for (const [label, data] of [["valid", c.valid], ["invalid", c.invalid]] as const) {
        (samples[`${name}:${label}`] ??= []).push(slice(run, data));
      }
    }
  }
  const ops = (k: string): number => median(samples[k]!);
  const ratios: Record<string, number> = {};
  for (const label of ["valid", "invalid"]) {
    ratios[`first ${label}`] = ops(`ours1:${label}`) / ops(`ajv1:${label}`);
    ratios[`all ${label}`] = ops(`oursAll:${label}`) / ops(`ajvAll:${label}`);
    if (peerCompile !== null) ratios[`peer ${label}`] = ops(`ours1:${label}`) / ops(`peer1:${label}`);
  }
  const comp = compileRatio(c.schema);
  return { c, ratios, compile: comp.ajv / comp.ours };
}

function readFixtures(dir: string, set: Case["set"]): Case[] {
  return fs
    .readdirSync(path.join(fixtures, dir))
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => {
      const x = JSON.parse(fs.readFileSync(path.join(fixtures, dir, f), "utf8")) as { schema: unknown; valid: unknown[]; invalid: unknown[] };
      return { set, name: `${dir}/${f.replace(/\.json$/, "")}`, schema: x.schema, valid: x.valid, invalid: x.invalid };
    });
}

function readJson(file: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(fixtures, file), "utf8"));
}

/** The pattern-heavy scenario bench/jsonschema.ts also runs: 20 items x 8 patterns + patternProperties. */
function patternCase(): Case {
  const { schema, valid, invalid } = patternHeavy();
  return { set: "tuning", name: "pattern-heavy", schema, valid: [valid], invalid: [invalid] };
}

function cases(): Case[] {
  const tuning: Case[] = [
    {
      set: "tuning",
      name: "recipe-inputs",
      schema: readJson("recipe-inputs.schema.json"),
      valid: [readJson("recipe-inputs.valid.json")],
      invalid: [readJson("recipe-inputs.invalid.json")],
    },
    ...readFixtures("tuning", "tuning"),
    patternCase(),
    ...(realPackSchemas(realSkills) ?? []).map((p): Case => ({ set: "tuning", name: p.name, schema: p.schema, valid: [p.valid], invalid: [p.invalid] })),
  ];
  const all = [...tuning, ...readFixtures("heldout", "held-out")];
  return all.filter((c) => (flags.set === undefined || c.set.replace("-", "") === flags.set.replace("-", "")) && (flags.only === undefined || c.name.includes(flags.only)));
}

const x = (r: number): string => `${r.toFixed(2)}x`.padStart(7);
const columns = ["first valid", "first invalid", "all valid", "all invalid", ...(peerCompile === null ? [] : ["peer valid", "peer invalid"])];
console.log(
  `${flags.ours === undefined ? "" : `ours = ${flags.ours}; `}node ${process.version}; ours / Ajv2020 throughput, same run, alternating ${SLICE_MS} ms CPU slices, median of ${ROUNDS}; ` +
    `first = allErrors false on both, all = allErrors true on both; compile = ajv µs / ours µs${peerCompile === null ? "" : "; peer = this tree / --peer, first error"}`,
);
console.log(`${"set".padEnd(9)}${"schema".padEnd(36)}${columns.map((c) => c.padStart(14)).join("")}${"compile".padStart(10)}`);
const rows: Row[] = [];
for (const c of cases()) {
  const row = measure(c);
  rows.push(row);
  console.log(`${c.set.padEnd(9)}${c.name.padEnd(36)}${columns.map((k) => x(row.ratios[k]!).padStart(14)).join("")}${x(row.compile).padStart(10)}`);
}
for (const set of ["tuning", "held-out"]) {
  const mine = rows.filter((r) => r.c.set === set);
  if (mine.length === 0) continue;
  const worst = columns.map((k) => Math.min(...mine.map((r) => r.ratios[k]!)));
  const geo = columns.map((k) => Math.exp(mine.reduce((s, r) => s + Math.log(r.ratios[k]!), 0) / mine.length));
  console.log(`${set.padEnd(9)}${"(lowest)".padEnd(36)}${worst.map((r) => x(r).padStart(14)).join("")}`);
  console.log(`${set.padEnd(9)}${"(geometric mean)".padEnd(36)}${geo.map((r) => x(r).padStart(14)).join("")}`);
}
