import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TopK } from "../../../../src/recipes/search/lexical/topk.js";

describe("TopK", () => {
  it("keeps the k best by score, ties by id, in order", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 80 }), fc.integer({ min: 1, max: 20 }), (scores, k) => {
        const ids = scores.map((_, i) => `id${String(i).padStart(3, "0")}`).reverse();
        const top = new TopK(k, ids);
        scores.forEach((s, slot) => {
          if (top.admits(s, slot)) top.push(s, slot);
        });
        const want = scores
          .map((score, slot) => ({ slot, score }))
          .sort((a, b) => b.score - a.score || (ids[a.slot]! < ids[b.slot]! ? -1 : 1))
          .slice(0, k);
        expect(top.drain()).toEqual(want);
      }),
      { numRuns: 500 },
    );
  });
});
