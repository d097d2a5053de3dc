import { describe, expect, it } from "vitest";
import { accepts, errorsOf, refusal } from "../helpers.js";

describe("minItems / maxItems", () => {
  it("bounds the length", () => {
    const ok = accepts({ minItems: 1, maxItems: 2 });
    expect(ok([])).toBe(false);
    expect(ok([1])).toBe(true);
    expect(ok([1, 2, 3])).toBe(false);
    expect(ok({})).toBe(true);
    expect(errorsOf({ maxItems: 2 }, [1, 2, 3])[0]!.message).toBe("Expected at most 2 items");
  });

  it("refuses non-integers", () => {
    expect(refusal({ minItems: "1" }).code).toBe("malformed");
  });
});
