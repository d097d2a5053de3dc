import { describe, expect, it } from "vitest";
import { DEFAULT_FUSION, fuse } from "../../../src/recipes/search/fusion.js";

describe("fuse", () => {
  it("RRF rewards agreement and scores first-in-both as 1", () => {
    const out = fuse(
      [{ id: "a", score: 9 }, { id: "b", score: 5 }],
      [{ id: "a", score: 0.9 }, { id: "c", score: 0.8 }],
      { ...DEFAULT_FUSION, coveragePower: 0 },
    );
    expect(out.map((f) => f.id)).toEqual(["a", "b", "c"]);
    expect(out[0]!.score).toBeCloseTo(1);
    expect(out.every((f) => f.score > 0 && f.score <= 1)).toBe(true);
  });

  it("discounts lexical hits by coverage", () => {
    const lexical = [{ id: "stray", score: 9, coverage: 0.2 }, { id: "solid", score: 3, coverage: 1 }];
    const semantic = [{ id: "x", score: 0.5 }];
    const plain = fuse(lexical, semantic, { ...DEFAULT_FUSION, coveragePower: 0 });
    expect(plain[0]!.id).toBe("stray");
    const weighted = fuse(lexical, semantic, { ...DEFAULT_FUSION, coveragePower: 2 });
    // The stray hit falls below both; the semantic top still outranks a second lexical rank.
    expect(weighted.map((f) => f.id)).toEqual(["x", "solid", "stray"]);
  });

  it("weighted fusion mixes normalised BM25 and clamped cosine; ties go to the smaller id", () => {
    const out = fuse(
      [{ id: "b", score: 4 }, { id: "a", score: 4 }],
      [{ id: "z", score: -0.3 }],
      { method: "weighted", k: 60, lexicalWeight: 0.5, coveragePower: 0 },
    );
    expect(out).toEqual([
      { id: "a", score: 0.5 },
      { id: "b", score: 0.5 },
      { id: "z", score: 0 },
    ]);
  });

  it("handles empty lists", () => {
    expect(fuse([], [], DEFAULT_FUSION)).toEqual([]);
  });
});
