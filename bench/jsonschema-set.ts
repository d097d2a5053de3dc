/**
 * Validator vs ajv per schema, in both modes: first error (ours
 * `allErrors: false` against Ajv2020 `allErrors: false`) and every error (ours, the default
 * validateRecipeInputs uses, against Ajv2020 `allErrors: true`), on valid and invalid data,
 * plus the compile ratio. Each row is one schema and gives its ratio in all four cells.
 *
 * How it measures, so that both sides run the code they would run in steady use:
 *  - warm-up: before any timing, every side validates every instance at least WARM_USES
 *    times and for at least --warm ms of CPU. Our validator generates code for a schema
 *    object after its 8th use (GENERATE_AFTER, src/jsonschema/generated.ts), ajv compiles
 *    to code up front; past the warm-up both sides run generated code that V8 has had time
 *    to optimise, and no slice measures the switch;
 *  - each side times its instances in a loop of its own (a function built per side, so
 *    the call site that runs the validator is monomorphic for both), over CPU time;
 *  - a round is one slice of ours and one of ajv back to back for each cell, the order
 *    swapped every round (ABBA) so drift in host load falls on both sides alike. No forced
 *    garbage collection between slices: a full collection ages code out (ajv's validate fell
 *    from ~350k to ~70k validations/s in the slice after one, then recovered), which would
 *    measure re-warming instead of validating;
 *  - a cell is the median over rounds of the round's ratio, printed with the lowest and
 *    highest round ("0.62 0.55-0.70"); the geometric-mean rows give the median of the
 *    per-round geometric means and their range.
 *
 * Two sets, kept apart so the figures that judge cannot be tuned to:
 *  - tuning: bench/fixtures/jsonschema/tuning/*.json, the realistic recipe fixture, the
 *    pattern-heavy scenario, and the real packs' inputs_schema / output_contract
 *    (../shared/data/real-skills, read in place);
 *  - held-out: bench/fixtures/jsonschema/heldout/*.json (scatter, render, retarget, light-rig,
 *    publish-review recipes), written before any tuning on them and only ever measured.
 * A fixture file is { schema, valid: [...], invalid: [...] }; a cell's throughput is over all
 * of the row's instances of that label. Target: every ratio >= 0.5x, held-out included.
 *
 *   npx tsx bench/jsonschema-set.ts [--set heldout|tuning] [--only NAME] [--slice MS] [--rounds N] [--warm MS]
 *   … --peer DIR   (adds a column: this tree vs DIR/src/jsonschema, first error)
 *   … --raw        (prints each slice's validations per second)
 *   … --ours DIR   (DIR/src/jsonschema measured as "ours": the before figures)
 * where DIR is e.g. `git archive <commit> src/jsonschema | tar -x -C DIR` (with node_modules
 * reachable from DIR for re2js).
 */
import fs from "node:fs";
import os from "node:os";
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
    slice: { type: "string", default: "60" },
    rounds: { type: "string", default: "15" },
    warm: { type: "string", default: "300" },
    peer: { type: "string" },
    ours: { type: "string" },
    raw: { type: "boolean", default: false },
  },
});
const SLICE_MS = Number(flags.slice);
const ROUNDS = Number(flags.rounds);
const WARM_MS = Number(flags.warm);
/** Uses of every instance before timing: well past GENERATE_AFTER (8) for every schema object reached. */
const WARM_USES = 200;

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
/** Validations of `data` per CPU second over one slice of `ms`. */
type Timer = (run: Run, data: readonly unknown[], ms: number, clock: () => number) => number;

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

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/**
 * A timing loop of its own for one side: built from source so each side's call of its
 * validator has its own type feedback (one shared loop would see every side's function
 * and charge both for a polymorphic call).
 */
function makeTimer(): Timer {
  return new Function(
    "run",
    "data",
    "ms",
    "clock",
    `let n = 0;
     const start = clock();
     let now = start;
     while (now - start < ms) {
       for (let r = 0; r < 20; r++) for (let i = 0; i < data.length; i++) run(data[i]);
       n += 20 * data.length;
       now = clock();
     }
     return (n * 1000) / (now - start);`,
  ) as Timer;
}

interface Side {
  readonly run: Run;
  readonly timer: Timer;
}

function side(run: Run): Side {
  return { run, timer: makeTimer() };
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

/** A cell: which two sides it compares (numerator / denominator) on which label. */
interface Cell {
  readonly key: string;
  readonly a: string;
  readonly b: string;
  readonly label: "valid" | "invalid";
}

const CELLS: readonly Cell[] = [
  { key: "first valid", a: "ours1", b: "ajv1", label: "valid" },
  { key: "first invalid", a: "ours1", b: "ajv1", label: "invalid" },
  { key: "all valid", a: "oursAll", b: "ajvAll", label: "valid" },
  { key: "all invalid", a: "oursAll", b: "ajvAll", label: "invalid" },
  ...(peerCompile === null
    ? []
    : ([
        { key: "peer valid", a: "ours1", b: "peer1", label: "valid" },
        { key: "peer invalid", a: "ours1", b: "peer1", label: "invalid" },
      ] as const)),
];

interface Row {
  readonly c: Case;
  /** Per cell, the ratio of each round. */
  readonly rounds: Record<string, number[]>;
  readonly compile: number;
}

function warm(s: Side, data: readonly unknown[]): void {
  const start = cpuMs();
  for (let u = 0; u < WARM_USES || cpuMs() - start < WARM_MS; u++) for (const x of data) s.run(x);
}

function measure(c: Case): Row {
  const first = new Ajv2020({ strict: false, allErrors: false });
  const all = new Ajv2020({ strict: false, allErrors: true });
  const sides: Record<string, Side> = {
    ours1: side(ours(c.schema, false)),
    ajv1: side(ajvRun(first, c.schema)),
    oursAll: side(ours(c.schema, true)),
    ajvAll: side(ajvRun(all, c.schema)),
  };
  if (peerCompile !== null) sides.peer1 = side(ours(c.schema, false, peerCompile));
  // Every side must agree with the labels before it is timed.
  for (const [name, { run }] of Object.entries(sides)) {
    c.valid.forEach((x, i) => {
      if (run(x) !== 0) throw new Error(`${name} rejects valid instance ${i} of ${c.name}`);
    });
    c.invalid.forEach((x, i) => {
      if (run(x) === 0) throw new Error(`${name} accepts invalid instance ${i} of ${c.name}`);
    });
  }
  for (const s of Object.values(sides)) warm(s, [...c.valid, ...c.invalid]);
  const time = (name: string, data: readonly unknown[]): number => {
    const s = sides[name]!;
    return s.timer(s.run, data, SLICE_MS, cpuMs);
  };
  const rounds: Record<string, number[]> = {};
  for (let r = 0; r < ROUNDS; r++) {
    for (const cell of CELLS) {
      const data = cell.label === "valid" ? c.valid : c.invalid;
      let a: number;
      let b: number;
      if (r % 2 === 0) {
        a = time(cell.a, data);
        b = time(cell.b, data);
      } else {
        b = time(cell.b, data);
        a = time(cell.a, data);
      }
      (rounds[cell.key] ??= []).push(a / b);
      if (flags.raw) console.log(`  ${c.name} round ${r} ${cell.key}: ${cell.a} ${Math.round(a)}/s, ${cell.b} ${Math.round(b)}/s`);
    }
  }
  const comp = compileRatio(c.schema);
  return { c, rounds, compile: comp.ajv / comp.ours };
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

const x = (r: number): string => r.toFixed(2);
const spread = (xs: readonly number[]): string =>
  `${x(median(xs))} ${x(Math.min(...xs))}-${x(Math.max(...xs))}`.padStart(17);
console.log(
  `${flags.ours === undefined ? "" : `ours = ${flags.ours}; `}node ${process.version}; ours / Ajv2020 throughput; both sides warmed past code generation ` +
    `(>= ${WARM_USES} uses of every instance and >= ${WARM_MS} ms CPU each); ${ROUNDS} rounds of ${SLICE_MS} ms CPU slices, ours and ajv back to back, ` +
    `order swapped every round; cell = median round ratio, lowest-highest round; ` +
    `first = allErrors false on both, all = allErrors true on both; compile = ajv µs / ours µs${peerCompile === null ? "" : "; peer = this tree / --peer, first error"}; ` +
    `load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")} at start`,
);
console.log(`${"set".padEnd(9)}${"schema".padEnd(30)}${CELLS.map((c) => c.key.padStart(17)).join("")}${"compile".padStart(9)}`);
const rows: Row[] = [];
for (const c of cases()) {
  const row = measure(c);
  rows.push(row);
  console.log(`${c.set.padEnd(9)}${c.name.padEnd(30)}${CELLS.map((k) => spread(row.rounds[k.key]!)).join("")}${x(row.compile).padStart(9)}`);
}
for (const set of ["tuning", "held-out"]) {
  const mine = rows.filter((r) => r.c.set === set);
  if (mine.length === 0) continue;
  const lowest = CELLS.map((k) => Math.min(...mine.map((r) => median(r.rounds[k.key]!))));
  // Per round, the geometric mean over the set's schemas: its spread is the bench's own noise.
  const geo = CELLS.map((k) =>
    Array.from({ length: ROUNDS }, (_, i) => Math.exp(mine.reduce((s, r) => s + Math.log(r.rounds[k.key]![i]!), 0) / mine.length)),
  );
  console.log(`${set.padEnd(9)}${"(lowest median)".padEnd(30)}${lowest.map((r) => x(r).padStart(17)).join("")}`);
  console.log(`${set.padEnd(9)}${"(geometric mean)".padEnd(30)}${geo.map((g) => spread(g)).join("")}`);
}
console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")} at end`);
