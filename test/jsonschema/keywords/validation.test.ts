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

describe("multipleOf", () => {
  it("is exact on decimals where binary floating point is not", () => {
    expect(accepts({ multipleOf: 0.01 })(0.07)).toBe(true);
    expect(accepts({ multipleOf: 0.1 })(0.3)).toBe(true);
    expect(accepts({ multipleOf: 0.5 })(1e308)).toBe(true);
    expect(accepts({ multipleOf: 0.0001 })(0.0075)).toBe(true);
    expect(accepts({ multipleOf: 0.01 })(0.075)).toBe(false);
    expect(accepts({ multipleOf: 0.3 })(0.1)).toBe(false);
  });

  it("handles integers, negatives and huge values", () => {
    expect(accepts({ multipleOf: 3 })(9)).toBe(true);
    expect(accepts({ multipleOf: 3 })(10)).toBe(false);
    expect(accepts({ multipleOf: 0.1 })(-0.3)).toBe(true);
    expect(accepts({ multipleOf: 3 })(1.1e20)).toBe(false);
    expect(accepts({ multipleOf: 1e308 })(5e-324)).toBe(false);
    expect(accepts({ type: "integer", multipleOf: 0.123456789 })(1e308)).toBe(false);
  });

  it("refuses zero, negative and non-numeric divisors", () => {
    expect(refusal({ multipleOf: 0 }).code).toBe("malformed");
    expect(refusal({ multipleOf: -2 }).code).toBe("malformed");
    expect(refusal({ multipleOf: "2" }).code).toBe("malformed");
  });

  it("quick exact path agrees with the decimal reading", () => {
    const thousandth = accepts({ multipleOf: 0.001 });
    expect(thousandth(0.025)).toBe(true);
    expect(thousandth(-4.35)).toBe(true);
    expect(thousandth(0.0255)).toBe(false);
    expect(thousandth(123456789.123)).toBe(true);
    expect(thousandth(2 ** 60)).toBe(true);
    expect(accepts({ multipleOf: 0.07 })(0.21)).toBe(true);
    expect(accepts({ multipleOf: 0.07 })(0.2)).toBe(false);
    expect(accepts({ multipleOf: 2.5e-10 })(7.5e-10)).toBe(true);
    expect(accepts({ multipleOf: 1000 })(3e3)).toBe(true);
    expect(accepts({ multipleOf: 1000 })(3e2)).toBe(false);
  });
});

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
