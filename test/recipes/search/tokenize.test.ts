import { describe, expect, it } from "vitest";
import { queryTerms, tokenize } from "../../../src/recipes/search/tokenize.js";

describe("tokenize", () => {
  it("splits snake_case, kebab-case and camelCase and keeps the compound", () => {
    expect(tokenize("bevel_edges")).toEqual(["bevel", "edges", "beveledges"]);
    expect(tokenize("fem-review")).toEqual(["fem", "review", "femreview"]);
    expect(tokenize("polyReduce")).toEqual(["poly", "Reduce", "polyReduce"]);
    expect(tokenize("HTTPServer")).toEqual(["HTTP", "Server", "HTTPServer"]);
  });

  it("keeps digits attached and splits on punctuation", () => {
    expect(tokenize("maya2024 uv2d")).toEqual(["maya2024", "uv2d"]);
    // A double separator (canonical tool names) ends a compound.
    expect(tokenize("mesh_ops__bevel_edges(x, y)")).toEqual(["mesh", "ops", "meshops", "bevel", "edges", "beveledges", "x", "y"]);
  });

  it("handles unicode letters", () => {
    expect(tokenize("naïve café 日本語 Ärger")).toEqual(["naïve", "café", "日本語", "Ärger"]);
  });

  it("treats regex metacharacters as separators", () => {
    expect(tokenize(".*+?^${}()|[]\\/")).toEqual([]);
    expect(tokenize("a.*b")).toEqual(["a", "b"]);
  });

  it("bounds work on huge input", () => {
    const tokens = tokenize("word ".repeat(100_000));
    expect(tokens.length).toBeLessThanOrEqual(4_000);
    expect(tokenize("x".repeat(500))).toEqual([]);
  });

  it("query terms drop stop words, lower-case and stem plurals", () => {
    expect(queryTerms("How do I bevel the Edges?")).toEqual(["bevel", "edge"]);
    expect(queryTerms("the")).toEqual([]);
    expect(queryTerms("properties glass")).toEqual(["property", "glass"]);
  });
});
