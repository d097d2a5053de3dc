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
      "^\\d+\\.\\d+\\.\\d+(?:-[0-9A-Za-z.-]+)?$", "^a(?:-b+)?$", "^\\p{L}+$", "^\\p{Emoji_Presentation}+$", "^[\\p{Lu}_][\\p{Ll}\\d]*$", "^\\p{sc=Greek}+\\d$",
      // one overlapping variable atom before a short fixed tail
      "^a*a$", "^[a-z]*(x|y)$", "^[A-Za-z][A-Za-z0-9_]*_MTL$", "^[a-z]+[a-z]{3}$",
      // loops (`*`, `+`) of a sequence whose next pass, exit and inner choices are disjoint
      "^(?:ab)*$", "^(?:a)+$", "^/obj/[A-Za-z0-9_]+(/[A-Za-z0-9_]+)*$", "^[a-z]+(?:\\.[a-z]+)*$", "^(?:a*b)*$", "^(?:ab*)*c$", "^a*(?:ba)*$", "^[a-z]+(?:_[a-z]+)?$", "^(?:ab)c$", "^x(?:-\\d{2})?(?:_[a-z]+)?$",
      // a group, or a variable atom inside one, that overlaps only a short fixed tail after the group
      "^(?:ab*)*a$", "^(?:ab*)*b$", "^(?:ab)?a$", "^(?:x[a-z]*)?[a-z]$", "^(?:/[a-z0-9_]+)+/$", "^(?:x[a-z]*[0-9]*)?[a-z0-9]$",
    ]) expect(linearOnBacktracking(p), p).toBe(true);
  });

  it("leaves to re2js what backtracking could blow up, and what it does not model", () => {
    for (const p of [
      // the ReDoS probes
      "a*a*a*a*a*b", "\\s+$", "^\\S+@\\S+\\.\\S+$", "^\\d*\\d*\\d*\\d*x$",
      // unanchored variable, overlapping neighbours, nested, alternation, groups, properties
      "[a-z]+!", "^a*a*$", "^[a-z]*a{17}$", "^[a-z]+(?:x)?a$", "^(a+)+$", "^a|b$", "^(ab|ac)$", "^(a|b)+$", "^(a|)$", "^(a(b))$",
      "^\\d+(?:\\d)?$", "^(?:a*)?$", "^(?:a)?(?:a)?$", "(?:a)?", "^(?:a|b)?$", "^(?:a)??$", "^(?:x[a-z]*)?[a-z]+$", "^(?:a+)+a$",
      // loops whose next pass or exit overlap
      "^(?:a[ab]*)*b$", "^(?:ab*)*(?:ab)?$", "^(?:[a-z]+\\.)*[a-z]+$", "^(?:ab)*(?:ac)*$", "^(?:a)*?$", "^(?:ab){2,}$", "(?:ab)*", "^\\p{L}*[a-z]\\p{L}*$", "^a*?$", "\\bword\\b", "^[\\u0041]+$",
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
    const dot = buildPattern("^a.*b.*c$");
    if (!dot.ok) throw new Error("refused");
    // `.` overlaps `b`, and no fixed tail follows: not in the class, so re2js answers.
    expect(dot.matcher).not.toBeInstanceOf(RegExp);
    expect(dot.matcher.test(`a${"b".repeat(100_000)}`)).toBe(false);
  });

  it("admitted loops and fixed tails answer on near misses of 100k characters (V8 itself runs them)", () => {
    const cases: Array<[string, string, string]> = [
      ["^/obj/[A-Za-z0-9_]+(/[A-Za-z0-9_]+)*$", `/obj/${"a/b".repeat(30_000)}`, `/obj/${"a/b".repeat(30_000)}/`],
      ["^(?:a*b)*$", `${"aab".repeat(30_000)}`, `${"aab".repeat(30_000)}a`],
      ["^[a-z]+(?:\\.[a-z]+)*$", `${"ab.".repeat(30_000)}c`, `${"ab.".repeat(30_000)}`],
      ["^(?:ab*)*c$", `${"abbb".repeat(25_000)}c`, `${"abbb".repeat(25_000)}`],
      ["^[A-Za-z][A-Za-z0-9_]*_MTL$", `a${"b_".repeat(50_000)}MTL`, `a${"_MT".repeat(33_000)}`],
      ["^(?:/[a-z0-9_]+)+/$", `${"/ab".repeat(30_000)}/`, `${"/ab".repeat(30_000)}//`],
      ["^(?:ab*)*b$", `${"abbb".repeat(25_000)}b`, `${"abbb".repeat(25_000)}a`],
      ["^(?:x[a-z]*[0-9]*)?[a-z0-9]$", `x${"a".repeat(100_000)}1`, `x${"a1".repeat(50_000)}!`],
    ];
    for (const [pattern, match, miss] of cases) {
      const m = buildPattern(pattern);
      if (!m.ok) throw new Error(`refused ${pattern}`);
      expect(m.matcher, pattern).toBeInstanceOf(RegExp);
      expect(m.matcher.test(match), pattern).toBe(true);
      expect(m.matcher.test(miss), pattern).toBe(false);
    }
  });
});
