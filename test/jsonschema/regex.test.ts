/**
 * Patterns run on the linear-time matcher (src/jsonschema/regex.ts). The ReDoS probes
 * froze the event loop for seconds to minutes on a backtracking engine; each must now answer
 * (the assertions are on the answer: the speed shows in the test's run time, and
 * bench:jsonschema measures it).
 */
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/jsonschema/index.js";
import { buildPattern } from "../../src/jsonschema/regex.js";
import { compiled } from "./helpers.js";

const valid = (schema: unknown, instance: unknown): boolean => compiled(schema).validate(instance).valid;

describe("ReDoS probes", () => {
  it("a*a*a*a*a*b on 200 a's", () => {
    expect(valid({ pattern: "a*a*a*a*a*b" }, "a".repeat(200))).toBe(false);
    expect(valid({ pattern: "a*a*a*a*a*b" }, `${"a".repeat(200)}b`)).toBe(true);
  });

  it("\\s+$ on 100k spaces + x", () => {
    expect(valid({ pattern: "\\s+$" }, `${" ".repeat(100_000)}x`)).toBe(false);
    expect(valid({ pattern: "\\s+$" }, `x${" ".repeat(100_000)}`)).toBe(true);
  });

  it("^\\S+@\\S+\\.\\S+$ on 100k chars", () => {
    expect(valid({ pattern: "^\\S+@\\S+\\.\\S+$" }, "a".repeat(100_000))).toBe(false);
    expect(valid({ pattern: "^\\S+@\\S+\\.\\S+$" }, `${"a".repeat(100_000)}@b.c`)).toBe(true);
  });

  it("^\\d*\\d*\\d*\\d*x$ on 1,000 digits", () => {
    expect(valid({ pattern: "^\\d*\\d*\\d*\\d*x$" }, "1".repeat(1000))).toBe(false);
    expect(valid({ pattern: "^\\d*\\d*\\d*\\d*x$" }, `${"1".repeat(1000)}x`)).toBe(true);
  });

  it("the same probes as patternProperties and propertyNames", () => {
    expect(valid({ patternProperties: { "a*a*a*a*a*b": false } }, { ["a".repeat(200)]: 1 })).toBe(true);
    expect(valid({ patternProperties: { "a*a*a*a*a*b": false } }, { [`${"a".repeat(200)}b`]: 1 })).toBe(false);
    expect(valid({ propertyNames: { pattern: "^\\d*\\d*\\d*\\d*x$" } }, { ["1".repeat(1000)]: 1 })).toBe(false);
  });

  it("nested quantifiers the old screen refused now compile and run", () => {
    expect(valid({ pattern: "^(a+)+$" }, `${"a".repeat(50_000)}!`)).toBe(false);
    expect(valid({ pattern: "^(a|a)*$" }, "a".repeat(50_000))).toBe(true);
    expect(valid({ pattern: "^(\\r\\n|\\r|\\n)*$" }, "\r\n\n\r")).toBe(true);
  });
});

describe("patterns the matcher cannot run are refused with the reason", () => {
  const refused = (p: string): string => {
    const r = compileSchema({ pattern: p });
    if (r.ok) throw new Error(`${p} compiled`);
    expect(r.error.code).toBe("unsupported_pattern");
    return r.error.message;
  };

  it("backreferences and lookaround", () => {
    expect(refused("(a)\\1")).toMatch(/^pattern cannot be matched in linear time: backreferences/);
    expect(refused("(?<x>a)\\k<x>")).toContain("backreferences");
    expect(refused("a(?=b)")).toContain("lookahead");
    expect(refused("a(?!b)")).toContain("lookahead");
    expect(refused("(?<=a)b")).toContain("lookbehind");
    expect(refused("(?<!a)b")).toContain("lookbehind");
  });

  it("RE2's size limits", () => {
    expect(refused("a{2000}")).toContain("1000");
    expect(refused("((a{1000}){1000}){1000}")).toMatch(/linear time: .+/);
  });

  it("invalid ECMAScript patterns stay invalid_pattern, whatever RE2 would accept", () => {
    expect(buildPattern("(?P<n>a)")).toMatchObject({ ok: false, code: "invalid_pattern" });
    expect(buildPattern("\\z")).toMatchObject({ ok: false, code: "invalid_pattern" });
    // ECMA reads `[[:a]` as a class of `[`, `:` and `a`; RE2 would read a POSIX class into it.
    const posixLike = buildPattern("^[[:a]$");
    expect(posixLike.ok && [posixLike.matcher.test("["), posixLike.matcher.test(":"), posixLike.matcher.test("l")]).toEqual([true, true, false]);
  });
});

describe("an automaton pattern remembering its last failing string", () => {
  it("answers as the native regex over any sequence of repeated, passing and failing strings", () => {
    // Alternatives sharing a first character: outside the linear class, so on re2js.
    const source = "\\.(?:ma|mb|abc)$";
    const verdict = buildPattern(source);
    if (!verdict.ok) throw new Error("refused");
    expect(verdict.matcher).not.toBeInstanceOf(RegExp);
    const native = new RegExp(source, "u");
    const long = `${"x".repeat(300)}.mz`;
    const strings = ["a.ma", "a.mz", "a.mz", "b.mb", "a.mz", "", "", long, long, "c.abc", long, "a.mz", ".ma", ".m"];
    for (const s of strings) expect(verdict.matcher.test(s), s).toBe(native.test(s));
  });

  it("first error on a failing pattern member is the same on every call", () => {
    const schema = { type: "object", properties: { file: { type: "string", pattern: "\\.(?:ma|mb)$" } } };
    const r = compileSchema(schema, { allErrors: false, generateAfter: 0 });
    if (!r.ok) throw new Error("refused");
    const expected = [
      { instancePath: "/file", keywordLocation: "/properties/file/pattern", keyword: "pattern", message: 'Expected a string matching the pattern "\\\\.(?:ma|mb)$"' },
    ];
    for (let i = 0; i < 20; i++) {
      expect(r.validator.validate({ file: "scene.mz" })).toEqual({ valid: false, errors: expected });
      expect(r.validator.validate({ file: "scene.ma" }).valid).toBe(true);
    }
  });
});
