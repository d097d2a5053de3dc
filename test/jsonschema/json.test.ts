import { describe, expect, it } from "vitest";
import { canonicalJson, codePointLength, jsonEqual, utf8Length } from "../../src/jsonschema/json.js";
import fc from "fast-check";
import { isDecimalMultiple, scaledMultipleTest, toDecimal } from "../../src/jsonschema/decimal.js";

describe("json helpers", () => {
  it("jsonEqual and canonicalJson agree on JSON equality", () => {
    const pairs: Array<[unknown, unknown, boolean]> = [
      [{ a: 1, b: 2 }, { b: 2, a: 1 }, true],
      [[1, 2], [2, 1], false],
      [1, 1.0, true],
      [1, true, false],
      [0, false, false],
      [null, {}, false],
      [{ a: undefined }, {}, false],
      ["1", 1, false],
      [-0, 0, true],
    ];
    for (const [a, b, eq] of pairs) {
      expect(jsonEqual(a, b), JSON.stringify([a, b])).toBe(eq);
      if (!(a && typeof a === "object" && Object.values(a).includes(undefined))) {
        expect(canonicalJson(a) === canonicalJson(b), JSON.stringify([a, b])).toBe(eq);
      }
    }
  });

  it("counts code points and UTF-8 bytes", () => {
    expect(codePointLength("a😀b")).toBe(3);
    expect(codePointLength("\ud800")).toBe(1);
    expect(utf8Length("aé中😀")).toBe(1 + 2 + 3 + 4);
  });

  it("decimal multipleOf", () => {
    const m = (x: number, d: number) => isDecimalMultiple(x, toDecimal(d), d);
    expect(m(0.07, 0.01)).toBe(true);
    expect(m(0.3, 0.1)).toBe(true);
    expect(m(1e308, 0.5)).toBe(true);
    expect(m(123456789.12345679, 1e-8)).toBe(true);
    expect(m(0.1, 0.3)).toBe(false);
    expect(m(9007199254740993, 2)).toBe(true);
  });

  it("the scaled multipleOf test answers as the exact one wherever it answers", () => {
    const divisors = [0.01, 0.1, 0.25, 0.5, 1, 2, 5, 0.0001, 0.001, 1e-8, 3, 0.3, 0.07, 12.5, 100];
    // Decimals as JSON authors write them: an integer scaled by a power of ten.
    const written = fc
      .tuple(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: 0, max: 12 }))
      .map(([n, e]) => Number(`${n}e-${e}`));
    const values = fc.oneof(written, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer());
    fc.assert(
      fc.property(fc.constantFrom(...divisors), values, (d, x) => {
        const quick = scaledMultipleTest(toDecimal(d))!;
        const answer = quick(x);
        return answer === null || answer === isDecimalMultiple(x, toDecimal(d), d);
      }),
      { numRuns: 20_000 },
    );
    const quick = scaledMultipleTest(toDecimal(0.01))!;
    expect(quick(0.07)).toBe(true);
    expect(quick(0.075)).toBe(false);
    expect(quick(1e300)).toBe(null);
  });
});
