import { describe, expect, it } from "vitest";
import { embeddingText, embeddingViews, toDocument } from "../../../src/recipes/search/document.js";
import { md, priv, yaml } from "./fixtures.js";

describe("embeddingViews", () => {
  it("gives the blended text first, then name and description in words", () => {
    const doc = toDocument(yaml("mesh-ops", "bevel_edges", "Bevel bounded edge indices.", [{ tool: "mesh_ops__bevel_edges" }]));
    const views = embeddingViews(doc);
    expect(views[0]).toBe(embeddingText(doc));
    expect(views[1]).toBe("bevel edges. Bevel bounded edge indices.");
  });

  it("keeps one view when the summary would repeat the blended text", () => {
    const doc = toDocument(yaml("mesh-ops", "inset", "Inset faces.", []));
    expect(embeddingViews(doc)).toEqual([embeddingText(doc)]);
  });

  it("names a Markdown anchor without a description by its heading", () => {
    const views = embeddingViews(toDocument(md("maya-modeling", "Subdivide and relax", "Raise the resolution of a mesh.")));
    expect(views).toHaveLength(2);
    expect(views[1]).toBe("Subdivide and relax");
  });

  it("bounds the summary of an oversized or hostile description", () => {
    const long = `${"word ".repeat(5_000)}\u0000\n\t${"x".repeat(10_000)}`;
    for (const view of embeddingViews(toDocument(yaml("s", "huge", long, [{ tool: "t" }])))) {
      expect(view.length).toBeLessThanOrEqual(400);
      expect(view).not.toMatch(/\s{2,}/);
    }
  });

  it("a private playbook's summary carries its title and summary", () => {
    const views = embeddingViews(toDocument(priv("rig-check", "Rig checklist", "Steps before publishing a rig")));
    expect(views.at(-1)).toContain("Rig checklist");
    expect(views.at(-1)).toContain("Steps before publishing a rig");
  });
});
