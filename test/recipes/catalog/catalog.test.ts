/**
 * The snapshot's own search: hits resolved against the snapshot (a recipe
 * the index holds but the snapshot does not is left out, a changed one is
 * the snapshot's version), ranked by score then skill layer; a derived
 * snapshot searches the same index; the merge of queued change sets.
 */
import { describe, expect, it } from "vitest";
import { buildSnapshot, withPlaybook, type SearchIndex } from "../../../src/recipes/catalog/catalog.js";
import { mergeChanges } from "../../../src/recipes/catalog/reload.js";
import type { SearchAnswer } from "../../../src/recipes/search/types.js";
import type { MarkdownRecipe, PrivateRecipe } from "../../../src/recipes/types.js";
import type { SkillInfo } from "../../../src/skills/types.js";

function md(skill: string, name: string, extra: Partial<MarkdownRecipe> = {}): MarkdownRecipe {
  return {
    format: "markdown", recipeId: `${skill}/${name}`, skill, name, dcc: "maya", description: name, tags: [],
    file: "R.md", line: 1, visibility: "public", content: `## ${name}\n`, ...extra,
  };
}

const info = { name: "rig", dir: "/x/rig", root: "/x", rootIndex: 0, description: "", dcc: "maya", tags: [], recipePatterns: [], dccMetadata: {}, metadata: {}, body: "" } as SkillInfo;

function snapshotOf(recipes: MarkdownRecipe[], index?: SearchIndex) {
  return buildSnapshot({ dcc: "maya", revision: 3, skills: [{ info, recipes, diagnostics: [], files: [] }], discoveryDiagnostics: [], privateRecipes: [], privateDiagnostics: [], ...(index ? { index } : {}) });
}

describe("snapshot.search", () => {
  const served = [md("rig", "Bind", { layer: "example" }), md("rig", "Skin", { layer: "domain" })];
  const index: SearchIndex = {
    search: (query): SearchAnswer => ({
      mode: "lexical",
      hits: query.text === ""
        ? served.map((recipe) => ({ recipe, score: 0 }))
        : [
            { recipe: md("rig", "Newer"), score: 9 },
            { recipe: { ...served[0]!, description: "stale copy" }, score: 2 },
            { recipe: served[1]!, score: 2 },
          ],
    }),
  };

  it("resolves every hit against the snapshot and ranks equal scores by layer", () => {
    const snapshot = snapshotOf(served, index);
    const answer = snapshot.search({ text: "bind", limit: 5 });
    if (answer instanceof Promise) throw new Error("a lexical answer is synchronous");
    expect(answer.revision).toBe(3);
    expect(answer.hits.map((h) => h.recipe.recipeId)).toEqual(["rig/Skin", "rig/Bind"]);
    expect(answer.hits[1]!.recipe).toBe(snapshot.recipes.get("rig/Bind"));
    const browsing = snapshot.search({ text: "", limit: 5 });
    if (browsing instanceof Promise) throw new Error("a lexical answer is synchronous");
    expect(browsing.hits.map((h) => h.recipe.recipeId)).toEqual(["rig/Bind", "rig/Skin"]);
  });

  it("a snapshot with a playbook added searches the same index; one without an index finds nothing", async () => {
    const playbook = { ...md("private", "mine"), visibility: "private" } as unknown as PrivateRecipe;
    const next = withPlaybook(snapshotOf(served, index), playbook, 4);
    const answer = await next.search({ text: "bind", limit: 5 });
    expect(answer.revision).toBe(4);
    expect(answer.hits).toHaveLength(2);
    expect(Object.isFrozen(next)).toBe(true);
    expect(await snapshotOf(served).search({ text: "bind", limit: 5 })).toEqual({ mode: "lexical", revision: 3, hits: [] });
  });
});

describe("mergeChanges", () => {
  it("is everything either set names, each directory once", () => {
    const merged = mergeChanges(
      { roots: new Set([0]), skillDirs: [{ rootIndex: 0, dir: "/r/a" }], privateSlugs: new Set(["x"]), privateAll: false },
      { roots: new Set([1]), skillDirs: [{ rootIndex: 0, dir: "/r/a" }, { rootIndex: 1, dir: "/r/a" }], privateSlugs: new Set(["y"]), privateAll: true },
    );
    expect([...merged.roots]).toEqual([0, 1]);
    expect(merged.skillDirs).toEqual([{ rootIndex: 0, dir: "/r/a" }, { rootIndex: 1, dir: "/r/a" }]);
    expect([...merged.privateSlugs]).toEqual(["x", "y"]);
    expect(merged.privateAll).toBe(true);
  });
});
