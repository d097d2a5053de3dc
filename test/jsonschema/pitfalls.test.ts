/**
 * Regression tests for the places popular validators get wrong (NOTES "JSON Schema:
 * the field"): ajv and cfworker answer several of these incorrectly.
 */
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/jsonschema/index.js";
import { accepts, compiled } from "./helpers.js";

describe("pitfalls of popular validators", () => {
  it("multipleOf is exact on decimals", () => {
    expect(accepts({ multipleOf: 0.01 })(0.07)).toBe(true);
    expect(accepts({ multipleOf: 0.1 })(0.3)).toBe(true);
    expect(accepts({ multipleOf: 0.5 })(1e308)).toBe(true);
  });

  it("__proto__, constructor and toString are ordinary property names", () => {
    expect(accepts({ required: ["__proto__"] })({})).toBe(false);
    expect(accepts({ required: ["toString"] })({})).toBe(false);
    expect(accepts({ required: ["constructor"] })({})).toBe(false);
    const s = JSON.parse('{"properties": {"__proto__": {"type": "string"}}}');
    expect(accepts(s)(JSON.parse('{"__proto__": 1}'))).toBe(false);
  });

  it("string length counts code points", () => {
    expect(accepts({ maxLength: 1 })("😀")).toBe(true);
  });

  it("patterns are Unicode regexes", () => {
    expect(accepts({ pattern: "^.$" })("😀")).toBe(true);
    expect(accepts({ pattern: "^\\p{So}$" })("😀")).toBe(true);
    expect(accepts({ pattern: "^\\p{Other_Symbol}$" })("😀")).toBe(true);
  });

  it("deep equality in enum, const and uniqueItems", () => {
    expect(accepts({ enum: [{ a: 1, b: 2 }] })({ b: 2, a: 1 })).toBe(true);
    expect(accepts({ const: 1 })(1.0)).toBe(true);
    expect(accepts({ const: true })(1)).toBe(false);
    expect(accepts({ uniqueItems: true })([{ a: 1, b: 2 }, { b: 2, a: 1 }])).toBe(false);
  });

  it("uniqueItems on 5,000 distinct objects finishes (hashing, not pairwise)", () => {
    const r = compileSchema({ uniqueItems: true }, { maxNodes: 20_000 });
    if (!r.ok) throw new Error();
    expect(r.validator.validate(Array.from({ length: 5000 }, (_, i) => ({ id: i }))).valid).toBe(true);
  });

  it("enum: [] compiles and matches nothing", () => {
    expect(accepts({ enum: [] })(null)).toBe(false);
  });

  it("unevaluatedItems sees contains and if annotations", () => {
    expect(accepts({ contains: { type: "number" }, unevaluatedItems: false })([1, 2])).toBe(true);
    expect(accepts({ if: { prefixItems: [{ const: 1 }] }, unevaluatedItems: false })([1])).toBe(true);
  });

  it("contains next to prefixItems still needs a match (ajv 8.20 accepts [])", () => {
    expect(accepts({ prefixItems: [{ maxProperties: 0 }], contains: {} })([])).toBe(false);
  });

  it("patternProperties next to oneOf with $ref does not throw (ajv 8.20 does)", () => {
    const s = {
      patternProperties: { b$: {} },
      oneOf: [{ $ref: "#/$defs/obj" }, {}],
      $defs: { obj: { type: "object", required: ["a"] } },
    };
    expect(accepts(s)({ b: null })).toBe(true);
  });

  it("a failed if contributes no annotations (ajv 8.20 counts them)", () => {
    const s = { if: { additionalProperties: false }, then: { not: {} }, unevaluatedProperties: { minItems: 1 } };
    expect(accepts(s)({ a: [] })).toBe(false);
  });

  it("a null-prototype object equals {} (ajv's deep equality says no)", () => {
    expect(accepts({ enum: [{}] })(Object.create(null))).toBe(true);
  });

  it("deep instances and ref cycles neither hang nor overflow", () => {
    let deep: unknown = 0;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(compiled({ items: { $ref: "#" } }).validate(deep).valid).toBe(false);
    expect(compileSchema({ $ref: "#" }).ok).toBe(false);
  });

  it("catastrophic backtracking patterns run in linear time", () => {
    expect(compiled({ pattern: "^(a+)+$" }).validate(`${"a".repeat(10_000)}!`).valid).toBe(false);
  });
});
