import { describe, expect, it } from "vitest";
import { accepts, errorsOf, refusal } from "../helpers.js";

describe("minLength / maxLength", () => {
  it("counts code points: an emoji is one", () => {
    expect(accepts({ maxLength: 1 })("😀")).toBe(true);
    expect(accepts({ minLength: 2 })("😀")).toBe(false);
    expect(accepts({ minLength: 2, maxLength: 2 })("😀😀")).toBe(true);
    expect(accepts({ maxLength: 3 })("a😀b")).toBe(true);
  });

  it("treats a lone surrogate as one code point", () => {
    expect(accepts({ minLength: 2 })("\ud800x")).toBe(true);
  });

  it("ignores non-strings and reports counts without the string", () => {
    expect(accepts({ minLength: 3 })(12)).toBe(true);
    const [e] = errorsOf({ minLength: 3 }, "ab");
    expect(e!.message).toBe("Expected at least 3 characters");
    expect(e!.message).not.toContain("ab");
  });

  it("refuses negative or fractional lengths", () => {
    expect(refusal({ minLength: -1 }).code).toBe("malformed");
    expect(refusal({ maxLength: 1.5 }).code).toBe("malformed");
  });
});
