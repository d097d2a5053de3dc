/**
 * The class of patterns V8 runs directly (src/jsonschema/regex-linear.ts): what is in it, what
 * is not, and that patterns in it stay fast on the inputs that make backtracking explode
 * when a pattern is only slightly outside it.
 */
import { describe, expect, it } from "vitest";
import { linearOnBacktracking } from "../../src/jsonschema/regex-linear.js";
import { buildPattern } from "../../src/jsonschema/regex.js";

describe("linearOnBacktracking", () => {
  it("admits anchored deterministic sequences and short fixed ones", () => {
    for (const p of [
      "^[A-Za-z_][A-Za-z0-9_]{0,63}$", "^[0-9a-f]{64}$", "^#[0-9a-fA-F]{6}$", "^\\d{4}-\\d{2}-\\d{2}$",
      "^\\d+\\.\\d+\\.\\d+$", "^[a-z][a-z0-9_]*$", "^[^@\\s]+@[^@\\s.]+$", "foo", "^x", "", "^\\S+$", "^a?b+c*$",
      "^[A-Za-z_][A-Za-z0-9_]{0,63}:(Face|Edge|Vertex)[0-9]+$", "^(?:red|green|blue)$", "(ab|cd)",
      "^\\d+\\.\\d+\\.\\d+(?:-[0-9A-Za-z.-]+)?$", "^a(?:-b+)?$", "^\\p{L}+$", "^\\p{Emoji_Presentation}+$", "^[\\p{Lu}_][\\p{Ll}\\d]*$", "^\\p{sc=Greek}+\\d$", "^[a-z]+(?:_[a-z]+)?$", "^(?:ab)c$", "^x(?:-\\d{2})?(?:_[a-z]+)?$",
    ]) expect(linearOnBacktracking(p), p).toBe(true);
  });

  it("leaves to re2js what backtracking could blow up, and what it does not model", () => {
    for (const p of [
      // issue 22's probes
      "a*a*a*a*a*b", "\\s+$", "^\\S+@\\S+\\.\\S+$", "^\\d*\\d*\\d*\\d*x$",
      // unanchored variable, overlapping neighbours, nested, alternation, groups, properties
      "[a-z]+!", "^a*a$", "^(a+)+$", "^a|b$", "^(?:ab)*$", "^(ab|ac)$", "^(a|b)+$", "^[a-z]*(x|y)$", "^(a|)$", "^(a(b))$",
      "^\\d+(?:\\d)?$", "^(?:a*)?$", "^(?:ab)?a$", "^(?:a)?(?:a)?$", "(?:a)?", "^(?:a|b)?$", "^(?:x[a-z]*)?[a-z]$", "^(?:ab)*$", "^(?:a)+$", "^(?:a)??$", "^\\p{L}*[a-z]$", "^a*?$", "\\bword\\b", "^[\\u0041]+$",
      // a long fixed pattern unanchored: n attempts of 65 steps
      "a{65}",
    ]) expect(linearOnBacktracking(p), p).toBe(false);
  });

  it("an admitted pattern answers as V8 does, and fast on hostile input", () => {
    const m = buildPattern("^[A-Za-z_][A-Za-z0-9_]{0,63}$");
    if (!m.ok) throw new Error("refused");
    expect(m.matcher).toBeInstanceOf(RegExp);
    expect(m.matcher.test("pCube_1")).toBe(true);
    expect(m.matcher.test(`a${"b".repeat(100_000)}!`)).toBe(false);
    const dot = buildPattern("^a.*b$");
    if (!dot.ok) throw new Error("refused");
    // `.` overlaps `b`: not in the class, so re2js answers.
    expect(dot.matcher).not.toBeInstanceOf(RegExp);
    expect(dot.matcher.test(`a${"x".repeat(100_000)}`)).toBe(false);
  });
});
