/**
 * Every Unicode property escape ECMA-262 defines for `u` mode matches as V8 matches it, on
 * both matchers (V8 on the linear class, re2js on the rest), and in linear time by
 * construction: a property is a class of code points (regex-properties.ts), so a hostile
 * input costs one step per character on re2js and the backtracking engine only ever runs
 * what regex-linear.ts proves linear. Table-driven over fixtures/unicode-properties.ts;
 * Node's own `new RegExp("\\p{X}", "u")` says which names this V8 accepts (a name it
 * refuses must be refused as invalid_pattern here too).
 */
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/jsonschema/index.js";
import { buildPattern } from "../../src/jsonschema/regex.js";
import { propertyRanges } from "../../src/jsonschema/regex-properties.js";
import { BINARY_PROPERTIES, GENERAL_CATEGORY_VALUES, SCRIPT_VALUES } from "./fixtures/unicode-properties.js";

function v8Accepts(body: string): boolean {
  try {
    new RegExp(`\\p{${body}}`, "u");
    return true;
  } catch {
    return false;
  }
}

/**
 * Code points to compare on: every range boundary V8's own test puts either side of a
 * change, found by walking a stride and bisecting where the answer flips, plus the stride
 * points themselves and the surrogates' edges.
 */
function probePoints(re: RegExp): number[] {
  const at = (c: number): boolean => re.test(String.fromCodePoint(c));
  const points = new Set<number>([0, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xffff, 0x10000, 0x10ffff]);
  const STRIDE = 251;
  let prev = at(0);
  for (let c = STRIDE; c <= 0x10ffff + STRIDE; c += STRIDE) {
    const x = Math.min(c, 0x10ffff);
    const now = at(x);
    points.add(x);
    if (now !== prev) {
      // Bisect to the flip between x - STRIDE and x.
      let lo = x - STRIDE;
      let hi = x;
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (at(mid) === prev) lo = mid;
        else hi = mid;
      }
      points.add(lo).add(hi);
    }
    prev = now;
  }
  return [...points];
}

/**
 * `^\p{X}$` (linear class: V8 runs it), `^(?:\p{X})+$` and `^[^\P{X}]$` through a quantified
 * group (re2js), compared with V8 on the probe points; the re2js forms must not be RegExps.
 */
function expectSameAsV8(body: string): void {
  const reference = new RegExp(`^\\p{${body}}$`, "u");
  const direct = buildPattern(`^\\p{${body}}$`);
  const viaRe2 = buildPattern(`^(?:\\p{${body}}|\\x00\\x00)+$`);
  const negated = buildPattern(`^(?:[^\\P{${body}}]|\\x00\\x00)+$`);
  for (const b of [direct, viaRe2, negated]) if (!b.ok) throw new Error(`${body} refused: ${b.message}`);
  if (!direct.ok || !viaRe2.ok || !negated.ok) return;
  expect(direct.matcher, body).toBeInstanceOf(RegExp);
  expect(viaRe2.matcher, body).not.toBeInstanceOf(RegExp);
  expect(negated.matcher, body).not.toBeInstanceOf(RegExp);
  const wrong: string[] = [];
  for (const c of probePoints(reference)) {
    const s = String.fromCodePoint(c);
    const want = reference.test(s);
    if (direct.matcher.test(s) !== want || viaRe2.matcher.test(s) !== want || negated.matcher.test(s) !== want) {
      wrong.push(c.toString(16));
    }
  }
  expect(wrong, body).toEqual([]);
}

const SLOW = 600_000;

describe("Unicode property escapes (ECMA-262, u mode)", () => {
  it("every binary property and alias", () => {
    for (const name of BINARY_PROPERTIES) {
      if (v8Accepts(name)) expectSameAsV8(name);
      else expect(buildPattern(`\\p{${name}}`)).toMatchObject({ ok: false, code: "invalid_pattern" });
    }
  }, SLOW);

  it("every General_Category value and alias, bare and as gc= or General_Category=", () => {
    for (const value of GENERAL_CATEGORY_VALUES) {
      for (const body of [value, GENERAL_CATEGORY_VALUES.indexOf(value) % 2 === 0 ? `gc=${value}` : `General_Category=${value}`]) {
        if (v8Accepts(body)) expectSameAsV8(body);
        else expect(buildPattern(`\\p{${body}}`)).toMatchObject({ ok: false, code: "invalid_pattern" });
      }
    }
  }, SLOW);

  it("every Script value and alias, as sc= or Script=", () => {
    SCRIPT_VALUES.forEach((value, i) => {
      // The key's two spellings take turns: the key does not change the set.
      for (const body of [i % 2 === 0 ? `sc=${value}` : `Script=${value}`]) {
        if (v8Accepts(body)) expectSameAsV8(body);
        else expect(buildPattern(`\\p{${body}}`)).toMatchObject({ ok: false, code: "invalid_pattern" });
      }
    });
  }, SLOW);

  it("every Script_Extensions value and alias, as scx= or Script_Extensions=", () => {
    SCRIPT_VALUES.forEach((value, i) => {
      for (const body of [i % 2 === 1 ? `scx=${value}` : `Script_Extensions=${value}`]) {
        if (v8Accepts(body)) expectSameAsV8(body);
        else expect(buildPattern(`\\p{${body}}`)).toMatchObject({ ok: false, code: "invalid_pattern" });
      }
    });
  }, SLOW);

  it("names outside ECMA-262's u mode are invalid_pattern, as V8 says", () => {
    // Properties of strings exist only in v mode; the rest are not ECMA names at all.
    for (const body of ["RGI_Emoji", "Basic_Emoji", "Emoji_Presentationx", "Block=Basic_Latin", "Script=Nope", "gc=Letterx", "emoji", "Line_Break=AL"]) {
      expect(v8Accepts(body), body).toBe(false);
      expect(buildPattern(`\\p{${body}}`), body).toMatchObject({ ok: false, code: "invalid_pattern" });
    }
  });

  it("the issue's pattern: ^\\p{Emoji_Presentation}+$ is accepted and matches", () => {
    const r = compileSchema({ type: "string", pattern: "^\\p{Emoji_Presentation}+$" });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.validator.validate("😀🎉🚀").valid).toBe(true);
    expect(r.validator.validate("😀a").valid).toBe(false);
    // U+263A (☺) is Emoji but not Emoji_Presentation.
    expect(r.validator.validate("\u263a").valid).toBe(false);
    expect(r.validator.validate("").valid).toBe(false);
  });

  it("a property's ranges are sorted, disjoint and cover what V8 matches (Emoji_Presentation, exhaustively)", () => {
    const ranges = propertyRanges("Emoji_Presentation")!;
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]![0]).toBeGreaterThan(ranges[i - 1]![1] + 1);
    const re = /^\p{Emoji_Presentation}$/u;
    let k = 0;
    const wrong: number[] = [];
    for (let c = 0; c <= 0x10ffff; c++) {
      while (k < ranges.length && ranges[k]![1] < c) k++;
      const inside = k < ranges.length && ranges[k]![0] <= c;
      if (inside !== re.test(String.fromCodePoint(c))) wrong.push(c);
    }
    expect(wrong).toEqual([]);
  }, SLOW);
});

describe("Unicode property patterns on hostile input (linear by construction)", () => {
  // Per class of property, a nested-quantifier shape that makes a backtracking engine take
  // exponential time, on 20,000 characters that almost match. Each must be run by re2js (not
  // a RegExp) and answer; its cost is bounded by the step budget's charge for the length.
  const cases: Array<[string, string, string]> = [
    ["binary", "^(\\p{Emoji_Presentation}+)+$", "😀".repeat(20_000) + "a"],
    ["General_Category", "^(\\p{L}|\\p{Lu})*$", "A".repeat(20_000) + "1"],
    ["Script", "^(\\p{sc=Greek}*\\p{Script=Greek}*)*!$", "α".repeat(20_000)],
    ["Script_Extensions", "^(?:[\\p{scx=Latn}\\d]+\\p{Script_Extensions=Latin})+$", "a".repeat(20_000) + " "],
    ["negated", "^(\\P{L}+)+$", "1".repeat(20_000) + "a"],
  ];
  for (const [kind, pattern, input] of cases) {
    it(`${kind}: ${pattern}`, () => {
      const b = buildPattern(pattern);
      if (!b.ok) throw new Error(b.message);
      expect(b.matcher).not.toBeInstanceOf(RegExp);
      const r = compileSchema({ pattern }, { maxSteps: 1 + Math.floor(input.length / 8) });
      if (!r.ok) throw new Error(r.error.message);
      // Within the budget a pattern test is charged: the match runs, and answers no.
      const result = r.validator.validate(input);
      expect(result.valid).toBe(false);
      expect(result.errors[0]?.keyword).toBe("pattern");
    });
  }
});
