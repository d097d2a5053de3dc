/**
 * The generated fast paths (generated.ts: properties-fast, items-fast, presence, leaf
 * source): names and literals from a schema are data, never code; a process that may not
 * generate code falls back to the closures with the same answers; schemas past the
 * generated sizes keep the closure loops with the same answers.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { compileSchema } from "../../src/jsonschema/index.js";
import type { ValidationResult } from "../../src/jsonschema/index.js";
import { childPointer } from "../../src/jsonschema/pointer.js";
import { readGroups, suiteDir, suiteFiles } from "./suite-files.js";
import { requireShared } from "../helpers/shared.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const fixture = fileURLToPath(new URL("./fixtures/validate-batch.ts", import.meta.url));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rs-generated-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Names that would be code, or clash with the generated functions' own identifiers, if pasted unquoted. */
const HOSTILE_NAMES = [
  `"; globalThis.__pwned = 1; "`,
  `'); globalThis.__pwned = 1; ('`,
  "`${globalThis.__pwned = 1}`",
  "*/ globalThis.__pwned = 1; /*",
  "a\\",
  "line\nbreak",
  "sep\u2028arator\u2029",
  "lone\uD800surrogate",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "k0",
  "consts",
  "v",
  "st",
  "o",
  "key",
  "count",
  "default",
  "",
];

/** Generated from the first validation on (generateAfter 0), so every test here runs the generated code. */
function validator(schema: unknown, allErrors: boolean) {
  const r = compileSchema(schema, { allErrors, generateAfter: 0 });
  if (!r.ok) throw new Error(`refused: ${r.error.code} ${r.error.message}`);
  return r.validator;
}

describe("generated fast paths: a schema's names and literals stay data", () => {
  const schema = {
    type: "object",
    required: HOSTILE_NAMES,
    properties: Object.fromEntries(HOSTILE_NAMES.map((n) => [n, { type: "string", maxLength: 3, enum: ["ok", n.slice(0, 3)] }])),
    additionalProperties: false,
  };
  const good = (): Record<string, unknown> => {
    const o: Record<string, unknown> = {};
    // defineProperty: an own `__proto__` member, as JSON.parse makes it.
    for (const n of HOSTILE_NAMES) Object.defineProperty(o, n, { value: "ok", enumerable: true, writable: true, configurable: true });
    return o;
  };

  it("accepts the instance holding every name and runs none of them", () => {
    for (const allErrors of [false, true]) expect(validator(schema, allErrors).validate(good()).valid).toBe(true);
    expect((globalThis as Record<string, unknown>).__pwned).toBeUndefined();
  });

  it("reports each missing name and each bad member by its own name, in both modes", () => {
    const first = validator(schema, false);
    const all = validator(schema, true);
    for (const n of HOSTILE_NAMES) {
      const missing = good();
      delete missing[n];
      expect(first.validate(missing).errors).toEqual([
        { instancePath: "", keywordLocation: "/required", keyword: "required", message: `Missing required property: ${n}` },
      ]);
      const wrong = good();
      Object.defineProperty(wrong, n, { value: 5, enumerable: true, writable: true, configurable: true });
      const r = first.validate(wrong);
      expect(r.valid).toBe(false);
      expect(r.errors[0]!.instancePath).toBe(childPointer("", n));
      expect(r.errors[0]).toEqual(all.validate(wrong).errors[0]);
    }
    expect((globalThis as Record<string, unknown>).__pwned).toBeUndefined();
  });

  it("compares enum members and bounds as the values they are", () => {
    const s = {
      type: "object",
      properties: {
        e: { enum: [`"; globalThis.__pwned = 1; "`, "a\u2028b", 1, -0, 1e308, 5e-324, true, null] },
        n: { type: "number", minimum: -0, exclusiveMaximum: 1e308, multipleOf: 0.5 },
        i: { type: "integer", exclusiveMinimum: -1, maximum: 9007199254740991 },
        big: { enum: Array.from({ length: 20 }, (_, i) => `v${i}`) },
      },
    };
    const v = validator(s, false);
    const pass = [`"; globalThis.__pwned = 1; "`, "a\u2028b", 1, 1.0, 0, -0, 1e308, 5e-324, true, null];
    for (const e of pass) expect(v.validate({ e }).valid, String(e)).toBe(true);
    for (const e of ["1", 2, false, "a\u2029b", 1e307, {}, []]) expect(v.validate({ e }).valid, JSON.stringify(e)).toBe(false);
    expect(v.validate({ n: 0, i: 0, big: "v19" }).valid).toBe(true);
    expect(v.validate({ n: -0.5 }).valid).toBe(false);
    expect(v.validate({ n: 1e308 }).valid).toBe(false);
    expect(v.validate({ i: -1 }).valid).toBe(false);
    expect(v.validate({ i: 9007199254740992 }).valid).toBe(false);
    expect(v.validate({ big: "v20" }).valid).toBe(false);
    expect((globalThis as Record<string, unknown>).__pwned).toBeUndefined();
  });
});

describe("required with thousands of names (regression: a nested generated ternary overflowed the parser's stack)", () => {
  it("accepts an object holding all 9,000 required names and names the first missing one, in both modes", () => {
    const names = Array.from({ length: 9000 }, (_, i) => `p${i}`);
    const schema = { type: "object", required: names };
    const full: Record<string, unknown> = Object.fromEntries(names.map((n) => [n, 1]));
    const lacking = { ...full };
    delete lacking.p8999;
    for (const allErrors of [false, true]) {
      const v = validator(schema, allErrors);
      for (let i = 0; i < 3; i++) expect(v.validate(full)).toEqual({ valid: true, errors: [] });
      expect(v.validate(lacking).errors).toEqual([
        { instancePath: "", keywordLocation: "/required", keyword: "required", message: "Missing required property: p8999" },
      ]);
    }
  });

  it("a list under the generated size answers the same, generated or not", () => {
    const names = Array.from({ length: 200 }, (_, i) => `q${i}`);
    const full = Object.fromEntries(names.map((n) => [n, 1]));
    for (const generateAfter of [0, Infinity]) {
      const r = compileSchema({ required: names }, { allErrors: false, generateAfter });
      if (!r.ok) throw new Error("refused");
      expect(r.validator.validate(full).valid).toBe(true);
      for (const gone of ["q0", "q100", "q199"]) {
        const x = { ...full };
        delete x[gone];
        expect(r.validator.validate(x).errors[0]!.message).toBe(`Missing required property: ${gone}`);
      }
    }
  });
});

describe("schemas past the generated sizes keep the closure loops", () => {
  it("40 declared names and a 20-item prefix: same answers and first errors as the collecting pass", () => {
    const names = Array.from({ length: 40 }, (_, i) => `p${i}`);
    const s = {
      type: "object",
      required: ["p0", "p39"],
      properties: {
        ...Object.fromEntries(names.map((n) => [n, { type: "integer", minimum: 0 }])),
        tuple: { type: "array", prefixItems: Array.from({ length: 20 }, () => ({ type: "string" })), items: false },
      },
      additionalProperties: false,
    };
    const first = validator(s, false);
    const all = validator(s, true);
    const base = Object.fromEntries(names.map((n, i) => [n, i]));
    const cases: unknown[] = [
      base,
      { ...base, p20: -1 },
      { ...base, extra: 1 },
      { p1: 1 },
      { ...base, tuple: Array.from({ length: 20 }, () => "s") },
      { ...base, tuple: Array.from({ length: 21 }, () => "s") },
      { ...base, tuple: ["s", 1] },
    ];
    const verdicts = cases.map((x) => first.validate(x).valid);
    expect(verdicts).toEqual([true, false, false, false, true, false, false]);
    for (const x of cases) {
      const a = all.validate(x);
      const f = first.validate(x);
      expect(f.valid).toBe(a.valid);
      if (!f.valid) expect(f.errors).toEqual([a.errors[0]]);
    }
  });
});

/** Answers of a child process started with --disallow-code-generation-from-strings. */
function childAnswers(batchFile: string): Promise<{ codegen: boolean; answers: (ValidationResult[][] | null)[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--disallow-code-generation-from-strings", "--import", "tsx", fixture, batchFile], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`child exited ${code}: ${err}`));
      else resolve(JSON.parse(out) as { codegen: boolean; answers: (ValidationResult[][] | null)[] });
    });
  });
}

describe("without code generation from strings", () => {
  // Without the suite the closure fallback runs on this file's own schemas only.
  const suiteExists = requireShared(suiteDir, "the JSON-Schema-Test-Suite's schemas in the closure-fallback comparison");

  it("every schema gets the answers it gets with generated code, in both modes", async () => {
    const batches: { schema: unknown; instances: unknown[] }[] = [];
    for (const file of suiteFiles()) {
      for (const g of readGroups(file)) batches.push({ schema: g.schema, instances: g.tests.map((t) => t.data) });
    }
    batches.push({
      schema: { type: "object", required: HOSTILE_NAMES, properties: Object.fromEntries(HOSTILE_NAMES.map((n) => [n, { const: n }])) },
      instances: [Object.fromEntries(HOSTILE_NAMES.map((n) => [n, n])), {}, { [HOSTILE_NAMES[0]!]: 1 }],
    });
    const file = path.join(tmp, "batches.json");
    fs.writeFileSync(file, JSON.stringify(batches));
    const child = await childAnswers(file);
    expect(child.codegen).toBe(false);
    let compared = 0;
    batches.forEach(({ schema, instances }, b) => {
      const first = compileSchema(schema, { allErrors: false, generateAfter: 0 });
      const all = compileSchema(schema, { generateAfter: 0 });
      if (!first.ok || !all.ok) {
        expect(child.answers[b]).toBeNull();
        return;
      }
      const here = instances.map((x) => [first.validator.validate(x), all.validator.validate(x)]);
      // JSON round trip: the child's answers came through JSON too.
      expect(child.answers[b]).toEqual(JSON.parse(JSON.stringify(here)));
      compared += instances.length;
    });
    expect(compared).toBeGreaterThan(suiteExists ? 1000 : 2);
  }, 60_000);
});
