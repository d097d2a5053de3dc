import { describe, expect, it } from "vitest";
import { accepts, errorsOf } from "../helpers.js";

describe("propertyNames", () => {
  it("validates every key as a string", () => {
    const ok = accepts({ propertyNames: { pattern: "^[a-z]+$", maxLength: 3 } });
    expect(ok({ abc: 1 })).toBe(true);
    expect(ok({ abcd: 1 })).toBe(false);
    expect(ok({ A: 1 })).toBe(false);
    expect(accepts({ propertyNames: false })({})).toBe(true);
    expect(accepts({ propertyNames: false })({ a: 1 })).toBe(false);
  });

  it("points at the key", () => {
    expect(errorsOf({ propertyNames: { maxLength: 1 } }, { ok: 1 })[0]).toMatchObject({
      instancePath: "/ok",
      message: "Invalid property name",
    });
  });
});
