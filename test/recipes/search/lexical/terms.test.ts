import { describe, expect, it } from "vitest";
import { TermDictionary } from "../../../../src/recipes/search/lexical/terms.js";

function prefixed(dict: TermDictionary, prefix: string): string[] {
  const out: string[] = [];
  dict.withPrefix(prefix, (id, text) => {
    expect(dict.text(id)).toBe(text);
    out.push(text);
  });
  return out;
}

describe("TermDictionary", () => {
  it("interns terms once and lists a prefix's terms in order, new ones included", () => {
    const dict = new TermDictionary();
    for (const t of ["mesh", "export", "exporter", "bevel", "exports", "ex"]) dict.intern(t);
    expect(dict.intern("export")).toBe(1);
    expect(prefixed(dict, "exp")).toEqual(["export", "exporter", "exports"]);
    dict.intern("expand");
    dict.intern("expo");
    expect(prefixed(dict, "exp")).toEqual(["expand", "expo", "export", "exporter", "exports"]);
    expect(prefixed(dict, "zzz")).toEqual([]);
    expect(prefixed(dict, "")).toHaveLength(8);
  });

  it("retain renumbers densely, keeps order and the unsorted tail", () => {
    const dict = new TermDictionary();
    for (const t of ["d", "b", "a", "c"]) dict.intern(t);
    prefixed(dict, ""); // sorts
    dict.intern("bb");
    dict.intern("aa");
    const map = dict.retain((id) => dict.text(id) !== "b" && dict.text(id) !== "aa");
    expect([...map]).toEqual([0, -1, 1, 2, 3, -1]);
    expect(dict.count).toBe(4);
    expect(dict.id("bb")).toBe(3);
    expect(dict.id("b")).toBeUndefined();
    expect(prefixed(dict, "")).toEqual(["a", "bb", "c", "d"]);
  });

  it("fuzzy walks the same dictionary", () => {
    const dict = new TermDictionary();
    for (const t of ["smooth", "smoothing", "soothe", "mooth", "smoth", "smith"]) dict.intern(t);
    const found: [string, number][] = [];
    dict.fuzzy("smoth", 1, (_, text, d) => found.push([text, d]));
    expect(found).toEqual([["smith", 1], ["smooth", 1], ["smoth", 0]]);
  });
});
