import { describe, expect, it } from "vitest";
import { accepts, refusal } from "../helpers.js";

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
