import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSearchEngine } from "../../../src/recipes/search/engine.js";
import { embeddingViews, toDocument } from "../../../src/recipes/search/document.js";
import { createHashingProvider } from "../../../src/recipes/search/embeddings/hashing.js";
import type { Recipe } from "../../../src/recipes/types.js";
import { md, yaml } from "./fixtures.js";
import { until } from "../../helpers/until.js";

let cacheDir: string;
beforeEach(async () => {
  cacheDir = await mkdtemp(path.join(os.tmpdir(), "semantic-"));
});
afterEach(async () => {
  await rm(cacheDir, { recursive: true, force: true });
});

/** Texts embedded per catalog recipe: the blended text and the name (no description). */
const VIEWS = 2;

function catalog(n: number): Recipe[] {
  return Array.from({ length: n }, (_, i) => md("skill", `recipe ${i}`, `Recipe number ${i} about topic${i % 7} and tool${i}.`));
}

function recordingLogger() {
  const warnings: { obj: object; msg?: string }[] = [];
  return {
    warnings,
    logger: { info: () => undefined, debug: () => undefined, warn: (obj: object, msg?: string) => void warnings.push({ obj, msg }) },
  };
}

async function warm(recipes: Recipe[], seed = "0", logger = recordingLogger().logger) {
  const provider = createHashingProvider({ seed });
  const engine = createSearchEngine({ provider, cacheDir, logger });
  engine.update(recipes, 1);
  await engine.whenSemanticReady();
  return { provider, engine };
}

describe("vector cache through the engine", () => {
  it("a restart with a warm cache embeds nothing", async () => {
    const first = await warm(catalog(40));
    expect(first.provider.texts).toBe(40 * VIEWS);
    await first.engine.close();
    const second = await warm(catalog(40));
    expect(second.provider.texts).toBe(0);
    expect(second.engine.status()).toMatchObject({ semantic: "ready", embedded: 40, total: 40 });
    expect((await second.engine.search({ text: "topic3", limit: 3 })).mode).toBe("hybrid");
    await second.engine.close();
  });

  it("re-embeds only recipes whose content changed, on reload and on restart", async () => {
    const first = await warm(catalog(20));
    const changed = catalog(20);
    changed[5] = md("skill", "recipe 5", "Entirely new text about volumes.");
    first.engine.update(changed, 2);
    await first.engine.whenSemanticReady();
    // whenSemanticReady resolves at once when already ready; wait for the queue.
    // Only the view holding the changed body is new; the name view is reused.
    await until(() => first.provider.texts === 20 * VIEWS + 1);
    expect(first.engine.status()).toMatchObject({ embedded: 20, revision: 2 });
    await first.engine.close();
    const restarted = await warm(changed);
    expect(restarted.provider.texts).toBe(0);
    await restarted.engine.close();
  });

  // Regression: after warm-up every change rewrote the whole cache file before the pump ended, so
  // the next change's embedding waited behind it (bench:replicas --public 20000: semantic leg p50 0.6–1.5 s).
  it("after warm-up a change's vectors are written later, not before its pump ends, and at the latest at close", async () => {
    const first = await warm(catalog(20));
    const [file] = await readdir(cacheDir);
    const written = await readFile(path.join(cacheDir, file!));
    const changed = catalog(20);
    changed[3] = md("skill", "recipe 3", "A rewritten body about cloth.");
    first.engine.update(changed, 2);
    await until(() => first.engine.status().embedded === 20 && first.provider.texts === 20 * VIEWS + 1);
    // The next change is embedded too: before the fix, only once the first change's save had finished.
    const again = [...changed];
    again[4] = md("skill", "recipe 4", "Another rewritten body, about hair.");
    first.engine.update(again, 3);
    await until(() => first.engine.status().embedded === 20 && first.provider.texts === 20 * VIEWS + 2);
    expect(await readFile(path.join(cacheDir, file!))).toEqual(written);
    await first.engine.close();
    const restarted = await warm(again);
    expect(restarted.provider.texts).toBe(0);
    await restarted.engine.close();
  });

  it("a different model does not reuse the cached vectors", async () => {
    await (await warm(catalog(10), "model-a")).engine.close();
    const other = await warm(catalog(10), "model-b");
    expect(other.provider.texts).toBe(10 * VIEWS);
    await other.engine.close();
    expect(await readdir(cacheDir)).toHaveLength(2);
  });

  it("a corrupt cache file is discarded with a warning and rebuilt", async () => {
    await (await warm(catalog(10))).engine.close();
    const [file] = await readdir(cacheDir);
    await writeFile(path.join(cacheDir, file!), "RSVEC1\ncorrupted");
    const { warnings, logger } = recordingLogger();
    const again = await warm(catalog(10), "0", logger);
    expect(again.provider.texts).toBe(10 * VIEWS);
    expect(warnings.some((w) => w.msg === "vector cache discarded" && JSON.stringify(w.obj).includes("corrupt"))).toBe(true);
    expect(JSON.stringify(warnings)).not.toContain(cacheDir);
    await again.engine.close();
    const reloaded = await warm(catalog(10));
    expect(reloaded.provider.texts).toBe(0);
    await reloaded.engine.close();
  });

  it("an unwritable cache dir only costs a warning", async () => {
    const blocker = path.join(cacheDir, "file");
    await writeFile(blocker, "x");
    const { warnings, logger } = recordingLogger();
    const provider = createHashingProvider();
    const engine = createSearchEngine({ provider, cacheDir: path.join(blocker, "sub"), logger });
    engine.update(catalog(5), 1);
    await engine.whenSemanticReady();
    expect(engine.status().semantic).toBe("ready");
    expect(warnings.some((w) => w.msg === "vector cache not written")).toBe(true);
    await engine.close();
  });
});

describe("warm-up", () => {
  it("answers lexically while warming and reports progress", async () => {
    const provider = createHashingProvider({ delayMs: 20 });
    const engine = createSearchEngine({ provider });
    engine.update(catalog(64), 1);
    const during = await engine.search({ text: "topic2", limit: 5 });
    expect(during.mode).toBe("lexical");
    expect(during.hits.length).toBeGreaterThan(0);
    expect(engine.status()).toMatchObject({ lexical: "ready", semantic: "warming", total: 64 });
    expect(engine.status().embedded).toBeLessThan(64);
    await engine.whenSemanticReady();
    expect(engine.status()).toMatchObject({ semantic: "ready", embedded: 64 });
    await engine.close();
  });

  it("a failing provider leaves search lexical and is retried on the next update", async () => {
    const { warnings, logger } = recordingLogger();
    const provider = createHashingProvider({ failOnCall: 1 });
    const engine = createSearchEngine({ provider, logger });
    engine.update(catalog(5), 1);
    await engine.whenSemanticReady();
    expect(engine.status().semantic).toBe("failed");
    expect((await engine.search({ text: "topic1", limit: 3 })).mode).toBe("lexical");
    expect(warnings.some((w) => w.msg?.includes("embedding failed"))).toBe(true);
    engine.update(catalog(5), 2);
    expect(engine.status().semantic).toBe("warming");
    await engine.whenSemanticReady();
    expect(engine.status().semantic).toBe("ready");
    expect((await engine.search({ text: "topic1", limit: 3 })).mode).toBe("hybrid");
    await engine.close();
  });

  it("with a warm cache it stays lexical until the model has loaded", async () => {
    await (await warm(catalog(5))).engine.close();
    let load!: () => void;
    const provider = createHashingProvider({ ready: new Promise<void>((r) => (load = r)) });
    const engine = createSearchEngine({ provider, cacheDir });
    engine.update(catalog(5), 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(engine.status()).toMatchObject({ semantic: "warming", embedded: 5 });
    expect((await engine.search({ text: "topic1", limit: 3 })).mode).toBe("lexical");
    load();
    await engine.whenSemanticReady();
    expect((await engine.search({ text: "topic1", limit: 3 })).mode).toBe("hybrid");
    expect(provider.texts).toBe(1);
    await engine.close();
  });

  it("a model that never loads leaves search lexical", async () => {
    const provider = createHashingProvider({ ready: Promise.reject(new Error("weights missing")) });
    const { warnings, logger } = recordingLogger();
    const engine = createSearchEngine({ provider, logger });
    engine.update(catalog(3), 1);
    await engine.whenSemanticReady();
    expect(engine.status().semantic).toBe("failed");
    expect(warnings.some((w) => w.msg?.includes("model unavailable"))).toBe(true);
    await engine.close();
  });

  it("a failing query embedding falls back to a lexical answer", async () => {
    const base = createHashingProvider();
    let failQueries = false;
    const provider = { ...base, id: base.id, dimension: base.dimension, embed: (t: readonly string[]) => (failQueries ? Promise.reject(new Error("down")) : base.embed(t)) };
    const engine = createSearchEngine({ provider });
    engine.update(catalog(5), 1);
    await engine.whenSemanticReady();
    failQueries = true;
    const answer = await engine.search({ text: "topic1", limit: 3 });
    expect(answer.mode).toBe("lexical");
    expect(answer.hits.length).toBeGreaterThan(0);
    await engine.close();
  });

  it("updates during warm-up end with exactly the latest set embedded", async () => {
    const provider = createHashingProvider({ delayMs: 5 });
    const engine = createSearchEngine({ provider });
    engine.update(catalog(50), 1);
    engine.update(catalog(30), 2);
    engine.update([...catalog(30), yaml("mesh-ops", "bevel_edges", "Bevel edges", [])], 3);
    await engine.whenSemanticReady();
    await until(() => engine.status().embedded === 31);
    expect(engine.status()).toMatchObject({ total: 31, revision: 3, semantic: "ready" });
    await engine.close();
  });

  it("close during warm-up stops embedding and settles waiters", async () => {
    const provider = createHashingProvider({ delayMs: 20 });
    const engine = createSearchEngine({ provider, cacheDir });
    engine.update(catalog(200), 1);
    const ready = engine.whenSemanticReady();
    await engine.close();
    await ready;
    const calls = provider.calls;
    await new Promise((r) => setTimeout(r, 60));
    expect(provider.calls).toBe(calls);
  });
});

describe("hybrid ranking", () => {
  it("a search in flight when the catalog changes answers from its own snapshot", async () => {
    const provider = createHashingProvider({ delayMs: 20 });
    const engine = createSearchEngine({ provider });
    engine.update(catalog(10), 1);
    await engine.whenSemanticReady();
    const pending = engine.search({ text: "topic3 recipe", limit: 5 });
    engine.update([], 2);
    const answer = await pending;
    expect(answer.mode).toBe("hybrid");
    expect(answer.hits.length).toBeGreaterThan(0);
    expect(answer.hits.every((h) => h.recipe.skill === "skill")).toBe(true);
    expect((await engine.search({ text: "topic3 recipe", limit: 5 })).hits).toEqual([]);
    await engine.close();
  });

  it("filters before taking the top k and breaks ties by recipeId", async () => {
    const provider = createHashingProvider();
    const engine = createSearchEngine({ provider });
    const recipes = [
      md("b-skill", "Twin", "scatter points on a surface", { dcc: "houdini" }),
      md("a-skill", "Twin", "scatter points on a surface", { dcc: "houdini" }),
      ...Array.from({ length: 30 }, (_, i) => md("maya-skill", `Twin ${i}`, "scatter points on a surface", { dcc: "maya" })),
    ];
    engine.update(recipes, 1);
    await engine.whenSemanticReady();
    const answer = await engine.search({ text: "scatter points", dcc: "houdini", limit: 2 });
    expect(answer.mode).toBe("hybrid");
    expect(answer.hits.map((h) => h.recipe.recipeId)).toEqual(["a-skill/Twin", "b-skill/Twin"]);
    expect(answer.hits.every((h) => h.score > 0 && h.score <= 1)).toBe(true);
    await engine.close();
  });
});

describe("multi-view embeddings", () => {
  // Bag-of-words vectors make view scores predictable: a short query matches
  // the short name view almost exactly and a long blended text only faintly.
  const filler = Array.from({ length: 40 }, (_, i) => `filler${i}`).join(" ");
  const recipes = [
    md("mesh", "Bevel edges", `Notes. ${filler}`),
    md("mesh", "Chamfer", "bevel edges bevel"),
  ];

  async function ranked(semanticViews: "all" | "primary") {
    const provider = createHashingProvider();
    const engine = createSearchEngine({ provider, ranking: "semantic", semanticViews });
    engine.update(recipes, 1);
    await engine.whenSemanticReady();
    const answer = await engine.search({ text: "bevel edges", limit: 2 });
    await engine.close();
    return answer.hits.map((h) => [h.recipe.recipeId, h.score] as const);
  }

  it("a recipe is scored by its best view, not by its blended text alone", async () => {
    const all = await ranked("all");
    expect(all[0]![0]).toBe("mesh/Bevel edges");
    expect(all[0]![1]).toBeGreaterThan(0.99);
    // The blended text alone (the primary view) prefers the short body.
    expect((await ranked("primary"))[0]![0]).toBe("mesh/Chamfer");
  });

  it.each([256, 257])("scores exact cosines (to half precision) with %d dimensions, whichever way rows are read", async (dimension) => {
    const provider = createHashingProvider({ dimension });
    const engine = createSearchEngine({ provider, ranking: "semantic" });
    const docs = Array.from({ length: 30 }, (_, i) => md("s", `Doc ${i}`, `alpha${i % 5} beta${i % 3} gamma${i}`));
    engine.update(docs, 1);
    await engine.whenSemanticReady();
    const query = "alpha2 beta1 gamma17";
    const [q] = await provider.embed([query]);
    const views = await provider.embed(docs.flatMap((d) => embeddingViews(toDocument(d))));
    // Best view per document, computed here in float64 from the provider's vectors.
    let k = 0;
    const expected = docs.map((d) => {
      let best = -Infinity;
      for (const _ of embeddingViews(toDocument(d))) {
        const v = views[k++]!;
        best = Math.max(best, v.reduce((sum, x, i) => sum + x * q![i]!, 0));
      }
      return { id: d.recipeId, score: Math.max(0, best) };
    });
    expected.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    const answer = await engine.search({ text: query, limit: 5 });
    expect(answer.hits.map((h) => h.recipe.recipeId)).toEqual(expected.slice(0, 5).map((e) => e.id));
    answer.hits.forEach((h, i) => expect(Math.abs(h.score - expected[i]!.score)).toBeLessThan(2e-3));
    await engine.close();
  });

  it("a changed description re-embeds both views; an unchanged recipe nothing", async () => {
    const provider = createHashingProvider();
    const engine = createSearchEngine({ provider, cacheDir });
    const steps = [{ tool: "mesh_ops__bevel" }];
    const before = [yaml("mesh-ops", "bevel_edges", "Bevel bounded edges", steps), yaml("mesh-ops", "inset", "Inset faces", steps)];
    engine.update(before, 1);
    await engine.whenSemanticReady();
    expect(provider.texts).toBe(4);
    engine.update([yaml("mesh-ops", "bevel_edges", "Round off hard edges", steps), before[1]!], 2);
    await until(() => provider.texts === 6);
    expect(engine.status()).toMatchObject({ embedded: 2, total: 2 });
    await engine.close();
  });

  it("past the primary-view shortlist, filters still apply before the top k", async () => {
    const provider = createHashingProvider();
    const engine = createSearchEngine({ provider });
    const many = Array.from({ length: 1_200 }, (_, i) => md("maya-skill", `Scatter ${i}`, "scatter points on a surface", { dcc: "maya" }));
    engine.update([...many, md("hou-skill", "Scatter", "scatter points on a surface", { dcc: "houdini" })], 1);
    await engine.whenSemanticReady();
    const answer = await engine.search({ text: "scatter points", dcc: "houdini", limit: 3 });
    expect(answer.mode).toBe("hybrid");
    expect(answer.hits.map((h) => h.recipe.recipeId)).toEqual(["hou-skill/Scatter"]);
    const unfiltered = await engine.search({ text: "scatter points surface", limit: 5 });
    expect(unfiltered.hits).toHaveLength(5);
    await engine.close();
  });
});
