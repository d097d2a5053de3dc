import { describe, expect, it } from "vitest";
import { createSearchEngine } from "../../../src/recipes/search/engine.js";
import { createHashingProvider } from "../../../src/recipes/search/embeddings/hashing.js";
import { md, priv, yaml } from "./fixtures.js";

const catalog = [
  yaml("mesh-ops", "bevel_edges", "Round off hard edges with a chamfer", [{ tool: "mesh_ops__bevel_edges", arguments: { object_name: "${object}", width: "${width}" } }]),
  yaml("mesh-ops", "extrude_faces", "Push selected faces outward", [{ tool: "mesh_ops__extrude_faces", arguments: { faces: "${faces}" } }]),
  md("maya-scripting", "Create a polygon cube", "Use cmds.polyCube to make a box.", { tags: ["modeling"] }),
  md("maya-geometry", "Before export (FBX / OBJ)", "Freeze transforms, delete history, check normals.", { dcc: "maya" }),
  md("houdini-geo", "Scatter points", "Scatter points on a surface with the scatter SOP.", { dcc: "houdini" }),
  priv("my-rig-checklist", "My rig checklist", "Steps I follow before publishing a rig"),
];

function engine() {
  const e = createSearchEngine({ provider: null });
  e.update(catalog, 1);
  return e;
}

describe("search engine (lexical)", () => {
  it("matches snake_case names from prose", async () => {
    const answer = await engine().search({ text: "bevel edges", limit: 5 });
    expect(answer.mode).toBe("lexical");
    expect(answer.hits[0]!.recipe.recipeId).toBe("mesh-ops/bevel_edges");
    expect(answer.hits[0]!.score).toBeGreaterThan(0);
    expect(answer.hits[0]!.score).toBeLessThanOrEqual(1);
  });

  it("tolerates typos and prefixes", async () => {
    const e = engine();
    expect((await e.search({ text: "extrud", limit: 3 })).hits[0]!.recipe.recipeId).toBe("mesh-ops/extrude_faces");
    expect((await e.search({ text: "scattr points", limit: 3 })).hits[0]!.recipe.recipeId).toBe("houdini-geo/Scatter points");
  });

  it("filters by dcc, treating dcc any as matching every dcc", async () => {
    const e = engine();
    const maya = await e.search({ text: "", dcc: "maya", limit: 50 });
    const ids = maya.hits.map((h) => h.recipe.recipeId);
    expect(ids).toContain("mesh-ops/bevel_edges");
    expect(ids).not.toContain("houdini-geo/Scatter points");
    const hou = await e.search({ text: "scatter", dcc: "houdini", limit: 5 });
    expect(hou.hits.map((h) => h.recipe.recipeId)).toEqual(["houdini-geo/Scatter points"]);
  });

  it("lists every filtered recipe sorted by id for an empty query", async () => {
    const answer = await engine().search({ text: "   ", skill: "mesh-ops", limit: 10 });
    expect(answer.hits.map((h) => [h.recipe.recipeId, h.score])).toEqual([
      ["mesh-ops/bevel_edges", 0],
      ["mesh-ops/extrude_faces", 0],
    ]);
  });

  it("filters by visibility", async () => {
    const e = engine();
    const p = await e.search({ text: "rig", visibility: "private", limit: 5 });
    expect(p.hits.map((h) => h.recipe.recipeId)).toEqual(["private/my-rig-checklist"]);
    const pub = await e.search({ text: "rig checklist", visibility: "public", limit: 5 });
    expect(pub.hits.map((h) => h.recipe.recipeId)).not.toContain("private/my-rig-checklist");
  });

  it("reindexes changed recipes and forgets removed ones", async () => {
    const e = engine();
    e.update([md("maya-scripting", "Create a polygon cube", "Now about spheres instead.")], 2);
    expect((await e.search({ text: "box", limit: 5 })).hits).toEqual([]);
    expect((await e.search({ text: "spheres", limit: 5 })).hits).toHaveLength(1);
    expect((await e.search({ text: "bevel", limit: 5 })).hits).toEqual([]);
    expect(e.status()).toMatchObject({ lexical: "ready", semantic: "off", total: 1, revision: 2 });
  });
});

describe("search engine (hybrid plumbing)", () => {
  it("answers lexically while warming, hybrid once ready", async () => {
    const provider = createHashingProvider({ delayMs: 30 });
    const e = createSearchEngine({ provider });
    e.update(catalog, 1);
    expect(e.status().semantic).toBe("warming");
    expect((await e.search({ text: "bevel", limit: 3 })).mode).toBe("lexical");
    await e.whenSemanticReady();
    expect(e.status()).toMatchObject({ semantic: "ready", embedded: catalog.length, total: catalog.length });
    const answer = await e.search({ text: "bevel edges", limit: 3 });
    expect(answer.mode).toBe("hybrid");
    expect(answer.hits[0]!.recipe.recipeId).toBe("mesh-ops/bevel_edges");
    await e.close();
  });
});
