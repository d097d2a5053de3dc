/**
 * Rendering a playbook as a public recipe: whatever an agent typed, the
 * Markdown reads back through the loader's anchor parser as exactly one
 * recipe, and a recipe-entry document becomes one YAML entry.
 */
import YAML from "yaml";
import { describe, expect, it } from "vitest";
import { oneLine, recipeEntryOf, renderPlaybook, safeBlock } from "../../../src/recipes/packs/promote-render.js";
import { parseMarkdownAnchors } from "../../../src/recipes/packs/markdown.js";
import type { Playbook } from "../../../src/recipes/types.js";

const base: Playbook = {
  slug: "bake-normals",
  title: "Bake normals",
  summary: "Bake from high to low.",
  whenToUse: "Low-poly assets.",
  steps: [{ title: "Select", detail: "High, then low." }],
  acceptanceCriteria: ["no seams"],
  tags: ["texturing"],
  document: "Notes.",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  revision: 3,
};
const from = { from: "private/bake-normals", revision: 3 };

function markdown(over: Partial<Playbook>): { name: string; text: string } {
  const r = renderPlaybook({ ...base, ...over }, from);
  if (!r.ok || r.format !== "markdown") throw new Error(JSON.stringify(r));
  return r;
}

describe("promote rendering: Markdown", () => {
  it("renders every field under one ## anchor, the provenance last", () => {
    const { name, text } = markdown({});
    expect(name).toBe("Bake normals");
    expect(text).toBe(
      [
        "## Bake normals",
        "Bake from high to low.",
        "### When to use",
        "Low-poly assets.",
        "### Steps",
        "#### 1. Select",
        "High, then low.",
        "### Acceptance criteria",
        "- no seams",
        "### Document",
        "Notes.",
        "<!-- promoted from private/bake-normals revision 3 -->",
      ].join("\n\n") + "\n",
    );
  });

  it.each([
    ["newlines and front matter in the title", "---\ntitle: x\n---\nReal", "--- title: x --- Real"],
    ["path separators and dot-dot", "../../etc/passwd", "../../etc/passwd"],
    ["a leading heading marker", "## Injected", "Injected"],
    ["a closing # run", "Bake # #", "Bake"],
    ["control characters and line separators", "a\u0000b\u2028c\u001b[31m", "a b c [31m"],
  ])("a title with %s stays one heading line", (_what, title, expected) => {
    const { name, text } = markdown({ title });
    expect(name).toBe(expected);
    expect(parseMarkdownAnchors(text)).toHaveLength(1);
  });

  it("falls back to the slug when the title leaves nothing", () => {
    expect(markdown({ title: "###" }).name).toBe("bake-normals");
  });

  it("keeps level-1/2 headings and open fences in any field from starting a second recipe", () => {
    const hostile = "# one\n## two\n   ## three\n```\n## in an open fence";
    const { text } = markdown({ summary: hostile, whenToUse: "~~~~\n## x", document: hostile, steps: [{ title: "s\n## t", detail: hostile }], acceptanceCriteria: ["a\n## b"] });
    const anchors = parseMarkdownAnchors(text);
    expect(anchors.map((a) => a.name)).toEqual(["Bake normals"]);
    expect(anchors[0]!.content).toContain("<!-- promoted from private/bake-normals revision 3 -->");
  });

  it("leaves empty sections out", () => {
    const { text } = markdown({ summary: "", whenToUse: " ", steps: [], acceptanceCriteria: [], document: "" });
    expect(text).toBe("## Bake normals\n\n<!-- promoted from private/bake-normals revision 3 -->\n");
  });
});

describe("promote rendering: safeBlock and oneLine", () => {
  it("demotes level-1/2 ATX headings outside fences only, and closes a fence left open", () => {
    expect(safeBlock("# a\n## b\n### c\n####### d\n```\n## e\n```\n## f\n~~~\nopen")).toBe("### a\n### b\n### c\n####### d\n```\n## e\n```\n### f\n~~~\nopen\n~~~");
    expect(safeBlock("#not-a-heading\n    ## indented code")).toBe("#not-a-heading\n    ## indented code");
  });
  it("collapses every kind of line break", () => {
    expect(oneLine(" a\r\nb\u2029c\td ")).toBe("a b c d");
  });
});

describe("promote rendering: YAML", () => {
  const entryDoc = "name: other\ndescription: from the doc\ninputs_schema:\n  type: object\nsteps:\n  - tool: maya_bake\noutput_contract:\n  type: object\n  required: [map]\nprovenance: forged\n";

  it("a recipe-entry document (bare or in a yaml fence) becomes one entry named by the slug, with provenance", () => {
    for (const document of [entryDoc, "```yaml\n" + entryDoc + "```\n"]) {
      const r = renderPlaybook({ ...base, document }, from);
      expect(r.ok && r.format).toBe("yaml");
      if (!r.ok) return;
      const parsed = YAML.parse(r.text) as { recipes: Array<Record<string, unknown>> };
      expect(parsed.recipes).toHaveLength(1);
      const entry = parsed.recipes[0]!;
      expect(entry["name"]).toBe("bake-normals");
      expect(entry["description"]).toBe("Bake from high to low.");
      expect(entry["steps"]).toEqual([{ tool: "maya_bake" }]);
      expect(entry["output_contract"]).toEqual({ type: "object", required: ["map"] });
      // The document cannot forge where the recipe came from.
      expect(entry["provenance"]).toEqual({ from: "private/bake-normals", revision: 3 });
      expect(entry["when_to_use"]).toBe("Low-poly assets.");
    }
  });

  it.each([
    ["prose", "Check the cage."],
    ["a list", "- a\n- b"],
    ["a mapping without recipe keys", "title: x\nnotes: y"],
    ["steps that are not tool calls", "steps:\n  - just text"],
    ["invalid YAML", "a: [\n"],
    ["an alias bomb", "a: &a [1]\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\ninputs_schema: {}"],
  ])("%s stays a Markdown recipe", (_what, document) => {
    expect(recipeEntryOf(document)).toBeNull();
    expect(renderPlaybook({ ...base, document }, from).ok).toBe(true);
  });
});
