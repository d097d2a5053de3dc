import { describe, expect, it } from "vitest";
import { accepts, errorsOf, refusal } from "../helpers.js";

describe("allOf / anyOf / oneOf / not", () => {
  it("allOf needs every branch and reports their errors", () => {
    const schema = { allOf: [{ type: "number" }, { minimum: 3 }] };
    expect(accepts(schema)(4)).toBe(true);
    expect(accepts(schema)(2)).toBe(false);
    expect(errorsOf(schema, 2)[0]!.keywordLocation).toBe("/allOf/1/minimum");
  });

  it("anyOf needs one branch", () => {
    const ok = accepts({ anyOf: [{ type: "string" }, { minimum: 3 }] });
    expect(ok("a")).toBe(true);
    expect(ok(5)).toBe(true);
    expect(ok(1)).toBe(false);
    expect(errorsOf({ anyOf: [{ type: "string" }, { minimum: 3 }] }, 1)).toEqual([
      { instancePath: "", keywordLocation: "/anyOf", keyword: "anyOf", message: "Expected a value matching at least one schema in anyOf" },
    ]);
  });

  it("oneOf needs exactly one branch", () => {
    const ok = accepts({ oneOf: [{ type: "integer" }, { minimum: 2 }] });
    expect(ok(1)).toBe(true);
    expect(ok(2.5)).toBe(true);
    expect(ok(3)).toBe(false);
    expect(ok(1.5)).toBe(false);
    expect(errorsOf({ oneOf: [{ type: "integer" }, { minimum: 2 }] }, 3)[0]!.message).toBe(
      "Expected a value matching exactly one schema in oneOf, matched 2",
    );
  });

  it("not inverts", () => {
    expect(accepts({ not: { type: "string" } })(1)).toBe(true);
    expect(accepts({ not: { type: "string" } })("a")).toBe(false);
    expect(accepts({ not: {} })(1)).toBe(false);
  });

  it("annotations come only from valid branches", () => {
    const schema = {
      anyOf: [{ properties: { a: { type: "number" } }, required: ["a"] }, { properties: { b: {} }, required: ["b"] }],
      unevaluatedProperties: false,
    };
    expect(accepts(schema)({ a: 1, b: 1 })).toBe(true);
    // Branch 0 fails (a is not a number), so its annotation for "a" is discarded.
    expect(accepts(schema)({ a: "x", b: 1 })).toBe(false);
    expect(accepts({ not: { not: { properties: { a: {} } } }, unevaluatedProperties: false })({ a: 1 })).toBe(false);
  });

  it("refuses empty or non-array lists", () => {
    expect(refusal({ allOf: [] }).code).toBe("malformed");
    expect(refusal({ anyOf: {} }).code).toBe("malformed");
    expect(refusal({ not: 1 }).code).toBe("malformed");
  });
});
