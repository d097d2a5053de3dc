/**
 * First-error mode (allErrors: false) builds its error from the fast pass's traced failure
 * (context.ts traceChild) instead of re-running the root with collection on. Regression
 * guard for that shortcut: it must report exactly what the collecting pass from the root
 * reports. The instances here stay within the limits; past them, first-error mode may
 * report a schema error it met first (cover.test.ts).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/jsonschema/index.js";
import type { CompileOptions, ValidationResult } from "../../src/jsonschema/index.js";
import { compileGraph } from "../../src/jsonschema/compile.js";
import { collectingState } from "../../src/jsonschema/context.js";
import { DEFAULT_MAX_STEPS } from "../../src/jsonschema/steps.js";
import type { State } from "../../src/jsonschema/context.js";
import { measure } from "../../src/jsonschema/limits.js";
import { DEFS, instance, schema } from "./arbitraries.js";
import { FAST_PATHS } from "./helpers.js";
import { readGroups, suiteDir, suiteFiles } from "./suite-files.js";
import { requireShared } from "../helpers/shared.js";

/** The answer without the shortcut: limits, then a collecting pass from the root. */
function reference(root: unknown, x: unknown, options: CompileOptions): ValidationResult {
  const g = compileGraph(root, options);
  if (!g.ok) throw new Error("refused");
  const maxDepth = options.maxDepth ?? 128;
  const maxNodes = options.maxNodes ?? 10_000;
  const fault = measure(x, maxDepth, maxNodes, false);
  if (fault === "too_deep") {
    return { valid: false, errors: [{ instancePath: "", keywordLocation: "", keyword: "maxDepth", message: `Value nests deeper than ${maxDepth} levels` }] };
  }
  if (fault === "too_many_nodes") {
    return { valid: false, errors: [{ instancePath: "", keywordLocation: "", keyword: "maxNodes", message: `Value has more than ${maxNodes} nodes` }] };
  }
  const st: State = collectingState(true, 0, maxDepth * 4, DEFAULT_MAX_STEPS);
  const ok = g.root.validate(x, st, null, "");
  return ok ? { valid: true, errors: [] } : { valid: false, errors: st.errors };
}

function firstErrors(root: unknown, x: unknown, options: CompileOptions): ValidationResult {
  const r = compileSchema(root, { ...options, allErrors: false });
  if (!r.ok) throw new Error("refused");
  return r.validator.validate(x);
}

describe.each(FAST_PATHS)("first-error mode (traced fast pass), $mode", ({ generateAfter }) => {
  it("reports exactly the collecting pass's first error on random schemas and instances", () => {
    let failures = 0;
    let nested = 0;
    fc.assert(
      fc.property(schema, fc.array(instance, { minLength: 1, maxLength: 6 }), (s, xs) => {
        const root = typeof s === "boolean" ? s : { ...(s as object), $defs: DEFS };
        const r = compileSchema(root, { allErrors: false, generateAfter });
        if (!r.ok) throw new Error("refused");
        // Each instance twice: remembered key orders are exercised across calls.
        for (const x of [...xs, ...xs]) {
          const got = r.validator.validate(x);
          expect(got, JSON.stringify({ schema: root, instance: x })).toEqual(reference(root, x, {}));
          if (!got.valid) failures++;
          if (!got.valid && got.errors[0]!.instancePath !== "") nested++;
        }
      }),
      { numRuns: 400, seed: 20_261_201 },
    );
    expect(failures).toBeGreaterThan(200);
    expect(nested).toBeGreaterThan(50);
  });

  it("agrees on objects whose required names the properties loop checks (random)", () => {
    const names = ["a", "b", "c", "d"];
    const leaf = fc.constantFrom({ type: "number" }, { type: "string" }, { enum: [1, "a"] }, { type: "array", items: { type: "number" } }, {});
    const objectSchema = fc
      .record({
        properties: fc.dictionary(fc.constantFrom(...names), leaf, { minKeys: 1, maxKeys: 4 }),
        additionalProperties: fc.constantFrom(undefined, false, { type: "boolean" }),
        pick: fc.uniqueArray(fc.nat(3), { maxLength: 3 }),
      })
      .map(({ properties, additionalProperties, pick }) => {
        const declared = Object.keys(properties);
        const required = [...new Set(pick.map((i) => declared[i % declared.length]!))];
        const schema: Record<string, unknown> = { type: "object", properties, required };
        if (additionalProperties !== undefined) schema.additionalProperties = additionalProperties;
        return schema;
      });
    const member = fc.constantFrom<unknown>(1, "a", true, [1], ["x"], { k: 1 });
    const object = fc.dictionary(fc.constantFrom(...names, "e"), member, { maxKeys: 5 });
    let requiredFirst = 0;
    fc.assert(
      fc.property(objectSchema, fc.array(object, { minLength: 1, maxLength: 6 }), (s, xs) => {
        const r = compileSchema(s, { allErrors: false, generateAfter });
        if (!r.ok) throw new Error("refused");
        for (const x of xs) {
          const got = r.validator.validate(x);
          expect(got, JSON.stringify({ schema: s, instance: x })).toEqual(reference(s, x, {}));
          if (!got.valid && got.errors[0]!.keyword === "required") requiredFirst++;
        }
      }),
      { numRuns: 300, seed: 20_261_203 },
    );
    expect(requiredFirst).toBeGreaterThan(50);
  });

  it("on small limits, reports the limit error or the schema error the pass met first", () => {
    // Past a bound the verdict is always invalid; which error comes first depends on where
    // the fast pass stopped (validator.ts): a traced schema error is reported as found.
    const options = { maxDepth: 3, maxNodes: 12, generateAfter };
    let limitFirst = 0;
    let schemaFirst = 0;
    fc.assert(
      fc.property(schema, fc.array(instance, { minLength: 1, maxLength: 6 }), (s, xs) => {
        const root = typeof s === "boolean" ? s : { ...(s as object), $defs: DEFS };
        fc.pre(compileGraph(root, options).ok);
        for (const x of xs) {
          const expected = reference(root, x, options);
          const got = firstErrors(root, x, options);
          const where = JSON.stringify({ schema: root, instance: x });
          if (expected.valid || !expected.errors[0]!.keyword.startsWith("max")) {
            expect(got, where).toEqual(expected);
            continue;
          }
          expect(got.valid, where).toBe(false);
          if (got.errors[0]!.keyword === expected.errors[0]!.keyword) {
            limitFirst++;
            expect(got, where).toEqual(expected);
          } else {
            // Exactly the first error of a pass with the limits out of the way.
            schemaFirst++;
            expect(got, where).toEqual(reference(root, x, { maxDepth: 128, maxNodes: 10_000 }));
          }
        }
      }),
      { numRuns: 300, seed: 20_261_202, maxSkipsPerRun: 1000 },
    );
    expect(limitFirst).toBeGreaterThan(20);
    // The shortcut itself, pinned: the type error at /0 is met before the node limit.
    const items = { type: "array", items: { type: "number" } };
    expect(firstErrors(items, ["x", ...Array.from({ length: 12 }, (_, i) => i)], options).errors[0]).toMatchObject({ keyword: "type", instancePath: "/0" });
    console.log(`small limits: ${limitFirst} limit errors first, ${schemaFirst} schema errors first`);
  });

  it("paths through nested loops, refs and in-place applicators", () => {
    const s = {
      type: "object",
      required: ["a"],
      properties: {
        a: { type: "array", items: { $ref: "#/$defs/item" } },
        "x/y~z": { allOf: [{ type: "object", properties: { q: { type: "integer" } } }] },
      },
      additionalProperties: false,
      $defs: { item: { type: "object", properties: { n: { type: "number", minimum: 0 } }, additionalProperties: false } },
    };
    const first = (x: unknown) => firstErrors(s, x, { generateAfter }).errors;
    expect(first({ a: [{ n: 1 }, { n: -1 }] })).toEqual([
      { instancePath: "/a/1/n", keywordLocation: "/$defs/item/properties/n/minimum", keyword: "minimum", message: "Expected a number >= 0" },
    ]);
    expect(first({ a: [{ m: 1 }] })).toEqual([
      { instancePath: "/a/0/m", keywordLocation: "/$defs/item/additionalProperties", keyword: "additionalProperties", message: "Unexpected property" },
    ]);
    expect(first({ a: [], "x/y~z": { q: 1.5 } })).toEqual([
      { instancePath: "/x~1y~0z/q", keywordLocation: "/properties/x~1y~0z/allOf/0/properties/q/type", keyword: "type", message: "Expected type integer, got number" },
    ]);
    // A missing required name is reported before any member is looked at.
    expect(first({ b: 1, "x/y~z": 5 })).toEqual([
      { instancePath: "", keywordLocation: "/required", keyword: "required", message: "Missing required property: a" },
    ]);
  });

  it("a required name checked inside the properties loop is still reported before the members", () => {
    const s = { type: "object", required: ["b", "a"], properties: { a: { type: "number" }, b: {}, c: { type: "string" } } };
    const required = (name: string) => [
      { instancePath: "", keywordLocation: "/required", keyword: "required", message: `Missing required property: ${name}` },
    ];
    expect(firstErrors(s, { c: 1, b: 1 }, { generateAfter }).errors).toEqual(required("a"));
    expect(firstErrors(s, { c: 1, a: 1 }, { generateAfter }).errors).toEqual(required("b"));
    expect(firstErrors(s, { a: 1 }, { generateAfter }).errors).toEqual(required("b"));
    expect(firstErrors({ ...s, additionalProperties: false }, { x: 1, b: 2 }, { generateAfter }).errors).toEqual(required("a"));
    // A member that fails deeper down has traced its own error first; required still wins.
    const nested = { ...s, properties: { ...s.properties, c: { type: "array", items: { type: "number" } } } };
    expect(firstErrors(nested, { c: ["x"], b: 1 }, { generateAfter }).errors).toEqual(required("a"));
    expect(firstErrors(s, { c: 1, a: 1, b: 1 }, { generateAfter }).errors).toEqual([
      { instancePath: "/c", keywordLocation: "/properties/c/type", keyword: "type", message: "Expected type string, got integer" },
    ]);
  });

  it("items and properties a loop itself rejects (items: false, unevaluated*)", () => {
    const vec = { type: "array", prefixItems: [{ type: "number" }], items: false };
    expect(firstErrors(vec, [1, 2, 3], { generateAfter }).errors).toEqual([
      { instancePath: "/1", keywordLocation: "/items", keyword: "items", message: "Unexpected item" },
    ]);
    const closed = { allOf: [{ properties: { a: {} } }], properties: { o: { allOf: [{}], unevaluatedProperties: false } }, unevaluatedProperties: false };
    expect(firstErrors(closed, { a: 1, o: { z: 1 } }, { generateAfter }).errors).toEqual([
      { instancePath: "/o/z", keywordLocation: "/properties/o/unevaluatedProperties", keyword: "unevaluatedProperties", message: "Unexpected property" },
    ]);
    expect(firstErrors(closed, { a: 1, b: 2 }, { generateAfter }).errors).toEqual([
      { instancePath: "/b", keywordLocation: "/unevaluatedProperties", keyword: "unevaluatedProperties", message: "Unexpected property" },
    ]);
    const rest = { prefixItems: [{}], allOf: [{}], unevaluatedItems: { type: "string" } };
    expect(firstErrors(rest, [1, "a", 2], { generateAfter }).errors).toEqual([
      { instancePath: "/2", keywordLocation: "/unevaluatedItems/type", keyword: "type", message: "Expected type string, got integer" },
    ]);
    const restClosed = { prefixItems: [{}], allOf: [{}], unevaluatedItems: false };
    expect(firstErrors(restClosed, [1, "a"], { generateAfter }).errors).toEqual([
      { instancePath: "/1", keywordLocation: "/unevaluatedItems", keyword: "unevaluatedItems", message: "Unexpected item" },
    ]);
  });

  it("a failure inside anyOf, not or contains branches is not taken for the instance's error", () => {
    const s = {
      type: "array",
      items: { anyOf: [{ type: "string" }, { type: "object", properties: { k: { type: "number" } } }] },
      contains: { type: "object" },
    };
    expect(firstErrors(s, ["a", { k: 1 }], { generateAfter }).valid).toBe(true);
    expect(firstErrors(s, ["a", { k: "x" }], { generateAfter }).errors).toEqual([
      { instancePath: "/1", keywordLocation: "/items/anyOf", keyword: "anyOf", message: "Expected a value matching at least one schema in anyOf" },
    ]);
    expect(firstErrors({ not: { items: { type: "string" } }, items: { type: "number" } }, [1, 2], { generateAfter }).valid).toBe(true);
  });

  it("each keyword traces its own failure, as the collecting pass reports it", () => {
    const s = {
      type: "object",
      properties: {
        any: { anyOf: [{ type: "string" }, { type: "integer" }] },
        one: { oneOf: [{}, { type: "number" }, { minimum: 0 }, { type: "string" }] },
        never: { oneOf: [{ type: "string" }, { type: "boolean" }] },
        not: { not: { type: "null" } },
        bounds: { type: "number", minimum: 5, exclusiveMinimum: 6, maximum: 10 },
        length: { type: "string", minLength: 3 },
        tags: { type: "array", items: { type: "string" }, contains: { const: "x" }, maxContains: 1 },
        names: { type: "object", propertyNames: { pattern: "^[a-z]+$" } },
        pair: { type: "object", dependentRequired: { a: ["b"] } },
        list: { type: "array", minItems: 2, uniqueItems: true, items: { type: "number" } },
        off: false,
        ref: { $ref: "#/$defs/n" },
        word: { enum: ["a", "b"] },
        size: { type: "object", minProperties: 2, properties: { z: {} } },
      },
      $defs: { n: { type: "integer", multipleOf: 3 } },
    };
    const cases: unknown[] = [
      { any: 1.5 },
      { one: 1 },
      { one: "s" },
      { never: 1 },
      { not: null },
      { bounds: 4 },
      { bounds: 6 },
      { bounds: 11 },
      { length: "ab" },
      { length: 3 },
      { tags: ["a"] },
      { tags: ["x", "x"] },
      { tags: ["x", 1] },
      { names: { ok: 1, Bad: 2 } },
      { pair: { a: 1 } },
      { list: [1] },
      { list: [1, 1] },
      // uniqueItems runs before the folded minItems on the fast path, after it when collecting.
      { list: [1, 1, "x"] },
      { off: 1 },
      { ref: 4 },
      { ref: "x" },
      { word: "c" },
      { size: { z: 1 } },
    ];
    const trees = [s, { $ref: "#/$defs/wrap", $defs: { ...s.$defs, wrap: { type: "array", items: s } } }];
    for (const tree of trees) {
      for (const raw of cases) {
        const x = tree === s ? raw : [{}, raw];
        const got = firstErrors(tree, x, { generateAfter });
        expect(got.valid, JSON.stringify(x)).toBe(false);
        expect(got, JSON.stringify(x)).toEqual(reference(tree, x, {}));
      }
    }
    const bounds = firstErrors(s, { bounds: 4 }, { generateAfter }).errors;
    expect(bounds.map((e) => e.keyword)).toEqual(["minimum", "exclusiveMinimum"]);
    expect(firstErrors(s, { one: 1 }, { generateAfter }).errors[0]!.message).toBe("Expected a value matching exactly one schema in oneOf, matched 3");
  });

  it("a failing member is walked once: its error costs no second pass of the budget", () => {
    // The oneOf fails on the second run after walking its 41 items in both branches: about
    // 90 steps. Re-running the member with errors on to find its error took as many again.
    const s = {
      type: "object",
      properties: {
        runs: { type: "array", items: { oneOf: [{ type: "array", items: { type: "number" } }, { type: "array", items: { type: "string" } }] } },
      },
    };
    const x = { runs: [[1, 2], [...Array.from({ length: 40 }, (_, i) => i), "x"]] };
    const r = compileSchema(s, { allErrors: false, generateAfter, maxSteps: 120 });
    if (!r.ok) throw new Error("refused");
    for (let i = 0; i < 3; i++) {
      expect(r.validator.validate(x).errors).toEqual([
        {
          instancePath: "/runs/1",
          keywordLocation: "/properties/runs/items/oneOf",
          keyword: "oneOf",
          message: "Expected a value matching exactly one schema in oneOf, matched none",
        },
      ]);
    }
  });

  it("29 to 33 required names: the first missing one in required order, before any member, as the collecting pass", () => {
    for (const count of [29, 30, 31, 33]) {
      const names = Array.from({ length: count }, (_, i) => `p${i}`);
      const s = { type: "object", required: names, properties: Object.fromEntries(names.map((n) => [n, { type: "number" }])), additionalProperties: false };
      const full = Object.fromEntries(names.map((n) => [n, 1]));
      const without = (...gone: string[]) => Object.fromEntries(Object.entries(full).filter(([k]) => !gone.includes(k)));
      const cases: unknown[] = [
        full,
        without(names[count - 1]!),
        without(names[29]!),
        without(names[0]!, names[count - 1]!),
        { ...without(names[count - 1]!), [names[0]!]: "x" },
        { ...without(names[29]!), [names[1]!]: "x" },
        { ...full, extra: 1 },
        { extra: 1, ...without(names[count - 2]!) },
        Object.fromEntries(Object.entries(full).reverse()),
      ];
      for (const x of cases) expect(firstErrors(s, x, { generateAfter }), `${count} names: ${JSON.stringify(x)}`).toEqual(reference(s, x, {}));
    }
  });

  it("the first missing name in required order wins, whatever the members hold", () => {
    const s = { type: "object", required: ["c", "a", "b"], properties: { a: { type: "number" }, b: { type: "number" }, c: { type: "number" } } };
    const missing = (name: string) => [
      { instancePath: "", keywordLocation: "/required", keyword: "required", message: `Missing required property: ${name}` },
    ];
    expect(firstErrors(s, { b: 1, a: 1 }, { generateAfter }).errors).toEqual(missing("c"));
    expect(firstErrors(s, { c: 1 }, { generateAfter }).errors).toEqual(missing("a"));
    expect(firstErrors(s, { c: 1, a: 1 }, { generateAfter }).errors).toEqual(missing("b"));
    // required runs before properties, in both passes: a bad member is reported only when no name is missing.
    expect(firstErrors(s, { c: "x", a: 1 }, { generateAfter }).errors).toEqual(missing("b"));
    expect(firstErrors(s, { a: "x", c: 1, b: 1 }, { generateAfter }).errors).toEqual([
      { instancePath: "/a", keywordLocation: "/properties/a/type", keyword: "type", message: "Expected type number, got string" },
    ]);
  });
});

const suiteExists = requireShared(suiteDir, "first-error mode on the official suite");

describe.skipIf(!suiteExists).each(FAST_PATHS)("first-error mode on the official suite, $mode", ({ generateAfter }) => {
  it("reports exactly the collecting pass's first error for every in-scope case", () => {
    let cases = 0;
    let invalid = 0;
    const mismatches: string[] = [];
    for (const file of suiteFiles()) {
      for (const group of readGroups(file)) {
        const r = compileSchema(group.schema, { allErrors: false, generateAfter });
        if (!r.ok) continue;
        for (const t of group.tests) {
          cases++;
          const got = r.validator.validate(t.data);
          if (!got.valid) invalid++;
          const want = reference(group.schema, t.data, {});
          if (JSON.stringify(got) !== JSON.stringify(want)) {
            mismatches.push(`${file} / ${group.description} / ${t.description}: ${JSON.stringify(got.errors)} vs ${JSON.stringify(want.errors)}`);
          }
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(cases).toBeGreaterThan(1000);
    expect(invalid).toBeGreaterThan(400);
  });
});
