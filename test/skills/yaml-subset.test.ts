/**
 * The plain YAML subset parser: each construct it answers must equal the
 * `yaml` package (YAML 1.2 core, toJS) value and entry lines; everything
 * outside the subset, and every hostile input, must come back null (or,
 * where the subset covers it, equal).
 */
import { isSeq, LineCounter, parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { MAX_SUBSET_DEPTH, parseYamlSubset } from "../../src/skills/yaml-subset.js";

interface Reference {
  readonly data: unknown;
  readonly lines: number[] | null;
}

/** What the exact parser answers, or null when it reports any error. */
function exact(text: string): Reference | null {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true });
  if (doc.errors.length > 0) return null;
  const seq = doc.get("recipes", true);
  const lines = isSeq(seq) ? seq.items.map((n) => lineCounter.linePos((n as { range: number[] }).range[0]!).line) : null;
  return { data: doc.toJS({ maxAliasCount: 100 }), lines };
}

/** The subset answers and agrees with the exact parser. */
function expectAgreement(text: string): unknown {
  const reference = exact(text);
  expect(reference, "the exact parser accepts the case").not.toBeNull();
  const mine = parseYamlSubset(text);
  expect(mine, "the subset answers").not.toBeNull();
  expect(mine!.data).toStrictEqual(reference!.data);
  expect(mine!.recipeLines).toStrictEqual(reference!.lines);
  return mine!.data;
}

describe("parseYamlSubset answers like the yaml package", () => {
  it.each([
    ["a block mapping", "name: x\ndescription: a plain value\n"],
    ["nested mappings", "a:\n  b:\n    c: 1\n  d: 2\ne: 3\n"],
    ["quoted keys", "\"a b\": 1\n'c''d': 2\n\"e\\tf\": 3\n"],
    ["keys typed then stringified", "1: a\n1.5: b\n0x1F: c\n0o17: d\n~: e\ntrue: f\n.inf: g\n-0: h\n1e3: i\n"],
    ["a block sequence", "- a\n- 1\n- true\n- ~\n"],
    ["a sequence at its key's indentation", "a:\n- 1\n- 2\nb: 3\n"],
    ["compact mappings in a sequence", "- name: x\n  n: 1\n-   name: y\n    n: 2\n"],
    ["nested sequences", "- - a\n  - b\n- - - c\n"],
    ["empty items and values", "a:\nb: ~\nc:\n  -\n  - \n  - x\n"],
    ["flow sequences", "a: [1, two, \"three\", 'four', [5, [6]], {k: v}]\n"],
    ["flow mappings", "a: {x: 1, 'y': [2], \"z\":3, w, v: }\n"],
    ["empty flow collections", "a: []\nb: {}\nc: [ ]\n"],
    ["a trailing comma in flow", "a: [1, 2, ]\nb: {x: 1,}\n"],
    ["a multi-line flow collection", "a: [1,\n  2, # two\n\n  3]\nb: {x: 1,\n   y: 2}\n"],
    ["plain scalars with indicators inside", "a: b:c\nd: e#f\ng: h - i\nj: k, l]\nurl: http://x.y/z?q=1#frag\np: ${target}\n"],
    ["plain scalars ending in a comment", "a: b # comment\nc: d\t# tab comment\n"],
    ["null, bool, int and float variants", "n: [null, Null, NULL, ~, nUll]\nb: [true, True, TRUE, false, False, FALSE, tRue, yes, no, on]\n"],
    ["numbers", "i: [0, -0, +1, 007, 0o17, 0o8, 0x1F, 0xg, 1_000, 0b11]\nf: [1.5, 1., .5, +.5, -.5, 1e3, 1E-3, .5e3, -1.5e+2, 1e400]\n"],
    ["special floats", "f: [.inf, -.Inf, +.INF, .nan, .NaN, .NAN, .Nan, inf]\n"],
    ["dates and times stay strings", "d: 2024-01-01\nt: 12:30:00\n"],
    ["single-quoted scalars", "a: 'it''s'\nb: ''\nc: '# not a comment'\n"],
    ["double-quoted escapes", 'a: "\\t\\n\\r\\\\\\"\\/\\0\\a\\b\\e\\f\\v\\N\\_\\L\\P\\ \\x41\\u00e9\\U0001F600"\n'],
    ["a literal block scalar", "a: |\n  line 1\n    indented\n\n  line 3\nb: 1\n"],
    ["literal chomping", "s: |-\n  x\n\nk: |+\n  y\n\n\nc: |\n  z\n\n"],
    ["a folded block scalar", "a: >\n  one\n  two\n\n  three\n\n\n  four\nb: >-\n  x\n"],
    ["block scalar headers with comments", "a: | # keep it\n  x\nb: >+ # keep\n  y\n"],
    ["block scalars in sequences", "- |\n  a\n- >-\n  b\n- k: |\n    c\n"],
    ["leading blank lines in a block scalar", "a: |\n\n  x\n"],
    ["a block scalar ended by a comment", "a: |+\n  x\n\n# c\n\nb: 1\n"],
    ["a block scalar at the end of the text", "a: |\n  x"],
    ["comments and blank lines everywhere", "# head\n\na: 1 # one\n  # indented comment\n\n# mid\nb:\n  # before\n  - x # item\n\n  # between\n  - y\n# tail\n"],
    ["a leading document marker", "---\na: 1\n"],
    ["a document marker with a comment", "# c\n--- # start\na: 1\n"],
    ["CRLF line ends", "a: 1\r\nb:\r\n  - x\r\n  - |\r\n    y\r\n    z\r\nc: [1,\r\n   2]\r\n"],
    ["an indented root mapping", "  a: 1\n  b: 2\n"],
    ["a root scalar", "hello world\n"],
    ["a root sequence", "- a\n- b\n"],
    ["a root flow collection over lines", "[a,\nb]\n"],
    ["an empty document", ""],
    ["a comment-only document", "# nothing\n\n"],
    ["unicode", "名前: 日本語\nemoji: \"😀\"\nnbsp: a\u00a0b\nls: a\u2028b\n"],
    ["a __proto__ key kept as data", "__proto__: {polluted: true}\nconstructor: x\ntoString: y\n"],
    ["a key at 1000 characters", `${"k".repeat(1000)}: v\n`],
    ["a long line", `a: ${"x".repeat(200_000)}\n`],
    ["recipe entry lines", "pack: p\nrecipes:\n  - name: a\n\n  # c\n  -\n    name: b\n  - # c\n    name: c\n  -\n  - [x]\n"],
    ["recipe entry lines in flow", "recipes: [a,\n  {name: b},\n\n  c]\n"],
    ["recipes that are not a sequence", "recipes: {a: 1}\nx:\n  recipes: [1]\n"],
  ])("%s", (_name, text) => {
    expectAgreement(text);
  });

  it("regression: keys read through the key cache of large documents (__proto__, typed, colliding keys)", () => {
    // Typed keys become strings ("1000", "2.5", "31", "true", ""); none collide within an entry.
    const keys = (i: number): string[] => ["__proto__", `${i + 1000}`, `${i}.5`, "0x1F", "true", "~", "-0", "name", "type", "tags", "tool", "toString", "a", "b", "ab", "ba"];
    let text = "";
    for (let i = 0; i < 200; i++) {
      text += keys(i).map((k, j) => `${j === 0 ? "- " : "  "}${k}: ${j}`).join("\n") + "\n";
      text += `  nested: {${keys(i).slice(7).map((k) => `${k}: x`).join(", ")}}\n`;
    }
    expect(text.length).toBeGreaterThan(4096);
    const data = expectAgreement(text) as Array<Record<string, unknown>>;
    expect(Object.hasOwn(data[0]!, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(data[5]!)).toBe(Object.prototype);
  });

  it("keeps YAML 1.2 core types where js-yaml diverges", () => {
    const data = expectAgreement("a: 1_000\nb: 0b11\nc: 0x_1F\nd: +.5\ne: -.5\n");
    expect(data).toStrictEqual({ a: "1_000", b: "0b11", c: "0x_1F", d: 0.5, e: -0.5 });
  });

  it("keeps a __proto__ key as an own property without touching prototypes", () => {
    const data = parseYamlSubset("__proto__: {polluted: true}\n")!.data as Record<string, unknown>;
    expect(Object.hasOwn(data, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("gives -0 and NaN as the package does", () => {
    const data = expectAgreement("z: -0\nn: .nan\n") as Record<string, number>;
    expect(Object.is(data["z"], -0)).toBe(true);
    expect(Number.isNaN(data["n"])).toBe(true);
  });
});

describe("parseYamlSubset steps aside outside the subset", () => {
  it.each([
    ["an anchor and alias", "a: &x 1\nb: *x\n"],
    ["a merge key", "<<: {a: 1}\n"],
    ["a tag", "a: !str 1\n"],
    ["a directive", "%YAML 1.2\n---\na: 1\n"],
    ["a second document", "a: 1\n---\nb: 2\n"],
    ["a document end marker", "a: 1\n...\n"],
    ["content after the start marker", "--- a\n"],
    ["an explicit key", "? a\n: b\n"],
    ["a duplicate key", "a: 1\na: 2\n"],
    ["a duplicate key after typing", "1: a\n1.0: b\n"],
    ["a key and a quoted key that collide", "1: a\n\"1\": b\n"],
    ["a tab in indentation", "a:\n\tb: 1\n"],
    ["a tab after spaces in indentation", "a:\n  \tb: 1\n"],
    ["a tab after a dash", "-\tx\n"],
    ["a multi-line plain scalar", "a: b\n  c\n"],
    ["a multi-line single-quoted scalar", "a: 'b\n  c'\n"],
    ["a multi-line double-quoted scalar", "a: \"b\n  c\"\n"],
    ["an escaped line break", "a: \"b\\\n  c\"\n"],
    ["an unknown escape", "a: \"\\q\"\n"],
    ["a bad hex escape", "a: \"\\x4g\"\n"],
    ["a code point past U+10FFFF", "a: \"\\U00110000\"\n"],
    ["an indentation indicator", "a: |2\n   x\n"],
    ["an empty block scalar", "a: |\nb: 1\n"],
    ["a more-indented leading blank line", "a: |\n     \n  x\n"],
    ["a more-indented line in a folded scalar", "a: >\n  x\n    y\n"],
    ["a block scalar header on its own line", "a:\n  |\n  x\n"],
    ["a compact nested mapping", "a: b: c\n"],
    ["a nested sequence on the key line", "a: - b\n"],
    ["an implicit pair in a flow sequence", "a: [b: c]\n"],
    ["an empty flow entry", "a: [1,,2]\n"],
    ["an unterminated flow collection", "a: [1, 2\n"],
    ["a flow continuation line not indented", "a: [1,\n2]\n"],
    ["a multi-line plain scalar in flow", "a: [b\n  c]\n"],
    ["a collection as a key", "[a]: b\n"],
    ["a misaligned mapping", "a:\n  b: 1\n c: 2\n"],
    ["a misaligned sequence", "a:\n  - 1\n - 2\n"],
    ["text after a quoted scalar", "a: \"b\" c\n"],
    ["a quoted key glued to its value", "\"a\":b\n"],
    ["a single-quoted key glued to its value", "- 'a':b\n"],
    ["trailing spaces deeper than a block scalar at the end", "a: |\n  x\n     "],
    ["a comment without white space before it", "a: \"b\"#c\n"],
    ["reserved and indicator starts", "a: @b\n"],
    ["a backquote start", "a: `b`\n"],
    ["a key past 1000 characters", `${"k".repeat(1001)}: v\n`],
    ["a leading byte order mark", "\ufeffa: 1\n"],
    ["a byte order mark opening a later line", "\n\ufeffa: 1\n"],
    ["a lone carriage return", "a: 1\rb: 2\n"],
    ["a NUL in a plain scalar", "a: x\0y\n"],
    ["a control character in a quoted scalar", "a: 'x\x01y'\n"],
  ])("%s", (_name, text) => {
    expect(parseYamlSubset(text)).toBeNull();
  });
});

describe("parseYamlSubset on hostile input", () => {
  function nestedBlock(levels: number): string {
    let out = "";
    for (let i = 0; i < levels; i++) out += `${" ".repeat(i)}k:\n`;
    return out + `${" ".repeat(levels)}v\n`;
  }

  it("answers nesting within its bound", () => {
    expectAgreement(nestedBlock(MAX_SUBSET_DEPTH - 1));
    expectAgreement(`a: ${"[".repeat(MAX_SUBSET_DEPTH - 1)}${"]".repeat(MAX_SUBSET_DEPTH - 1)}\n`);
  });

  it("steps aside past its nesting bound without exhausting the stack", () => {
    expect(parseYamlSubset(nestedBlock(MAX_SUBSET_DEPTH + 1))).toBeNull();
    expect(parseYamlSubset("a: " + "[".repeat(100_000) + "]".repeat(100_000))).toBeNull();
    expect(parseYamlSubset("- ".repeat(50_000) + "x\n")).toBeNull();
    expect(parseYamlSubset("a: " + "{b: ".repeat(50_000))).toBeNull();
  });

  it("handles huge and pathological lines in linear time", () => {
    const n = 1_000_000;
    expectAgreement(`a: ${"x ".repeat(n / 2)}y\n`);
    expect(parseYamlSubset(`a: ${"x:".repeat(n / 2)} y\n`) === null).toBe(true);
    expect(parseYamlSubset(`${" ".repeat(n)}#\n${"#".repeat(n)}\n`)).toStrictEqual({ data: null, recipeLines: null });
    expect((parseYamlSubset(`a: "${"\\".repeat(n)}"\n`)?.data as { a: string }).a).toBe("\\".repeat(n / 2));
    expect(parseYamlSubset(`a: "${"\\".repeat(n + 1)}"\n`) === null).toBe(true);
    expect(parseYamlSubset(`a: [${"1,".repeat(n / 2)}\n`) === null).toBe(true);
  });

  it.each([
    ["odd indentation steps", "a:\n b:\n     c:\n      - 1\n      -  2\n d: x\n"],
    ["deep then shallow", "a:\n          b:\n                   c: 1\nd: 2\n"],
    ["whitespace-only lines", "a:\n   \n  b: 1\n \n"],
    ["trailing spaces", "a: 1   \nb:    \n  - x   \n"],
    ["CRLF with blank lines and comments", "# c\r\n\r\na: 1 # x\r\n\r\nb: |+\r\n  y\r\n\r\n"],
    ["astral characters in keys and values", "😀: \"\\U0001F600\"\n𝔘: [𝔙, '𝔚']\n"],
    ["a lone surrogate", "a: x\ud800y\n"],
  ])("agrees on %s", (_name, text) => {
    expectAgreement(text);
  });

  it("never answers where the exact parser reports errors", () => {
    for (const text of ["a: [", "a: {", "a: 'x", 'a: "x', "- a\nb: 1", "a: 1\n- b", "a:\n  b\n c", ": x", "a: |\n x\n  y\n z"]) {
      const mine = parseYamlSubset(text);
      if (mine !== null) expect(exact(text)?.data).toStrictEqual(mine.data);
    }
  });
});
