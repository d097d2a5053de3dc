import { describe, expect, it } from "vitest";
import { toDocument } from "../../../src/recipes/search/document.js";
import { LexicalIndex, lexicalTerms } from "../../../src/recipes/search/lexical.js";
import { md, yaml } from "./fixtures.js";

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
