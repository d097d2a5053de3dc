import { describe, expect, it } from "vitest";
import { accepts, errorsOf } from "../helpers.js";

describe("minProperties / maxProperties", () => {
  it("counts own keys", () => {
    const ok = accepts({ minProperties: 1, maxProperties: 2 });
    expect(ok({})).toBe(false);
    expect(ok({ a: 1 })).toBe(true);
    expect(ok({ a: 1, b: 2, c: 3 })).toBe(false);
    expect(ok([])).toBe(true);
    expect(errorsOf({ minProperties: 1 }, {})[0]!.message).toBe("Expected at least 1 property");
  });
});
