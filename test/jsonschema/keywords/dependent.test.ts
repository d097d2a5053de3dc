import { describe, expect, it } from "vitest";
import { accepts, errorsOf, refusal } from "../helpers.js";

describe("dependentRequired", () => {
  it("requires companions when the trigger is present", () => {
    const ok = accepts({ dependentRequired: { card: ["billing"] } });
    expect(ok({})).toBe(true);
    expect(ok({ card: 1 })).toBe(false);
    expect(ok({ card: 1, billing: 2 })).toBe(true);
    expect(errorsOf({ dependentRequired: { card: ["billing"] } }, { card: "4111" })[0]!.message).toBe(
      "Missing required property: billing (required when card is present)",
    );
  });

  it("refuses non-array values", () => {
    expect(refusal({ dependentRequired: { a: "b" } }).code).toBe("malformed");
  });
});

describe("dependentSchemas", () => {
  it("applies the schema to the whole object when the trigger is present", () => {
    const ok = accepts({ dependentSchemas: { a: { required: ["b"] } } });
    expect(ok({ a: 1 })).toBe(false);
    expect(ok({ a: 1, b: 1 })).toBe(true);
    expect(ok({ b: 1 })).toBe(true);
  });

  it("contributes annotations to unevaluatedProperties", () => {
    const ok = accepts({ dependentSchemas: { a: { properties: { b: {} } } }, properties: { a: {} }, unevaluatedProperties: false });
    expect(ok({ a: 1, b: 2 })).toBe(true);
    expect(ok({ b: 2 })).toBe(false);
  });
});
