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

  it("refuses what a linear-time matcher cannot run, naming why", () => {
    const e = refusal({ properties: { a: { pattern: "^(a)\\1$" } } });
    expect(e.code).toBe("unsupported_pattern");
    expect(e.schemaPath).toBe("/properties/a/pattern");
    expect(e.message).toContain("backreferences");
    expect(refusal({ pattern: "^(?=a)" }).message).toContain("lookahead");
    expect(refusal({ pattern: "(?<!a)b" }).message).toContain("lookbehind");
    expect(refusal({ pattern: "(?<n>a)\\k<n>" }).message).toContain("backreferences");
    expect(refusal({ pattern: "a{1001}" }).message).toContain("repetition counts above 1000");
  });

  it("does not echo the string", () => {
    expect(errorsOf({ pattern: "^x" }, "password123")[0]!.message).not.toContain("password123");
  });
});
