import { describe, expect, it } from "vitest";
import { encodeHalves, halfToFloat, isNonFiniteHalf, toHalf } from "../../../src/recipes/search/float16.js";

const HALF_TO_FLOAT = halfToFloat();

describe("float16", () => {
  it.each([
    [0, 0x0000],
    [-0, 0x8000],
    [1, 0x3c00],
    [-2, 0xc000],
    [0.5, 0x3800],
    [65504, 0x7bff],
    [2 ** -14, 0x0400], // smallest normal
    [2 ** -24, 0x0001], // smallest subnormal
    [Number.POSITIVE_INFINITY, 0x7c00],
    [Number.NEGATIVE_INFINITY, 0xfc00],
  ])("encodes %d as its exact half", (x, bits) => {
    expect(toHalf(x)).toBe(bits);
    expect(Object.is(HALF_TO_FLOAT[bits], x)).toBe(true);
  });

  it("rounds to nearest with ties to even, overflowing to Infinity and underflowing to zero", () => {
    // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties go to the even mantissa (1).
    expect(toHalf(1 + 2 ** -11)).toBe(0x3c00);
    expect(toHalf(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(toHalf(1 + 2 ** -11 + 2 ** -20)).toBe(0x3c01);
    expect(toHalf(65520)).toBe(0x7c00);
    expect(toHalf(70000)).toBe(0x7c00);
    expect(toHalf(2 ** -26)).toBe(0x0000);
    expect(toHalf(-(2 ** -25) * 1.5)).toBe(0x8001);
    expect(toHalf(2 ** -14 - 2 ** -25)).toBe(0x0400); // subnormal rounding carries into the smallest normal
  });

  it("keeps NaN a NaN and flags non-finite patterns", () => {
    expect(Number.isNaN(HALF_TO_FLOAT[toHalf(Number.NaN)])).toBe(true);
    expect(isNonFiniteHalf(toHalf(Number.NaN))).toBe(true);
    expect(isNonFiniteHalf(0x7c00)).toBe(true);
    expect(isNonFiniteHalf(0x7bff)).toBe(false);
    expect(isNonFiniteHalf(0x8001)).toBe(false);
  });

  it("round-trips every finite half exactly", () => {
    const wrong: number[] = [];
    for (let h = 0; h < 65_536; h++) if (!isNonFiniteHalf(h) && toHalf(HALF_TO_FLOAT[h]!) !== h) wrong.push(h);
    expect(wrong).toEqual([]);
  });

  it("moves the cosine of unit 512-dimension vectors by far less than 1e-3", () => {
    let seed = 7;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) - 0.5;
    const unit = (): Float32Array => {
      const v = Float32Array.from({ length: 512 }, rnd);
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    let worst = 0;
    for (let k = 0; k < 50; k++) {
      const a = unit();
      const b = unit();
      const halves = new Uint16Array(512);
      encodeHalves(a, halves, 0);
      let exact = 0;
      let rounded = 0;
      for (let i = 0; i < 512; i++) {
        exact += a[i]! * b[i]!;
        rounded += HALF_TO_FLOAT[halves[i]!]! * b[i]!;
      }
      worst = Math.max(worst, Math.abs(exact - rounded));
    }
    expect(worst).toBeLessThan(1e-4);
  });
});
