/**
 * The RE2 rewrite keeps ECMA-262 meaning: every pattern here is run by V8 (`u` flag) and by
 * the translated re2js matcher on the same strings, and both must answer alike.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { RE2JS } from "re2js";
import { translatePattern } from "../../src/jsonschema/regex-translate.js";

const PATTERNS = [
  "^\\d+$", "\\D", "^\\w+$", "\\W", "^\\s+$", "\\S", "^[\\s]+$", "^[^\\s]+$", "^[\\S]$", "^[a\\s-]+$",
  "^.$", "^.+$", "a.c", "^[^]$", "^[]$", "^[^]*$", "\\bfoo\\b", "\\Bo", "^\\p{L}+$", "^\\p{Letter}+$",
  "^\\p{Lu}", "\\P{L}", "^[\\p{L}\\p{Nd}_]+$", "^\\p{digit}+$", "^\\p{Script=Greek}+$", "^\\p{sc=Latin}+$",
  "^\\p{gc=Lu}", "^\\p{General_Category=Decimal_Number}+$", "^[\\P{L}]+$", "^\\u00e9$", "^\\u{1F600}$",
  "^\\uD83D\\uDE00$", "^\\x41$", "^\\cJ$", "^\\0$", "^\\v$", "^[\\b]$", "^\\t\\n\\r\\f$", "^a{2,3}$",
  "^a{2}$", "^a{2,}$", "^(ab|cd)+?$", "^(?:ab)*$", "^(?<name>x)y$", "^[a-z-]+$", "^[-a-z]+$", "^[a-z-9]+$",
  "^[\\-.]+$", "^\\^\\$\\\\\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\/$", "^[\\]\\[]+$", "^[\\^x]$", "^[x^]$",
  "😀", "^[😀-😂]$", "^é+$", "^$", "", "x$", "^x", "(?:)", "a|", "|b", "^[\\d-]$", "^[\\w.]+@[\\w.]+$",
  "^(\\([0-9]{3}\\))?[0-9]{3}-[0-9]{4}$", "^[A-Za-z_][A-Za-z0-9_]{0,63}:(Face|Edge|Vertex)[0-9]+$",
];

const STRINGS = [
  "", "a", "abc", "ABC", "123", "١٢٣", "foo bar", " ", "\t\n\v\f\r", "\u00a0", "\u2028", "\u3000", "\ufeff",
  "\u1680", "x\ny", "\r", "é", "É", "😀", "😁", "a😀b", "αβγ", "Ωmega", "Latin", "_", "-", "a-b", "x.y@z.w",
  "\u0000", "\u0008", "A", "\n", "\v", "\t\n\r\f", "ab", "aa", "aaa", "abab", "cd", "xy", "a-z", "^$\\.*+?()[]{}|/",
  "][", "^", "(888)555-1212", "555-1212", "pCube1:Face12", "x", "foo", "a foo b", "afoob", "too", "αλφα", "\u{1F602}",
];

describe("regex translation keeps ECMA-262 meaning", () => {
  it("answers as V8 does on every pattern x string", () => {
    const disagreements: string[] = [];
    for (const p of PATTERNS) {
      // re2js on the translation, always: regex.ts hands some of these to V8 instead.
      const t = translatePattern(p);
      if (!t.ok) throw new Error(`${p}: ${t.reason}`);
      const re2 = RE2JS.compile(t.source);
      const js = new RegExp(p, "u");
      for (const s of STRINGS) {
        if (re2.test(s) !== js.test(s)) disagreements.push(`${JSON.stringify(p)} on ${JSON.stringify(s)}`);
      }
    }
    expect(disagreements).toEqual([]);
  });

  it("reads \\s as ECMA's whitespace set, not RE2's", () => {
    const t = translatePattern("\\s");
    expect(t.ok && t.source).toContain("\\x{3000}");
  });

  it("turns captures into non-capturing groups", () => {
    expect(translatePattern("(a)(?<n>b)(?:c)")).toEqual({ ok: true, source: "(?:a)(?:b)(?:c)" });
  });
});

describe("regex translation on random patterns (fast-check)", () => {
  const atom = fc.constantFrom(
    "a", "b", "é", "😀", ".", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "[ab]", "[^a]", "[a-c\\s]", "[^\\d\\s]",
    "\\u00e9", "\\u{1F600}", "\\x61", "\\t", "\\n", "\\-", "[\\b]", "\\p{L}", "\\P{Lu}", "\\p{Nd}", "[\\p{L}0-9]", "\\.", "\\^",
  );
  const quantifier = fc.constantFrom("", "", "*", "+", "?", "{2}", "{1,3}", "{0,}", "*?", "+?");
  const piece = fc.tuple(atom, quantifier).map(([a, q]) => a + q);
  const seq = fc.array(piece, { minLength: 0, maxLength: 4 }).map((xs) => xs.join(""));
  const group = fc.tuple(seq, seq, quantifier).map(([x, y, q]) => `(?:${x}|${y})${q}`);
  const pattern = fc
    .tuple(fc.constantFrom("", "^"), fc.array(fc.oneof(piece, group), { minLength: 1, maxLength: 4 }), fc.constantFrom("", "$"), fc.boolean())
    .map(([open, body, close, bound]) => `${open}${bound ? "\\b" : ""}${body.join("")}${close}`);
  const text = fc.array(fc.constantFrom("a", "b", "c", "é", "😀", "1", "٣", " ", "\u00a0", "\u2028", "\n", "\t", "-", ".", "^", "_", "A", "\b"), { maxLength: 8 }).map((xs) => xs.join(""));

  it("re2js on the translation answers as V8 does", () => {
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 6 }), (p, strings) => {
        let js: RegExp;
        try {
          js = new RegExp(p, "u");
        } catch {
          return true;
        }
        const t = translatePattern(p);
        if (!t.ok) return true;
        const re2 = RE2JS.compile(t.source);
        for (const s of strings) expect(re2.test(s), `${JSON.stringify(p)} on ${JSON.stringify(s)}`).toBe(js.test(s));
        return true;
      }),
      { numRuns: 400 },
    );
  });
});
