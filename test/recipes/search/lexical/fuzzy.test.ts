import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuzzyScan } from "../../../../src/recipes/search/lexical/fuzzy.js";

function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!;
      row[j] = Math.min(up + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = up;
    }
  }
  return row[b.length]!;
}

function scan(words: readonly string[], query: string, max: number): Map<string, number> {
  const texts = [...new Set(words)];
  const sorted = Uint32Array.from(texts.keys()).sort((a, b) => (texts[a]! < texts[b]! ? -1 : 1));
  const found = new Map<string, number>();
  fuzzyScan(sorted, texts, query, max, (id, text, distance) => {
    expect(texts[id]).toBe(text);
    found.set(text, distance);
  });
  return found;
}

describe("fuzzyScan", () => {
  it("finds exactly the terms within the bound, with their distance", () => {
    const word = fc.stringMatching(/^[abcé]{0,7}$/);
    fc.assert(
      fc.property(fc.array(word, { maxLength: 60 }), word, fc.integer({ min: 0, max: 3 }), (words, query, max) => {
        const want = new Map<string, number>();
        for (const w of new Set(words)) {
          const d = levenshtein(w, query);
          if (d <= max) want.set(w, d);
        }
        expect(scan(words, query, max)).toEqual(want);
      }),
      { numRuns: 1500 },
    );
  });

  it("handles terms sharing long prefixes and terms far longer than the query", () => {
    const words = ["bevel", "bevelled", "bevelling", "bevels", "level", "revel", "b", "bevelbevelbevelbevel", "bxvel"];
    expect(scan(words, "bevel", 1)).toEqual(new Map([["bevel", 0], ["bevels", 1], ["level", 1], ["revel", 1], ["bxvel", 1]]));
    expect(scan([], "bevel", 2)).toEqual(new Map());
    expect(scan(words, "", 1)).toEqual(new Map([["b", 1]]));
  });
});
