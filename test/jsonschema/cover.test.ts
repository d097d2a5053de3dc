/**
 * cover.ts: when the fast pass stands in for the instance walk, the instance limits must
 * answer exactly as the walk does (limits.test.ts has the fixed cases).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/jsonschema/index.js";
import { compileGraph } from "../../src/jsonschema/compile.js";
import { coverOf } from "../../src/jsonschema/cover.js";
import { measure } from "../../src/jsonschema/limits.js";
import { FAST_PATHS } from "./helpers.js";

const KEYS = ["a", "b", "c"];

const scalarSchema = fc.oneof(
  fc.constantFrom({ type: "string" }, { type: "number" }, { type: ["integer", "null"] }, { enum: [1, "a", null] }, { const: 2 }),
  fc.constant({}),
  fc.constant(true),
  fc.constant(false),
);

/** Schemas built from the shapes cover.ts reasons about, with plenty that do not cover. */
const { schema } = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalarSchema,
    fc.record(
      {
        type: fc.constantFrom("object", ["object", "null"], undefined),
        properties: fc.dictionary(fc.constantFrom(...KEYS), tie("schema"), { maxKeys: 3 }),
        additionalProperties: fc.oneof(fc.constant(undefined), fc.constant(false), tie("schema")),
        required: fc.constantFrom(undefined, ["a"]),
      },
      { requiredKeys: ["properties"] },
    ),
    fc.record(
      {
        type: fc.constantFrom("array", undefined),
        items: fc.oneof(fc.constant(undefined), fc.constant(false), tie("schema")),
        prefixItems: fc.array(tie("schema"), { minLength: 1, maxLength: 2 }),
      },
      { requiredKeys: [] },
    ),
    fc.record({ allOf: fc.array(tie("schema"), { minLength: 1, maxLength: 2 }) }),
    fc.record({ anyOf: fc.array(tie("schema"), { minLength: 1, maxLength: 2 }) }),
    fc.record({ oneOf: fc.array(tie("schema"), { minLength: 1, maxLength: 2 }) }),
    fc.constantFrom({ $ref: "#/$defs/closed" }, { $ref: "#/$defs/list" }, { $ref: "#" }),
  ),
}));

const DEFS = {
  closed: { type: "object", properties: { a: { type: "number" }, b: { $ref: "#/$defs/list" } }, additionalProperties: false },
  list: { type: "array", items: { type: ["number", "array"] } },
};

const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(null, 1, 2, "a", true),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...KEYS, "d"), tie("value"), { maxKeys: 4 }),
  ),
}));
/** Values nested up to 8 more levels (under arrays or key "a"), to cross the depth limit. */
const instance = fc
  .tuple(fc.oneof(value, fc.array(value, { maxLength: 60 })), fc.array(fc.boolean(), { maxLength: 8 }))
  .map(([v, wraps]) => wraps.reduce<unknown>((inner, asArray) => (asArray ? [inner] : { a: inner }), v))
  .map((v) => JSON.parse(JSON.stringify(v)) as unknown);

const LIMITS = { maxDepth: 7, maxNodes: 50 };

function strip(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(strip);
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined).map(([k, x]) => [k, strip(x)]));
  }
  return v;
}

describe("fast pass in place of the instance walk", () => {
  it.each(FAST_PATHS)("gives the walk's answer on small limits (random schemas, 7 levels, 50 nodes), $mode", ({ generateAfter }) => {
    let trusted = 0;
    let faults = 0;
    let limitFirst = 0;
    let schemaFirst = 0;
    fc.assert(
      fc.property(schema, fc.array(instance, { minLength: 1, maxLength: 5 }), (raw, xs) => {
        const s = strip(raw);
        const root = typeof s === "boolean" ? s : { ...(s as object), $defs: DEFS };
        const limited = compileSchema(root, { ...LIMITS, allErrors: false, generateAfter });
        // The schema itself must fit the small limits too.
        fc.pre(limited.ok);
        const big = compileSchema(root, { allErrors: false, generateAfter });
        if (!limited.ok || !big.ok) throw new Error("refused");
        for (const x of xs) {
          const fault = measure(x, LIMITS.maxDepth, LIMITS.maxNodes, false);
          const r = limited.validator.validate(x);
          const where = JSON.stringify({ schema: root, instance: x });
          if (fault !== null) {
            faults++;
            expect(r.valid, where).toBe(false);
            // First-error mode reports the first failure it meets: the limit, or a schema
            // error the fast pass traced before it (then exactly the unlimited answer).
            if (r.errors[0]!.keyword === (fault === "too_deep" ? "maxDepth" : "maxNodes")) limitFirst++;
            else {
              schemaFirst++;
              expect(r, where).toEqual(big.validator.validate(x));
            }
          } else {
            expect(r.valid, where).toBe(big.validator.validate(x).valid);
          }
        }
        const g = compileGraph(root, LIMITS);
        if (g.ok && coverOf(g.root) >= 0) trusted++;
      }),
      { numRuns: 400, seed: 42, maxSkipsPerRun: 1000 },
    );
    console.log(`cover: ${trusted} schemas covered, ${faults} instances past a limit (${limitFirst} limit errors, ${schemaFirst} schema errors first)`);
    expect(trusted).toBeGreaterThan(100);
    expect(faults).toBeGreaterThan(100);
    expect(limitFirst).toBeGreaterThan(20);
    expect(schemaFirst).toBeGreaterThan(20);
  });

  it("reports a schema error met before the limits without walking the instance (first-error mode)", () => {
    // Regression guard for the invalid-instance fast path: a traced failure is returned as
    // found; the same instance in all-errors mode still gets the limit error first.
    const schema = { type: "array", items: { type: "number" } };
    const first = compileSchema(schema, { maxNodes: 10, allErrors: false });
    const all = compileSchema(schema, { maxNodes: 10 });
    if (!first.ok || !all.ok) throw new Error("refused");
    const tooMany = Array.from({ length: 12 }, (_, i) => i);
    expect(first.validator.validate(tooMany).errors[0]!.keyword).toBe("maxNodes");
    const badFirst = ["x", ...tooMany];
    expect(first.validator.validate(badFirst)).toEqual({
      valid: false,
      errors: [{ instancePath: "/0", keywordLocation: "/items/type", keyword: "type", message: "Expected type number, got string" }],
    });
    expect(all.validator.validate(badFirst).errors).toEqual([
      { instancePath: "", keywordLocation: "", keyword: "maxNodes", message: "Value has more than 10 nodes" },
    ]);
  });

  it("counts nodes exactly at the limit for a covered array", () => {
    const r = compileSchema({ type: "array", items: { type: "number" } });
    if (!r.ok) throw new Error("refused");
    expect(r.validator.validate(Array.from({ length: 9_999 }, () => 0)).valid).toBe(true);
    expect(r.validator.validate(Array.from({ length: 10_000 }, () => 0)).errors[0]!.keyword).toBe("maxNodes");
  });

  it("walks the instance when refs chain a covered schema past the depth limit", () => {
    const $defs: Record<string, unknown> = { d10: { type: "number" } };
    for (let i = 0; i < 10; i++) $defs[`d${i}`] = { type: "array", items: { $ref: `#/$defs/d${i + 1}` } };
    const schema = { $ref: "#/$defs/d0", $defs };
    const g = compileGraph(schema, { maxDepth: 8 });
    if (!g.ok) throw new Error("refused");
    expect(coverOf(g.root)).toBe(10);
    const r = compileSchema(schema, { maxDepth: 8 });
    if (!r.ok) throw new Error("refused");
    let x: unknown = 1;
    for (let i = 0; i < 8; i++) x = [x];
    expect(r.validator.validate(x).valid).toBe(false); // 8 arrays reach d8, which wants arrays
    for (let i = 0; i < 2; i++) x = [x];
    expect(r.validator.validate(x).errors[0]!.keyword).toBe("maxDepth");
  });

  it("still refuses a deep value under a key the schema does not describe", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = [deep];
    const r = compileSchema({ type: "object", properties: { a: { type: "number" } } });
    if (!r.ok) throw new Error("refused");
    expect(r.validator.validate({ a: 1, other: deep }).errors[0]!.keyword).toBe("maxDepth");
  });
});

describe("coverOf", () => {
  it("bounds closed shapes and leaves open or recursive ones uncovered", () => {
    const cases: Array<[unknown, number]> = [
      [{ type: "string" }, 0],
      [{ enum: ["a", 1] }, 0],
      [{ enum: [[1]] }, -1],
      [false, 0],
      [true, -1],
      [{ type: "object", properties: { a: { type: "number" } }, additionalProperties: false }, 1],
      [{ type: "object", properties: { a: { type: "array", items: { type: "number" } } } }, 2],
      [{ type: "array", prefixItems: [{ type: "number" }], items: false }, 1],
      [{ type: "array", prefixItems: [{ type: "number" }] }, -1],
      [{ type: "object", patternProperties: { "^a": {} }, additionalProperties: false }, -1],
      [{ properties: { a: {} } }, -1],
      [{ type: "object" }, -1],
      [{ type: "array", items: { $ref: "#" } }, -1],
      [{ type: "object", properties: { a: { $ref: "#" } }, additionalProperties: false }, -1],
      [{ oneOf: [{ type: "string" }, { type: "object", properties: {} }] }, 1],
      [{ anyOf: [{ type: "string" }, {}] }, -1],
      [{ allOf: [{}, { type: "number" }] }, 0],
      [{ $ref: "#/$defs/a", $defs: { a: { type: "array", items: { type: "string" } } } }, 1],
    ];
    for (const [schema, expected] of cases) {
      const g = compileGraph(schema);
      if (!g.ok) throw new Error("refused");
      expect(coverOf(g.root), JSON.stringify(schema)).toBe(expected);
    }
  });
});
