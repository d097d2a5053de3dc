import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { processTerm, tokenize } from "../../../src/recipes/search/tokenize.js";

describe("tokenize", () => {
  it("splits snake_case, kebab-case and camelCase and keeps the compound", () => {
    expect(tokenize("bevel_edges")).toEqual(["bevel", "edges", "beveledges"]);
    expect(tokenize("fem-review")).toEqual(["fem", "review", "femreview"]);
    expect(tokenize("polyReduce")).toEqual(["poly", "Reduce", "polyReduce"]);
    expect(tokenize("HTTPServer")).toEqual(["HTTP", "Server", "HTTPServer"]);
  });

  it("keeps digits attached and splits on punctuation", () => {
    expect(tokenize("maya2024 uv2d")).toEqual(["maya2024", "uv2d"]);
    // A double separator (canonical tool names) ends a compound.
    expect(tokenize("mesh_ops__bevel_edges(x, y)")).toEqual(["mesh", "ops", "meshops", "bevel", "edges", "beveledges", "x", "y"]);
  });

  it("handles unicode letters", () => {
    expect(tokenize("naïve café 日本語 Ärger")).toEqual(["naïve", "café", "日本語", "Ärger"]);
  });

  it("treats regex metacharacters as separators", () => {
    expect(tokenize(".*+?^${}()|[]\\/")).toEqual([]);
    expect(tokenize("a.*b")).toEqual(["a", "b"]);
  });

  it("bounds work on huge input", () => {
    const tokens = tokenize("word ".repeat(100_000));
    expect(tokens.length).toBeLessThanOrEqual(4_000);
    expect(tokenize("x".repeat(500))).toEqual([]);
  });

  const queryTerms = (text: string): string[] => tokenize(text).flatMap((token) => processTerm(token) || []);

  it("query terms drop stop words, lower-case and stem plurals", () => {
    expect(queryTerms("How do I bevel the Edges?")).toEqual(["bevel", "edge"]);
    expect(queryTerms("the")).toEqual([]);
    expect(queryTerms("properties glass")).toEqual(["property", "glass"]);
  });
});

/** The regex-only tokenizer the ASCII scanner replaced: the definition both paths must match. */
function referenceTokenize(text: string): string[] {
  const WORD = /[\p{L}\p{N}]+(?:[_\-'.][\p{L}\p{N}]+)*/gu;
  const CAMEL = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
  const out: string[] = [];
  const source = text.length > 20_000 ? text.slice(0, 20_000) : text;
  for (const match of source.matchAll(WORD)) {
    const word = match[0];
    if (word.length > 80) continue;
    const parts: string[] = [];
    for (const piece of word.split(/[_\-'.]+/)) {
      for (const sub of piece.split(CAMEL)) if (sub) parts.push(sub);
    }
    for (const part of parts) if (part.length <= 40) out.push(part);
    if (parts.length > 1) {
      const joined = parts.join("");
      if (joined.length <= 40) out.push(joined);
    }
  }
  return out;
}

describe("tokenize fast path matches the regex definition", () => {
  // Characters chosen to hit every branch: case, digits, the four separators,
  // chunk breakers, non-ASCII letters with and without case, an astral letter,
  // a lone surrogate, combining marks and punctuation outside ASCII.
  const alphabet = [..."aZbY09_-'. ,()/\n\t", "É", "é", "ß", "日", "’", "—", "\u0301", "𝐀", "\ud800", "Σ", "ǅ"];
  const char = fc.constantFrom(...alphabet);
  const text = fc.array(char, { maxLength: 120 }).map((cs) => cs.join(""));

  it("on random mixed text", () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(tokenize(t)).toEqual(referenceTokenize(t));
      }),
      { numRuns: 3000 },
    );
  });

  it("on long words, long parts and the input cap", () => {
    const cases = [
      "a".repeat(40),
      "a".repeat(41),
      "a".repeat(80),
      "a".repeat(81),
      `${"a".repeat(39)}_${"b".repeat(39)}`,
      `${"a".repeat(20)}_${"b".repeat(21)}`,
      `${"aB".repeat(30)}`,
      "x ".repeat(10_001) + "tail",
      "é".repeat(19_999) + "ab cd",
      "a".repeat(19_999) + "\ud83d\ude00bc",
      "ABCdef XMLHttpRequest getHTTPResponse2Code a1B2c3 _lead trail_ a__b a_-b 'quoted' x.y.z",
    ];
    for (const t of cases) expect(tokenize(t)).toEqual(referenceTokenize(t));
  });

  it("on random ASCII identifiers", () => {
    const ident = fc.stringMatching(/^[A-Za-z0-9_\-'. ]{0,60}$/);
    fc.assert(
      fc.property(ident, (t) => {
        expect(tokenize(t)).toEqual(referenceTokenize(t));
      }),
      { numRuns: 3000 },
    );
  });
});
