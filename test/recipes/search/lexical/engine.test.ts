import { describe, expect, it } from "vitest";
import { toDocument, type SearchDocument } from "../../../../src/recipes/search/document.js";
import { LexicalIndex, lexicalTerms, type LexicalMatch } from "../../../../src/recipes/search/lexical/engine.js";
import { MiniSearchLexical } from "../../../../bench/lib/minisearch-lexical.js";
import { md, yaml } from "../fixtures.js";
import { prng } from "../prng.js";

function index(...recipes: Parameters<typeof toDocument>[0][]): LexicalIndex {
  const ix = new LexicalIndex();
  for (const r of recipes) ix.put(toDocument(r));
  return ix;
}
const all = (): boolean => true;

describe("lexical index", () => {
  it("boosts the name over the body", () => {
    const ix = index(md("s", "Export checklist", "generic words here"), md("s", "Other", "an export checklist mentioned in passing"));
    expect(ix.search("export checklist", all, 5).map((m) => m.id)).toEqual(["s/Export checklist", "s/Other"]);
  });

  it("indexes YAML step tools, argument keys and input names", () => {
    const ix = index(
      yaml("mesh-ops", "thing", "does a thing", [{ tool: "mesh_ops__polyReduce", arguments: { target_percentage: "${p}" } }], {
        inputsSchema: { type: "object", properties: { keep_borders: { type: "boolean", description: "preserve open borders" } } },
      }),
    );
    for (const q of ["poly reduce", "target percentage", "keep borders", "preserve open"]) expect(ix.search(q, all, 1)).toHaveLength(1);
  });

  it("coverage ranks exact over prefix over typo and weighs rare terms", () => {
    const ix = index(md("s", "a", "bevel"), md("s", "b", "bevelled"), ...Array.from({ length: 20 }, (_, i) => md("f", `f${i}`, "mesh")));
    expect(ix.search("bevel", all, 10).map((m) => [m.id, m.coverage])).toEqual([["s/a", 1]]);
    // An unknown word expands: "bevell" is a prefix of "bevelled" and one edit from "bevel".
    const byId = new Map(ix.search("bevell", all, 10).map((m) => [m.id, m.coverage]));
    expect(byId.get("s/b")).toBeCloseTo(0.7);
    expect(byId.get("s/a")).toBeCloseTo(0.4);
    const mixed = new Map(ix.search("bevel mesh", all, 30).map((m) => [m.id, m.coverage]));
    // "bevel" is rare, "mesh" common: matching only "bevel" covers most of the query.
    expect(mixed.get("s/a")!).toBeGreaterThan(0.5);
    expect(mixed.get("f/f0")!).toBeLessThan(0.5);
  });

  it("a known word is not expanded to its prefix or typo neighbours", () => {
    const ix = index(md("s", "a", "export"), md("s", "b", "exporter"), md("s", "c", "exprt"));
    expect(ix.search("export", all, 10).map((m) => m.id)).toEqual(["s/a"]);
    expect(ix.search("expor", all, 10).map((m) => m.id).sort()).toEqual(["s/a", "s/b"]);
  });

  it("removes documents and applies the filter before the limit", () => {
    const ix = index(md("s", "one", "scatter"), md("s", "two", "scatter"), md("s", "three", "scatter"));
    ix.remove("s/two");
    ix.remove("s/missing");
    expect(ix.search("scatter", (id) => id !== "s/one", 1).map((m) => m.id)).toEqual(["s/three"]);
  });

  it("caps query terms", () => {
    expect(lexicalTerms(Array.from({ length: 100 }, (_, i) => `term${i}`).join(" "))).toHaveLength(32);
  });
});

describe("lexical index on a large catalog", () => {
  it("skips words found in most recipes, but never all of the query", () => {
    const ix = new LexicalIndex();
    for (let i = 0; i < 600; i++) ix.put(toDocument(md("s", `r${String(i).padStart(3, "0")}`, i === 7 ? "bevel mesh" : "mesh")));
    expect(ix.search("bevel mesh", all, 10).map((m) => m.id)).toEqual(["s/r007"]);
    expect(ix.search("mesh", all, 600)).toHaveLength(600);
  });
});

const VOCABULARY = [
  ..."bevel bevelled beveling extrude extruder edge edges mesh meshes vertex vertices smooth smoothing relax uv uvs camera cameras export exporter exports render renderer light".split(" "),
  ..."polyReduce bevel_edges fem-review mesh_ops__bevel_edges HTTPServer maya2024 uv2d café naïve 日本語 Ärger".split(" "),
  ..."the a of to and with for how".split(" "),
];
const QUERY_EXTRAS = ["bev", "bevell", "extrud", "smoth", "vertx", "camra", "expor", "rendr", "zzz", "cafe", "uv", "poly", "meshops", "http"];

function randomDoc(r: () => number, id: string): SearchDocument {
  const words = (max: number): string => Array.from({ length: Math.floor(r() * max) }, () => VOCABULARY[Math.floor(r() * VOCABULARY.length)]!).join(" ");
  return { id, name: words(4), aliases: "", tags: words(3), hint: words(3), description: words(12), steps: words(20), body: words(60), skill: words(2) };
}

function randomQuery(r: () => number): string {
  const pool = [...VOCABULARY, ...QUERY_EXTRAS];
  return Array.from({ length: 1 + Math.floor(r() * 5) }, () => pool[Math.floor(r() * pool.length)]!).join(" ");
}

/** Same matches, raw scores and coverage (to rounding), and an order that follows them. */
function expectSameRanking(ours: readonly LexicalMatch[], reference: readonly LexicalMatch[], query: string): void {
  expect(ours.map((m) => m.id).sort(), query).toEqual(reference.map((m) => m.id).sort());
  const ref = new Map(reference.map((m) => [m.id, m]));
  for (const m of ours) {
    const want = ref.get(m.id)!;
    expect(Math.abs(m.raw - want.raw), `${query} ${m.id} raw`).toBeLessThan(1e-9 * Math.max(1, want.raw));
    expect(m.coverage, `${query} ${m.id} coverage`).toBeCloseTo(want.coverage, 12);
  }
  for (let i = 1; i < ours.length; i++) {
    const a = ours[i - 1]!;
    const b = ours[i]!;
    expect(a.raw > b.raw || (a.raw === b.raw && a.id < b.id), `${query} order at ${i}`).toBe(true);
  }
}

describe("lexical index ranks as MiniSearch did", () => {
  for (const [label, compactAfter] of [["without compaction", undefined], ["compacting every few postings", 7]] as const) {
    it(`on random corpora with replacements and removals (${label})`, () => {
      for (let seed = 1; seed <= 4; seed++) {
        const r = prng(seed);
        const ix = new LexicalIndex(compactAfter === undefined ? {} : { compactAfter });
        const live = new Map<string, SearchDocument>();
        for (let i = 0; i < 80; i++) {
          const doc = randomDoc(r, `s/d${i}`);
          ix.put(doc);
          live.set(doc.id, doc);
        }
        for (let step = 0; step < 60; step++) {
          const id = `s/d${Math.floor(r() * 100)}`;
          if (r() < 0.3) {
            ix.remove(id);
            live.delete(id);
          } else {
            const doc = randomDoc(r, id);
            ix.put(doc);
            live.delete(id);
            live.set(id, doc);
          }
          if (step % 10 === 0) ix.search(randomQuery(r), all, 5);
        }
        expect(ix.size).toBe(live.size);
        const reference = new MiniSearchLexical([...live.values()]);
        for (let q = 0; q < 40; q++) {
          const query = randomQuery(r);
          expectSameRanking(ix.search(query, all, 1000), reference.search(query, all, 1000), query);
          const odd = (id: string): boolean => id.length % 2 === 1;
          const top = ix.search(query, odd, 3);
          const want = reference.search(query, odd, 1000);
          expect(top.map((m) => m.raw)).toEqual(want.slice(0, top.length).map((m) => expect.closeTo(m.raw, 9) as unknown as number));
          expect(top.length).toBe(Math.min(3, want.length));
        }
      }
    });
  }

  // 700 documents hold ~30,000 postings: several delta chunks when never compacted.
  for (const compactAfter of [500, 1e9]) {
    it(`skips common words the same way on a catalog past the skipping threshold (compactAfter ${compactAfter})`, () => {
      const r = prng(99);
      const docs = Array.from({ length: 700 }, (_, i) => randomDoc(r, `big/${i}`));
      const ix = new LexicalIndex({ compactAfter });
      for (const d of docs) ix.put(d);
      const reference = new MiniSearchLexical(docs);
      for (let q = 0; q < 20; q++) {
        const query = randomQuery(r);
        expectSameRanking(ix.search(query, all, 5000), reference.search(query, all, 5000), query);
      }
    });
  }
});

function doc(id: string, fields: Partial<Omit<SearchDocument, "id">> = {}): SearchDocument {
  return { id, name: "", aliases: "", tags: "", hint: "", description: "", steps: "", body: "", skill: "", ...fields };
}

describe("lexical index on hostile input", () => {
  it("bounds a huge query to its first terms", () => {
    const ix = new LexicalIndex();
    ix.put(doc("s/a", { name: "bevel" }));
    const query = `bevel ${Array.from({ length: 50_000 }, (_, i) => `w${i}`).join(" ")}`;
    expect(ix.search(query, all, 10).map((m) => m.id)).toEqual(["s/a"]);
    // Past the 32-term cut the word is not looked at.
    expect(ix.search(`${Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ")} bevel`, all, 10)).toEqual([]);
    expect(ix.search("x".repeat(1_000_000), all, 10)).toEqual([]);
  });

  it("indexes a 10,000-term document up to the tokenizer's input cap and removes it whole", () => {
    const ix = new LexicalIndex();
    const words = Array.from({ length: 10_000 }, (_, i) => `t${i.toString(36)}x`);
    ix.put(doc("s/huge", { body: words.join(" "), steps: words.slice(0, 500).join(" ") }));
    ix.put(doc("s/small", { name: "t0x" }));
    expect(ix.search("t5x", all, 10).map((m) => m.id)).toEqual(["s/huge"]);
    // 20,000 characters hold the first ~3,900 words; later ones are not
    // indexed (at most a typo neighbour matches).
    expect(ix.search(words[9_000]!, all, 10).every((m) => m.coverage < 1)).toBe(true);
    expect(ix.search(words[3_000]!, all, 10).map((m) => [m.id, m.coverage])).toEqual([["s/huge", 1]]);
    expect(ix.search("t0x", all, 10).map((m) => m.id)).toEqual(["s/small", "s/huge"]);
    ix.remove("s/huge");
    expect(ix.size).toBe(1);
    expect(ix.search("t5x", all, 10)).toEqual([]);
    expect(ix.search("t0x", all, 10).map((m) => m.id)).toEqual(["s/small"]);
  });

  it("handles empty documents and queries with nothing to search", () => {
    const ix = new LexicalIndex();
    ix.put(doc("s/empty"));
    expect(ix.size).toBe(1);
    for (const q of ["", "   ", "the of and", "!!! ???", "\u0000\uffff"]) expect(ix.search(q, all, 10)).toEqual([]);
    ix.put(doc("s/full", { description: "scatter points" }));
    expect(ix.search("scatter", all, 10).map((m) => m.id)).toEqual(["s/full"]);
    ix.remove("s/empty");
    ix.remove("s/empty");
    expect(ix.size).toBe(1);
  });

  it("matches unicode words through case folding and typos", () => {
    const ix = new LexicalIndex();
    ix.put(doc("s/a", { description: "Café naïve 日本語 Ärger" }));
    for (const q of ["CAFÉ", "ärger", "日本語", "naive", "cafés"]) expect(ix.search(q, all, 10).map((m) => m.id), q).toEqual(["s/a"]);
  });

  it("treats odd limits as no or every result", () => {
    const ix = new LexicalIndex();
    for (let i = 0; i < 5; i++) ix.put(doc(`s/${i}`, { name: "mesh" }));
    expect(ix.search("mesh", all, 0)).toEqual([]);
    expect(ix.search("mesh", all, -3)).toEqual([]);
    expect(ix.search("mesh", all, Number.NaN)).toEqual([]);
    expect(ix.search("mesh", all, Number.POSITIVE_INFINITY)).toHaveLength(5);
    expect(ix.search("mesh", all, 2.9)).toHaveLength(2);
  });

  it("stays consistent when accept throws, and refuses re-entry", () => {
    const ix = new LexicalIndex();
    for (let i = 0; i < 5; i++) ix.put(doc(`s/${i}`, { name: "mesh", body: i === 2 ? "mesh mesh" : "" }));
    const before = ix.search("mesh", all, 10);
    expect(() =>
      ix.search(
        "mesh",
        () => {
          throw new Error("filter bug");
        },
        10,
      ),
    ).toThrow("filter bug");
    expect(ix.search("mesh", all, 10)).toEqual(before);
    expect(() => ix.search("mesh", () => ix.search("mesh", all, 1).length > 0, 10)).toThrow(/re-entered/);
    expect(() => ix.search("mesh", () => (ix.remove("s/1"), true), 10)).toThrow(/accept callback/);
    expect(() => ix.search("mesh", () => (ix.put(doc("s/9", { name: "mesh" })), true), 10)).toThrow(/accept callback/);
    expect(ix.size).toBe(5);
    expect(ix.search("mesh", all, 10)).toEqual(before);
  });

  it("expands an unknown stub to its closest terms only", () => {
    const ix = new LexicalIndex();
    for (let i = 0; i < 1000; i++) ix.put(doc(`s/${i}`, { name: `pre${i}xyz` }));
    const hits = ix.search("pre", all, 2000);
    expect(hits.length).toBe(256);
    // Shortest expansions first: the one- and two-digit names are all kept.
    const ids = new Set(hits.map((m) => m.id));
    for (let i = 0; i < 100; i++) expect(ids.has(`s/${i}`)).toBe(true);
  });
});

describe("lexical index compaction", () => {
  it("drops dead terms and slots and keeps answering the same", () => {
    const r = prng(7);
    const ix = new LexicalIndex({ compactAfter: 8 });
    const live = new Map<string, SearchDocument>();
    // Waves of documents with words of their own, most removed again: the
    // dictionary renumbers once dead terms dominate.
    for (let wave = 0; wave < 6; wave++) {
      for (let i = 0; i < 40; i++) {
        const id = `w${wave}/d${i}`;
        const d = doc(id, { name: `only${wave}x${i} shared`, body: randomDoc(r, id).body });
        ix.put(d);
        live.set(id, d);
      }
      for (let i = 0; i < 40; i++) {
        if (i % 4 === 0) continue;
        ix.remove(`w${wave}/d${i}`);
        live.delete(`w${wave}/d${i}`);
      }
      ix.search("shared", all, 1);
    }
    const reference = new MiniSearchLexical([...live.values()]);
    for (const q of ["shared", "only5x4", "only0x8 bevel", "only3x5", "onl", "only2x1", "shared mesh vertex"]) {
      expectSameRanking(ix.search(q, all, 1000), reference.search(q, all, 1000), q);
    }
    expect(ix.search("only3x5", all, 10).every((m) => m.coverage < 1)).toBe(true);
    expect(ix.size).toBe(live.size);
  });
});

describe("lexical index keeps no document", () => {
  it("removes a document by what it indexed, even when the caller's object changed since", () => {
    const ix = new LexicalIndex();
    const kept = doc("s/kept", { name: "scatter points", body: "scatter" });
    const changing = { ...doc("s/gone", { name: "scatter rocks", description: "rocks on terrain" }) };
    ix.put(kept);
    ix.put(changing);
    (changing as { name: string }).name = "entirely different words";
    ix.remove("s/gone");
    const reference = new MiniSearchLexical([kept]);
    for (const q of ["scatter", "rocks", "terrain scatter", "entirely"]) expectSameRanking(ix.search(q, all, 10), reference.search(q, all, 10), q);
  });
});

describe("lexical index maintenance", () => {
  it("compacting ahead of the first query (maintain) changes no answer", () => {
    const r = prng(7);
    const docs = Array.from({ length: 120 }, (_, i) => randomDoc(r, `m/${i}`));
    const ahead = new LexicalIndex({ compactAfter: 50 });
    const lazy = new LexicalIndex({ compactAfter: 50 });
    for (const d of docs) {
      ahead.put(d);
      lazy.put(d);
    }
    ahead.maintain();
    ahead.maintain(); // nothing left to do: a no-op
    for (let q = 0; q < 20; q++) {
      const query = randomQuery(r);
      expect(ahead.search(query, all, 50), query).toEqual(lazy.search(query, all, 50));
    }
  });
});

describe("expansions of unknown words, kept between queries", () => {
  it("follow every change of the index (a new neighbour joins, a removed one leaves)", () => {
    const ix = new LexicalIndex();
    ix.put(doc("s/a", { name: "extrude" }));
    ix.put(doc("s/b", { name: "mesh" }));
    expect(ix.search("extr", all, 10).map((m) => m.id)).toEqual(["s/a"]);
    // "extract" is a new term "extr" now extends: a kept expansion list from before would miss it.
    ix.put(doc("s/c", { name: "extract" }));
    expect(ix.search("extr", all, 10).map((m) => m.id).sort()).toEqual(["s/a", "s/c"]);
    ix.remove("s/a");
    expect(ix.search("extr", all, 10).map((m) => m.id)).toEqual(["s/c"]);
  });

  it("answer as a fresh index does after many queries reuse them", () => {
    const r = prng(11);
    const docs = Array.from({ length: 150 }, (_, i) => randomDoc(r, `e/${i}`));
    const reused = new LexicalIndex();
    for (const d of docs) reused.put(d);
    const queries = Array.from({ length: 30 }, () => randomQuery(r));
    for (const q of queries) reused.search(q, all, 20);
    for (const q of queries) {
      const fresh = new LexicalIndex();
      for (const d of docs) fresh.put(d);
      expect(reused.search(q, all, 20), q).toEqual(fresh.search(q, all, 20));
    }
  });
});
