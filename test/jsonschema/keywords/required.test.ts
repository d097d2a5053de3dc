import { describe, expect, it } from "vitest";
import { accepts, errorsOf, refusal } from "../helpers.js";

describe("required", () => {
  it("requires own properties, including names on Object.prototype", () => {
    expect(accepts({ required: ["__proto__"] })({})).toBe(false);
    expect(accepts({ required: ["constructor"] })({})).toBe(false);
    expect(accepts({ required: ["toString"] })({})).toBe(false);
    expect(accepts({ required: ["__proto__"] })(JSON.parse('{"__proto__": null}'))).toBe(true);
    expect(accepts({ required: ["a", "b"] })({ a: 1, b: null })).toBe(true);
    expect(accepts({ required: ["a"] })([])).toBe(true);
  });

  it("lists every missing property", () => {
    expect(errorsOf({ required: ["a", "b", "c"] }, { b: 1 }).map((e) => e.message)).toEqual([
      "Missing required property: a",
      "Missing required property: c",
    ]);
  });

  it("refuses non-string entries", () => {
    expect(refusal({ required: [1] }).code).toBe("malformed");
    expect(refusal({ required: "a" }).code).toBe("malformed");
  });
});
