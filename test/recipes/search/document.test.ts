import { describe, expect, it } from "vitest";
import { embeddingText, embeddingViews, FIELD_BOOST, textHash, toDocument, yamlEntryText, type SearchDocument } from "../../../src/recipes/search/document.js";
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

// The definition embeddingText must keep (its early stop is an optimisation):
// every part in full, joined, whitespace collapsed, clipped. A change of
// text re-embeds every recipe, so equality is exact.
function referenceText(doc: SearchDocument): string {
  const humanise = (t: string): string => t.replace(/[_\-]+/g, " ").replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2");
  const prose = (body: string): string => {
    const out: string[] = [];
    let fence: string | null = null;
    for (const line of body.split("\n")) {
      const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (marker && (fence === null || (marker[0] === fence[0] && marker.length >= fence.length))) {
        fence = fence === null ? marker : null;
        continue;
      }
      if (fence !== null) {
        const comment = /^\s*(?:#|\/\/)\s?(.*)$/.exec(line)?.[1];
        if (comment) out.push(comment);
      } else if (!/^\s*(?:-{3,}|#{1,6}\s)/.test(line)) {
        out.push(line.replace(/[*`>|]/g, " "));
      }
    }
    return out.join(" ");
  };
  const parts = [humanise(doc.name), doc.description, doc.hint, doc.tags, prose(doc.body), humanise(doc.steps)];
  const text = parts.filter((p) => p.trim() !== "").join(". ").replace(/\s+/g, " ");
  return text.length > 400 ? text.slice(0, 400) : text;
}

describe("embeddingText", () => {
  it("equals the full construction on random documents around the length limit", () => {
    let seed = 12345;
    const r = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const words = ["mesh", "bevelEdges", "smooth_normals", "uv-unwrap", "   ", "\t", "a", "Ωmega", "x*y", "`code`", "> quote", "|", "-", "__"];
    const lines = ["```", "```python", "~~~", "````", "# comment", "// note", "## Heading", "---", "", "   ", "#", "plain text line"];
    const text = (max: number): string => Array.from({ length: Math.floor(r() * max) }, () => pick(words)).join(pick([" ", "", "  ", "\n"]));
    const body = (): string => Array.from({ length: Math.floor(r() * 60) }, () => (r() < 0.4 ? pick(lines) : text(25))).join("\n");
    let clipped = 0;
    for (let i = 0; i < 3000; i++) {
      const doc: SearchDocument = { id: `s/r${i}`, name: text(6), aliases: r() < 0.5 ? "" : text(8), tags: text(4), hint: r() < 0.5 ? "" : text(10), description: text(r() < 0.2 ? 200 : 20), steps: text(80), body: body(), skill: "s" };
      const expected = referenceText(doc);
      expect(embeddingText(doc)).toBe(expected);
      if (expected.length === 400) clipped++;
    }
    // Both sides of the limit were exercised.
    expect(clipped).toBeGreaterThan(300);
    expect(clipped).toBeLessThan(2700);
  });

  it("textHash is the first 128 bits of sha256, hex", async () => {
    const { createHash } = await import("node:crypto");
    for (const t of ["", "bevel edges", "Ωmega\u0000"]) expect(textHash(t)).toBe(createHash("sha256").update(t).digest("hex").slice(0, 32));
  });
});

describe("aliases field (search-aliases and example prompts, skill and recipe level)", () => {
  it("holds the skill's aliases and prompts and the entry's own, weighted just under the name", () => {
    const entry = { name: "smoke", description: "d", steps: [], examplePrompts: ["Blow up the car"], "search-aliases": ["pyro"], undo: "delete it" };
    const r = yaml("fx", "smoke", "d", [], { entry, searchAliases: ["explosion"], examplePrompts: ["Make a fireball"] });
    const doc = toDocument(r);
    expect(doc.aliases).toBe("explosion Make a fireball pyro Blow up the car");
    // Kept out of the body, so they are not counted twice.
    expect(doc.body).toBe("delete it");
    expect(FIELD_BOOST.aliases).toBeGreaterThan(FIELD_BOOST.tags);
    expect(FIELD_BOOST.aliases).toBeLessThan(FIELD_BOOST.name);
  });

  it("is precomputed with the pack's other index texts (yamlEntryText), and empty without aliases", () => {
    expect(yamlEntryText({ name: "a", example_prompts: "One, with a comma" }).aliases).toBe("One, with a comma");
    expect(yamlEntryText({ name: "a" }).aliases).toBe("");
    expect(toDocument(md("s", "A", "text")).aliases).toBe("");
  });

  it("is bounded for an oversized alias list", () => {
    const entry = { name: "x", aliases: Array.from({ length: 5000 }, (_, i) => `alias${i}`) };
    expect(yamlEntryText(entry).aliases.length).toBeLessThanOrEqual(2000);
  });
});
