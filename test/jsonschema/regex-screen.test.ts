import { describe, expect, it } from "vitest";
import { screenPattern } from "../../src/jsonschema/regex-screen.js";

describe("screenPattern", () => {
  it("refuses exponential backtracking shapes", () => {
    for (const p of ["^(a+)+$", "(a*)*", "(x+x+)+y", "(\\w+\\s?)*$", "(a|a)*", "(a|ab)*c", "(\\r\\n|\\r|\\n)*x", "(.*a){20}", "(a)\\1", "(?<n>a)\\k<n>", "^(a?){25}a{25}$"]) {
      expect(screenPattern(p).safe, p).toBe(false);
    }
  });

  it("accepts common safe patterns", () => {
    for (const p of [
      "^[a-z][a-z0-9_-]*$",
      "^\\d+(\\.\\d+)?$",
      "^[a-z]+(?:-[a-z]+)*$",
      "^([a-z0-9]+\\.)+[a-z]{2,}$",
      "^(\\d+\\.){3}\\d+$",
      "^\\p{L}+$",
      "^(?:[^\"\\\\]|\\\\.)*$",
      "^_LOD[0-7]$",
      "^(?:a|b)*$",
      "^[A-Z][A-Z0-9_]{1,15}$",
    ]) {
      expect(screenPattern(p).safe, p).toBe(true);
    }
  });

  it("refuses absurd group nesting instead of recursing", () => {
    expect(screenPattern("(".repeat(1000) + "a" + ")".repeat(1000)).safe).toBe(false);
  });
});
