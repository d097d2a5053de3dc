import { describe, expect, it } from "vitest";
import { TokenTable } from "../../../../src/recipes/search/lexical/tokens.js";

describe("TokenTable", () => {
  it("finds a token from a range of any text, and a joined compound without its separators", () => {
    const table = new TokenTable();
    const mesh = table.add("mesh");
    const joined = table.add("beveledges");
    expect(table.find("a mesh here", 2, 6, false)).toBe(mesh);
    expect(table.find("meshes", 0, 4, false)).toBe(mesh);
    expect(table.find("meshes", 0, 6, false)).toBe(-1);
    expect(table.find("x bevel_edges", 2, 13, true)).toBe(joined);
    expect(table.find("bevel-edges", 0, 11, true)).toBe(joined);
    expect(table.find("bevel_edges", 0, 11, false)).toBe(-1);
    expect(table.find("bevel_edge", 0, 10, true)).toBe(-1);
  });

  it("keeps every id through growth and clears", () => {
    const table = new TokenTable();
    const words = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
    const ids = words.map((w) => table.add(w));
    expect(table.size).toBe(5000);
    words.forEach((w, i) => expect(table.find(` ${w} `, 1, w.length + 1, false)).toBe(ids[i]));
    table.clear();
    expect(table.size).toBe(0);
    expect(table.find("w1", 0, 2, false)).toBe(-1);
  });
});
