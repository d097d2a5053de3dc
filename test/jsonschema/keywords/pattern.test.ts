import { describe, expect, it } from "vitest";
import { accepts, errorsOf, refusal } from "../helpers.js";

describe("pattern", () => {
  it("is unanchored and compiled with the u flag", () => {
    expect(accepts({ pattern: "b" })("abc")).toBe(true);
    expect(accepts({ pattern: "^\\p{Lu}" })("Élan")).toBe(true);
    expect(accepts({ pattern: "^.$" })("😀")).toBe(true);
    expect(accepts({ pattern: "^\\d+$" })("١٢")).toBe(false);
  });

  it("refuses invalid Unicode regexes", () => {
    expect(refusal({ pattern: "(" }).code).toBe("invalid_pattern");
    expect(refusal({ pattern: "\\p{NotAProperty}" }).code).toBe("invalid_pattern");
    expect(refusal({ pattern: "\\a" }).code).toBe("invalid_pattern");
    expect(refusal({ pattern: 12 }).code).toBe("malformed");
  });

  it("refuses catastrophic patterns", () => {
    const e = refusal({ properties: { a: { pattern: "^(a+)+$" } } });
    expect(e.code).toBe("unsafe_pattern");
    expect(e.schemaPath).toBe("/properties/a/pattern");
  });

  it("does not echo the string", () => {
    expect(errorsOf({ pattern: "^x" }, "password123")[0]!.message).not.toContain("password123");
  });
});
