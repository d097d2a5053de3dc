import { describe, expect, it } from "vitest";
import { compileSchema } from "../../../src/jsonschema/index.js";
import { accepts, errorsOf, refusal } from "../helpers.js";

describe("uniqueItems", () => {
  it("uses JSON equality", () => {
    const ok = accepts({ uniqueItems: true });
    expect(ok([1, 1.0])).toBe(false);
    expect(ok([1, true])).toBe(true);
    expect(ok([0, false])).toBe(true);
    expect(ok([{ a: 1, b: 2 }, { b: 2, a: 1 }])).toBe(false);
    expect(ok([[1, 2], [2, 1]])).toBe(true);
    expect(ok(["1", 1])).toBe(true);
    expect(ok([null, null])).toBe(false);
    expect(ok([{ a: [1, { b: null }] }, { a: [1, { b: null }] }])).toBe(false);
    expect(accepts({ uniqueItems: false })([1, 1])).toBe(true);
  });

  it("handles 5,000 distinct objects (node limit raised: they are 30,001 JSON values)", () => {
    const r = compileSchema({ uniqueItems: true }, { maxNodes: 50_000 });
    if (!r.ok) throw new Error(r.error.message);
    const ok = (x: unknown): boolean => r.validator.validate(x).valid;
    const distinct = Array.from({ length: 5000 }, (_, i) => ({ id: i, tags: [`t${i % 7}`], nested: { v: i * 2 } }));
    expect(ok(distinct)).toBe(true);
    expect(ok([...distinct, { nested: { v: 0 }, tags: ["t0"], id: 0 }])).toBe(false);
    expect(ok(Array.from({ length: 5000 }, (_, i) => i))).toBe(true);
  });

  it("names the equal indices", () => {
    expect(errorsOf({ uniqueItems: true }, ["a", "b", "a"])[0]!.message).toBe("Expected unique items; items 0 and 2 are equal");
  });

  it("refuses a non-boolean", () => {
    expect(refusal({ uniqueItems: 1 }).code).toBe("malformed");
  });
});
