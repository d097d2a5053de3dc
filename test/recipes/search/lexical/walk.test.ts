import { describe, expect, it } from "vitest";
import type { SearchDocument } from "../../../../src/recipes/search/document.js";
import { LexicalIndex } from "../../../../src/recipes/search/lexical/engine.js";
import { prng } from "../prng.js";

// Few words over many documents: long lists that overlap, so documents
// holding every query word and documents missing some compete for the k.
const COMMON = "bevel mesh bake normals cache smoke export camera rig joints render light".split(" ");
const RARE = "chamfer retopo groom fluid decimate lattice".split(" ");
const EXTRA = ["bev", "bevl", "rende", "cam", "smok", "chamfr", "zzz", "mesh_bake", "polyReduce"];

/** `dense` documents hold most words somewhere; sparse ones a few, so few hold every word of a query. */
function doc(r: () => number, id: string, dense: boolean): SearchDocument {
  const word = (): string => (r() < 0.1 ? RARE[Math.floor(r() * RARE.length)]! : COMMON[Math.floor(r() * COMMON.length)]!);
  const words = (n: number): string => Array.from({ length: Math.floor(r() * (dense ? n : n / 4)) }, word).join(" ");
  return { id, name: words(3), aliases: "", tags: words(2), hint: words(2), description: words(8), steps: words(6), body: words(24), skill: `s${id.length % 3}` };
}

function query(r: () => number): string {
  const pool = [...COMMON, ...RARE, ...EXTRA];
  return Array.from({ length: 1 + Math.floor(r() * 4) }, () => pool[Math.floor(r() * pool.length)]!).join(" ");
}

const FILTERS: ((id: string) => boolean)[] = [() => true, (id) => id.endsWith("3"), (id) => id.length % 2 === 0, (id) => id === "d17"];

describe("walking the term lists ranks exactly as accumulating per slot", () => {
  // Without compactAfter, 700 sparse documents stay in the delta until a query compacts: 400 makes maintain() compact.
  for (const [compactAfter, dense] of [[undefined, true], [40, true], [400, false]] as const) {
    it(`same ids, raw scores and coverage to the bit (compactAfter ${compactAfter ?? "default"}, ${dense ? "dense" : "sparse"})`, () => {
      for (let seed = 1; seed <= 3; seed++) {
        const r = prng(seed);
        const options = { termListMinPostings: seed === 2 ? 1 : 64, ...(compactAfter === undefined ? {} : { compactAfter }) };
        const walked = new LexicalIndex(options);
        const summed = new LexicalIndex({ ...options, walkMaxLists: 0 });
        const both = (f: (ix: LexicalIndex) => void): void => [walked, summed].forEach(f);
        for (let i = 0; i < 700; i++) {
          const d = doc(r, `d${i}`, dense);
          both((ix) => ix.put(d));
        }
        both((ix) => ix.maintain());
        const same = (): void => {
          for (let q = 0; q < 60; q++) {
            const text = query(r);
            for (const limit of [1, 3, 10, 50, 1000]) {
              const accept = FILTERS[(q + limit) % FILTERS.length]!;
              expect(walked.search(text, accept, limit), `${text} / ${limit}`).toEqual(summed.search(text, accept, limit));
            }
          }
        };
        same();
        // Replaced and removed documents: the replacements sit in the delta until compaction.
        for (let i = 0; i < 30; i++) {
          const d = doc(r, `d${Math.floor(r() * 700)}`, dense);
          both((ix) => ix.put(d));
          const gone = `d${Math.floor(r() * 700)}`;
          both((ix) => ix.remove(gone));
        }
        same();
        both((ix) => ix.maintain());
        same();
      }
    });
  }

  it("a query whose documents all hold every word, and one where none does", () => {
    const walked = new LexicalIndex({ compactAfter: 1 });
    const summed = new LexicalIndex({ compactAfter: 1, walkMaxLists: 0 });
    for (let i = 0; i < 50; i++) {
      const d: SearchDocument = { id: `a${i}`, name: "bevel mesh", aliases: "", tags: "", hint: "", description: "x ".repeat(i), steps: "", body: "", skill: "s" };
      const e: SearchDocument = { id: `b${i}`, name: i % 2 ? "smoke" : "cloth", aliases: "", tags: "", hint: "", description: "y ".repeat(i), steps: "", body: "", skill: "s" };
      for (const ix of [walked, summed]) {
        ix.put(d);
        ix.put(e);
      }
    }
    for (const ix of [walked, summed]) ix.maintain();
    for (const text of ["bevel mesh", "smoke cloth", "bevel smoke", "mesh"]) {
      for (const limit of [1, 5, 60]) expect(walked.search(text, () => true, limit), text).toEqual(summed.search(text, () => true, limit));
    }
  });

  it("ties at the top: documents put later with smaller ids still win, however early the walk could stop", () => {
    // compactAfter 1: maintain() moves every posting to the main lists the walk reads.
    const walked = new LexicalIndex({ compactAfter: 1 });
    const summed = new LexicalIndex({ compactAfter: 1, walkMaxLists: 0 });
    const same = (id: string, name: string): SearchDocument => ({ id, name, aliases: "", tags: "", hint: "", description: "", steps: "", body: "", skill: "s" });
    // Put in descending id order: equal scores must come back in ascending id order.
    for (let i = 40; i >= 0; i--) {
      const n = String(i).padStart(2, "0");
      for (const ix of [walked, summed]) {
        ix.put(same(`both${n}`, "bevel smoke"));
        ix.put(same(`one${n}`, "bevel"));
        ix.put(same(`three${n}`, "bevel smoke cloth"));
        ix.put(same(`bevl${n}`, "bevelled smoky"));
        ix.put(same(`pair${n}`, "chamfer chamfered"));
      }
    }
    for (const ix of [walked, summed]) ix.maintain();
    for (const text of ["bevel smoke", "bevel", "bevel smoke cloth", "bevel cloth", "bev smok", "smoke", "cham", "bev"]) {
      for (const limit of [1, 5, 30, 45]) {
        const got = walked.search(text, () => true, limit);
        expect(got, `${text} / ${limit}`).toEqual(summed.search(text, () => true, limit));
      }
    }
    expect(walked.search("bevel smoke", () => true, 3).map((m) => m.id)).toEqual(["both00", "both01", "both02"]);
    // One word, two of its expansions: the documents holding both tie at the top.
    expect(walked.search("cham", () => true, 3).map((m) => m.id)).toEqual(["pair00", "pair01", "pair02"]);
  });
});
