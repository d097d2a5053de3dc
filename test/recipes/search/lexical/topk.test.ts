import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TopK } from "../../../../src/recipes/search/lexical/walk.js";

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

describe("TopK with slots ranked in id order", () => {
  it("breaks ties the same whether it compares ranks or ids", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 10 }), fc.nat(), (scores, k, cut) => {
        // The first `ordered` slots have a rank (their ids in no particular order); later slots (added since) do not.
        const ordered = cut % (scores.length + 1);
        const ids = scores.map((_, i) => (i < ordered ? `a${String((i * 7919) % 1000).padStart(3, "0")}` : `a${String((i * 7919) % 1000).padStart(3, "0")}x`));
        const byId = Array.from({ length: ordered }, (_, i) => i).sort((a, b) => (ids[a]! < ids[b]! ? -1 : 1));
        const rank = new Int32Array(ordered);
        byId.forEach((slot, r) => (rank[slot] = r));
        const fast = new TopK(k, ids, ordered, rank);
        const slow = new TopK(k, ids, 0);
        scores.forEach((s, slot) => {
          if (fast.admits(s, slot)) fast.push(s, slot);
          if (slow.admits(s, slot)) slow.push(s, slot);
        });
        expect(fast.drain()).toEqual(slow.drain());
      }),
      { numRuns: 500 },
    );
  });
});
