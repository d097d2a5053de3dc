import { describe, expect, it } from "vitest";
import { accepts, errorsOf, refusal } from "../helpers.js";

describe("prefixItems / items", () => {
  it("validates the prefix positionally and the rest with items", () => {
    const ok = accepts({ prefixItems: [{ type: "string" }, { type: "number" }], items: { type: "boolean" } });
    expect(ok(["a", 1, true, false])).toBe(true);
    expect(ok(["a"])).toBe(true);
    expect(ok([1])).toBe(false);
    expect(ok(["a", 1, 2])).toBe(false);
  });

  it("items: false forbids anything past the prefix, item by item", () => {
    const schema = { prefixItems: [{}], items: false };
    expect(accepts(schema)([1])).toBe(true);
    expect(errorsOf(schema, [1, 2, 3]).map((e) => [e.instancePath, e.message])).toEqual([
      ["/1", "Unexpected item"],
      ["/2", "Unexpected item"],
    ]);
  });

  it("reports the failing index as a path", () => {
    expect(errorsOf({ items: { type: "number" } }, [1, "x"])[0]!.instancePath).toBe("/1");
  });

  it("refuses an empty or non-array prefixItems", () => {
    expect(refusal({ prefixItems: [] }).code).toBe("malformed");
    expect(refusal({ prefixItems: {} }).code).toBe("malformed");
  });

  it("minItems / maxItems folded into the items loop answer as on their own", () => {
    const typed = accepts({ type: "array", items: { type: "number" }, minItems: 2, maxItems: 3 });
    const prefixed = accepts({ type: "array", prefixItems: [{ type: "number" }], minItems: 2 });
    const untyped = accepts({ items: { type: "number" }, maxItems: 1 });
    expect([[], [1], [1, 2], [1, 2, 3], [1, 2, 3, 4], [1, "2"]].map(typed)).toEqual([false, false, true, true, false, false]);
    expect([[], [1], [1, "x"], ["x", 1]].map(prefixed)).toEqual([false, false, true, false]);
    expect([[], [1], [1, 2], "x"].map(untyped)).toEqual([true, true, false, true]);
    expect(errorsOf({ type: "array", items: {}, maxItems: 1 }, [1, 2]).map((e) => e.keyword)).toEqual(["maxItems"]);
  });
});
