import { describe, expect, it } from "vitest";
import { accepts, errorsOf, refusal } from "../helpers.js";

describe("numeric bounds", () => {
  it("applies inclusive and exclusive bounds", () => {
    const ok = accepts({ minimum: 1, maximum: 3, exclusiveMinimum: 0, exclusiveMaximum: 3.5 });
    expect(ok(1)).toBe(true);
    expect(ok(3)).toBe(true);
    expect(ok(0.99)).toBe(false);
    expect(ok(3.01)).toBe(false);
    expect(accepts({ exclusiveMinimum: 0 })(0)).toBe(false);
    expect(accepts({ exclusiveMaximum: 0 })(0)).toBe(false);
    expect(accepts({ exclusiveMaximum: 0 })(-1e-300)).toBe(true);
  });

  it("ignores non-numbers", () => {
    expect(accepts({ minimum: 5 })("1")).toBe(true);
  });

  it("names the bound that failed, without the value", () => {
    const errors = errorsOf({ minimum: 2, exclusiveMaximum: 10 }, 12345);
    expect(errors.map((e) => [e.keyword, e.message])).toEqual([["exclusiveMaximum", "Expected a number < 10"]]);
  });

  it("refuses non-numeric bounds", () => {
    expect(refusal({ minimum: "1" }).code).toBe("malformed");
  });
});
