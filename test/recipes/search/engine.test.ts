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

  it("lists an empty query from the snapshot served now, filtered before the limit, after every update", async () => {
    const e = engine();
    const ids = async (q: { skill?: string; dcc?: string; limit: number }): Promise<string[]> => (await e.search({ text: "", ...q })).hits.map((h) => h.recipe.recipeId);
    expect(await ids({ limit: 3 })).toEqual(["houdini-geo/Scatter points", "maya-geometry/Before export (FBX / OBJ)", "maya-scripting/Create a polygon cube"]);
    // The filter applies before the limit: the houdini recipe sorts first and is skipped.
    expect(await ids({ dcc: "maya", limit: 2 })).toEqual(["maya-geometry/Before export (FBX / OBJ)", "maya-scripting/Create a polygon cube"]);
    // A recipe added (sorting first) and one removed are listed as served from the next query on.
    e.update([yaml("a-first", "zero", "Sorts before every other id", []), ...catalog.filter((r) => r.skill !== "houdini-geo")], 2);
    expect(await ids({ limit: 2 })).toEqual(["a-first/zero", "maya-geometry/Before export (FBX / OBJ)"]);
    expect(await ids({ skill: "mesh-ops", limit: 10 })).toEqual(["mesh-ops/bevel_edges", "mesh-ops/extrude_faces"]);
    e.update(catalog.slice(0, 1), 3);
    expect(await ids({ limit: 10 })).toEqual(["mesh-ops/bevel_edges"]);
  });

  it("answers a filter naming no served skill or DCC with nothing, and finds the name once it is served", async () => {
    // No `any` recipe here: a DCC filter can rule everything out.
    const mayaOnly = catalog.filter((r) => r.dcc !== "any");
    const e = createSearchEngine({ provider: null });
    e.update(mayaOnly, 1);
    const ids = async (q: { text: string; skill?: string; dcc?: string }): Promise<string[]> => (await e.search({ limit: 10, ...q })).hits.map((h) => h.recipe.recipeId);
    expect(await ids({ text: "scatter points", skill: "houdini-fx" })).toEqual([]);
    expect(await ids({ text: "", skill: "nope" })).toEqual([]);
    expect(await ids({ text: "cube", dcc: "blender" })).toEqual([]);
    expect(await ids({ text: "scatter", dcc: "houdini" })).toEqual(["houdini-geo/Scatter points"]);
    e.update([...mayaOnly, md("nope", "Blender cube", "Make a cube in Blender.", { dcc: "blender" })], 2);
    expect(await ids({ text: "", skill: "nope" })).toEqual(["nope/Blender cube"]);
    expect(await ids({ text: "cube", dcc: "blender" })).toEqual(["nope/Blender cube"]);
    // An `any` recipe matches every DCC filter, so one naming no served DCC still finds it.
    e.update(catalog, 3);
    expect(await ids({ text: "bevel", dcc: "katana" })).toEqual(["mesh-ops/bevel_edges"]);
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

  it("answers a lexical search synchronously, a hybrid one as a promise, and lexically when the query embedding fails", async () => {
    // Synchronous lexical answers let a tool call reach the SDK without a microtask
    // turn (see MaybePromise in src/server/tools/define.ts): a regression guard for that path.
    const hashing = createHashingProvider();
    let queriesFail = false;
    const provider = {
      ...hashing,
      embed: (texts: readonly string[], signal?: AbortSignal) =>
        queriesFail ? Promise.reject(new Error("embedding backend down")) : hashing.embed(texts, signal),
    };
    const e = createSearchEngine({ provider });
    e.update(catalog, 1);
    const warming = e.search({ text: "bevel", limit: 3 });
    expect(warming).not.toBeInstanceOf(Promise);
    expect((warming as Awaited<typeof warming>).hits[0]!.recipe.recipeId).toBe("mesh-ops/bevel_edges");
    await e.whenSemanticReady();
    const hybrid = e.search({ text: "bevel edges", limit: 3 });
    expect(hybrid).toBeInstanceOf(Promise);
    expect((await hybrid).mode).toBe("hybrid");
    queriesFail = true;
    // A query not embedded before: the engine keeps the vectors of recent queries.
    const fallback = await e.search({ text: "bevel the edges", limit: 3 });
    expect(fallback.mode).toBe("lexical");
    expect(fallback.hits[0]!.recipe.recipeId).toBe("mesh-ops/bevel_edges");
    await e.close();
  });
});

describe("hostile and odd queries", () => {
  const e = engine();
  e.update([...catalog, md("fr-skill", "Réglage café", "Crème brûlée über naïve 日本語のレシピ"), md("emoji", "Party 🎉 time", "confetti")], 2);

  it("a 10 kB query answers with bounded, well-formed hits", async () => {
    const text = "bevel edges extrude faces ".repeat(400).slice(0, 10_240);
    const answer = await e.search({ text, limit: 3 });
    expect(answer.hits.length).toBeLessThanOrEqual(3);
    expect(answer.hits.map((h) => h.recipe.recipeId)).toContain("mesh-ops/bevel_edges");
    const noise = Array.from({ length: 2_000 }, (_, i) => `w${i}x`).join(" ");
    expect((await e.search({ text: noise, limit: 5 })).hits.length).toBeLessThanOrEqual(5);
  });

  it("regex metacharacters are plain text", async () => {
    for (const text of [".*", "(a|b)+$", "[", "\\", "${x}", "bevel.*edges", "^(?!x)"]) {
      const answer = await e.search({ text, limit: 5 });
      expect(answer.mode).toBe("lexical");
    }
    expect((await e.search({ text: "bevel.*edges", limit: 1 })).hits[0]!.recipe.recipeId).toBe("mesh-ops/bevel_edges");
  });

  it("unicode text is indexed and searchable, broken surrogates do not throw", async () => {
    expect((await e.search({ text: "café", limit: 1 })).hits[0]!.recipe.recipeId).toBe("fr-skill/Réglage café");
    expect((await e.search({ text: "日本語のレシピ", limit: 1 })).hits[0]!.recipe.recipeId).toBe("fr-skill/Réglage café");
    expect((await e.search({ text: "🎉", limit: 1 })).hits).toEqual([]);
    expect((await e.search({ text: "\uD800\uDFFF\uD800 confetti", limit: 1 })).hits[0]!.recipe.recipeId).toBe("emoji/Party 🎉 time");
  });

  it("stop words alone and limit 0 find nothing; blank text lists", async () => {
    expect((await e.search({ text: "the of and", limit: 5 })).hits).toEqual([]);
    expect((await e.search({ text: "bevel", limit: 0 })).hits).toEqual([]);
    expect((await e.search({ text: "", limit: 100 })).hits).toHaveLength(catalog.length + 2);
  });

  it("scores are 0..1, descending, ties broken by recipeId", async () => {
    const twins = createSearchEngine({ provider: null });
    twins.update([md("b-skill", "Twin", "same words here"), md("a-skill", "Twin", "same words here"), md("c-skill", "Other", "same words")], 1);
    const answer = await twins.search({ text: "twin same words", limit: 5 });
    expect(answer.hits.map((h) => h.recipe.recipeId)).toEqual(["a-skill/Twin", "b-skill/Twin", "c-skill/Other"]);
    const scores = answer.hits.map((h) => h.score);
    expect(scores[0]).toBe(1);
    expect(scores.every((s, i) => s >= 0 && s <= 1 && (i === 0 || s <= scores[i - 1]!))).toBe(true);
  });

  it("concurrent searches during updates stay consistent", async () => {
    const live = engine();
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 50; i++) {
      work.push(Promise.resolve(live.search({ text: "bevel", limit: 5 })));
      if (i % 10 === 0) live.update(i % 20 === 0 ? catalog : catalog.slice(0, 2), i);
    }
    const answers = (await Promise.all(work)) as { hits: { recipe: { recipeId: string } }[] }[];
    for (const a of answers) expect(a.hits.every((h) => typeof h.recipe.recipeId === "string")).toBe(true);
  });
});

describe("similar", () => {
  it("offers close matches to a draft, honouring excludeId and visibility", async () => {
    const e = engine();
    const close = await e.similar("Bevel edges: round off hard edges with a chamfer", { limit: 3 });
    expect(close[0]!.recipe.recipeId).toBe("mesh-ops/bevel_edges");
    expect(await e.similar("Bevel edges: round off hard edges with a chamfer", { limit: 3, excludeId: "mesh-ops/bevel_edges" })).not.toContainEqual(
      expect.objectContaining({ recipe: expect.objectContaining({ recipeId: "mesh-ops/bevel_edges" }) }),
    );
    expect(await e.similar("rig checklist before publishing", { limit: 3, visibility: "public" })).toEqual([]);
    expect((await e.similar("rig checklist before publishing", { limit: 3, visibility: "private" }))[0]!.recipe.recipeId).toBe("private/my-rig-checklist");
  });

  it("returns nothing for an unrelated or empty draft", async () => {
    const e = engine();
    expect(await e.similar("quarterly tax report for the accounting team", { limit: 3 })).toEqual([]);
    expect(await e.similar("   ", { limit: 3 })).toEqual([]);
  });
});

describe("search engine: recipes warmed before a load publishes", () => {
  const ids = async (e: ReturnType<typeof createSearchEngine>, text: string): Promise<string[]> =>
    (await e.search({ text, limit: 10 })).hits.map((h) => h.recipe.recipeId);

  it("answers exactly as an engine that only saw update(), with nothing warmed visible before it", async () => {
    const warmed = createSearchEngine({ provider: null });
    const plain = createSearchEngine({ provider: null });
    warmed.warm(catalog.slice(0, 3));
    expect(await ids(warmed, "bevel edges")).toEqual([]);
    warmed.warm(catalog.slice(3));
    warmed.update(catalog, 1);
    plain.update(catalog, 1);
    for (const q of ["bevel edges", "extrud", "scatter points", "export normals", "rig checklist"]) {
      expect(await warmed.search({ text: q, limit: 10 }), q).toEqual(await plain.search({ text: q, limit: 10 }));
    }
  });

  it("does not let a reload's warmed copy of a served recipe change answers before it is published", async () => {
    const e = createSearchEngine({ provider: null });
    e.update(catalog, 1);
    const renamed = yaml("mesh-ops", "bevel_edges", "Chamfer corners with a zebra pattern", [{ tool: "mesh_ops__bevel_edges", arguments: {} }]);
    e.warm([renamed]);
    expect(await ids(e, "zebra")).toEqual([]);
    expect(await ids(e, "round off hard edges")).toContain("mesh-ops/bevel_edges");
    e.update([renamed, ...catalog.slice(1)], 2);
    expect(await ids(e, "zebra")).toEqual(["mesh-ops/bevel_edges"]);
  });

  it("with no private recipe, public searches skip the filter yet still hide what is only warmed", async () => {
    const publicOnly = catalog.filter((r) => r.visibility === "public");
    const e = createSearchEngine({ provider: null });
    e.update(publicOnly, 1);
    const search = async (text: string, visibility?: "public" | "all") =>
      (await e.search({ text, limit: 10, ...(visibility ? { visibility } : {}) })).hits.map((h) => h.recipe.recipeId);
    for (const q of ["bevel edges", "extrud", "scatter points", "export normals"]) expect(await search(q, "public"), q).toEqual(await search(q));
    const fresh = md("new-skill", "Zebra stripes", "Paint zebra stripes on a mesh");
    e.warm([fresh]);
    expect(await search("zebra stripes", "public")).toEqual([]);
    expect(await search("zebra stripes", "all")).toEqual([]);
    e.update([...publicOnly, fresh], 2);
    expect(await search("zebra stripes", "public")).toEqual(["new-skill/Zebra stripes"]);
    // A private playbook published next: public searches filter again.
    const mine = priv("zebra-notes", "Zebra notes", "My zebra stripes notes");
    e.update([...publicOnly, fresh, mine], 3);
    expect(await search("zebra stripes", "public")).toEqual(["new-skill/Zebra stripes"]);
    expect(await search("zebra stripes", "all")).toContain("private/zebra-notes");
  });

  it("never answers with a warmed recipe a load did not publish, and finds it once a later load does", async () => {
    const e = createSearchEngine({ provider: null });
    const orphan = md("ghost-skill", "Haunted walkthrough", "A spectral quokka walkthrough");
    e.warm([orphan]);
    e.update(catalog, 1);
    expect(await ids(e, "quokka")).toEqual([]);
    // Published later as a new object: indexed afresh, found.
    const again = md("ghost-skill", "Haunted walkthrough", "A spectral quokka walkthrough");
    e.update([...catalog, again], 2);
    expect(await ids(e, "quokka")).toEqual(["ghost-skill/Haunted walkthrough"]);
    e.update(catalog, 3);
    expect(await ids(e, "quokka")).toEqual([]);
  });
});

describe("search engine: the lexical index fills after update()", () => {
  const queries = ["bevel edges", "extrud", "scattr points", "export normals", "rig checklist", "polygon cube"];
  const answers = async (e: ReturnType<typeof createSearchEngine>) => Promise.all(queries.map(async (text) => e.search({ text, limit: 10 })));

  it("answers at once after update, before any background indexing, as once the index has filled", async () => {
    const early = createSearchEngine({ provider: null });
    early.update(catalog, 1);
    const atOnce = await answers(early);
    const late = createSearchEngine({ provider: null });
    late.update(catalog, 1);
    // Several turns of the event loop: the background slices run meanwhile.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(atOnce).toEqual(await answers(late));
    expect(atOnce[0]!.hits[0]!.recipe.recipeId).toBe("mesh-ops/bevel_edges");
  });

  it("forgets a recipe removed while it still waited to be indexed", async () => {
    const e = createSearchEngine({ provider: null });
    e.update(catalog, 1);
    e.update(catalog.filter((r) => r.recipeId !== "mesh-ops/bevel_edges"), 2);
    expect((await e.search({ text: "bevel edges chamfer", limit: 10 })).hits.map((h) => h.recipe.recipeId)).not.toContain("mesh-ops/bevel_edges");
    e.update(catalog, 3);
    expect((await e.search({ text: "bevel edges chamfer", limit: 10 })).hits[0]!.recipe.recipeId).toBe("mesh-ops/bevel_edges");
  });

  it("indexes a changed recipe's new text when it replaced one still waiting", async () => {
    const e = createSearchEngine({ provider: null });
    e.update(catalog, 1);
    const renamed = yaml("mesh-ops", "bevel_edges", "Chamfer corners with a zebra pattern", [{ tool: "mesh_ops__bevel_edges", arguments: {} }]);
    e.update([renamed, ...catalog.slice(1)], 2);
    expect((await e.search({ text: "zebra", limit: 10 })).hits.map((h) => h.recipe.recipeId)).toEqual(["mesh-ops/bevel_edges"]);
    expect((await e.search({ text: "round hard", limit: 10 })).hits.map((h) => h.recipe.recipeId)).not.toContain("mesh-ops/bevel_edges");
    await e.close();
  });
});
