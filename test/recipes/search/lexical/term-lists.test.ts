import { describe, expect, it } from "vitest";
import { LexicalIndex } from "../../../../src/recipes/search/lexical/engine.js";
import { PostingStore } from "../../../../src/recipes/search/lexical/postings.js";
import { TermListCache, type TermList } from "../../../../src/recipes/search/lexical/plan.js";
import type { SearchDocument } from "../../../../src/recipes/search/document.js";

function list(docs: number): TermList {
  return { slots: Int32Array.from({ length: docs }, (_, i) => i), scores: new Float64Array(docs).fill(1), max: 1 };
}

describe("TermListCache", () => {
  it("keeps lists for one store generation and starts afresh after any change", () => {
    const store = new PostingStore(2);
    const cache = new TermListCache(1, 1000);
    let builds = 0;
    const build = (): TermList => (builds++, list(3));
    cache.get(store, 7, build);
    cache.get(store, 7, build);
    expect(builds).toBe(1);
    const slot = store.openSlot("a");
    store.setLength(slot, 0, 1);
    cache.get(store, 7, build);
    expect(builds).toBe(2);
    // Another store with the same generation number is not the same index.
    cache.get(new PostingStore(2), 7, build);
    expect(builds).toBe(3);
  });

  it("holds at most maxDocs documents, evicting the least recently used list", () => {
    const store = new PostingStore(2);
    const cache = new TermListCache(1, 10);
    const builds: number[] = [];
    const get = (term: number, docs: number): TermList => cache.get(store, term, () => (builds.push(term), list(docs)));
    get(1, 4);
    get(2, 4);
    get(1, 4); // 1 is now the most recent
    get(3, 4); // 12 > 10: evicts 2
    expect(cache.size).toBe(2);
    get(1, 4);
    get(2, 4);
    expect(builds).toEqual([1, 2, 3, 2]);
    // A list larger than the whole budget is used once and not kept.
    get(4, 11);
    get(4, 11);
    expect(builds.filter((t) => t === 4)).toHaveLength(2);
  });
});

/** Seeded documents over a small vocabulary, so words recur across many documents and fields. */
function documents(count: number, seed: number): SearchDocument[] {
  let state = seed;
  const next = (): number => ((state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const words = ["bevel", "mesh", "bake", "normals", "cache", "smoke", "export", "camera", "rig", "joints", "uv", "render"];
  const text = (n: number): string => Array.from({ length: n }, () => words[Math.floor(next() * words.length)]!).join(" ");
  return Array.from({ length: count }, (_, i) => ({
    id: `s${i % 7}/r${i}`,
    name: text(2),
    aliases: "",
    tags: text(1),
    hint: "",
    description: text(6),
    steps: text(3),
    skill: `s${i % 7}`,
    body: text(12),
  }));
}

describe("kept term lists score as the postings do", () => {
  const queries = ["bevel mesh", "bake normals smoke", "cache", "export camera rig joints", "uv render bevel", "bevl mesh", "rende"];

  it("same matches and raw scores, before and after puts and removals", () => {
    const kept = new LexicalIndex({ termListMinPostings: 1, compactAfter: 50 });
    const direct = new LexicalIndex({ termListMinPostings: Number.MAX_SAFE_INTEGER, compactAfter: 50 });
    const docs = documents(400, 7);
    for (const d of docs) {
      kept.put(d);
      direct.put(d);
    }
    const same = (): void => {
      for (const q of queries) {
        // Twice: the first query builds the lists, the second reads them.
        for (let round = 0; round < 2; round++) {
          // Exact for exact words; a typo's expansion scales a kept sum by its weight, one rounding apart.
          const got = kept.search(q, () => true, 400);
          const want = new Map(direct.search(q, () => true, 400).map((m) => [m.id, m]));
          expect(got.length).toBe(want.size);
          for (const m of got) {
            expect(want.get(m.id)?.coverage, `${q} ${m.id}`).toBe(m.coverage);
            expect(Math.abs(want.get(m.id)!.raw - m.raw)).toBeLessThan(1e-12 * m.raw);
          }
          if (!/bevl|rende/.test(q)) expect(got).toEqual(direct.search(q, () => true, 400));
        }
      }
    };
    same();
    // A change makes every kept list stale: answers must follow the change at once.
    for (const d of documents(60, 99)) {
      kept.put({ ...d, id: docs[Math.floor(d.body.length % 400)]!.id });
      direct.put({ ...d, id: docs[Math.floor(d.body.length % 400)]!.id });
    }
    same();
    for (let i = 0; i < 150; i += 3) {
      kept.remove(docs[i]!.id);
      direct.remove(docs[i]!.id);
    }
    same();
    expect(kept.search("bevel", (id) => id === docs[0]!.id, 5)).toEqual([]);
  });
});
