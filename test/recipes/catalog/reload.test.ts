/**
 * Incremental reload against a real RecipeLibrary and real files, driven by
 * explicit change sets (the watcher has its own tests; e2e covers both).
 */
import { mkdir, mkdtemp, realpath, rename, rm, unlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CatalogSnapshot } from "../../../src/recipes/catalog/catalog.js";
import { RecipeLibrary, type CatalogChange } from "../../../src/recipes/catalog/library.js";
import { IncrementalCatalog, type ChangeSet } from "../../../src/recipes/catalog/reload.js";
import { openPrivateStore } from "../../../src/recipes/store/store.js";
import type { Recipe } from "../../../src/recipes/types.js";
import { createSearchEngine } from "../../../src/recipes/search/engine.js";

let tmp = "";
let rootA = "";
let rootB = "";
let privateDir = "";

const skillMd = (name: string, recipes: string | string[], dcc = "maya", extra = ""): string =>
  `---\nname: ${name}\ndescription: ${name} skill\nmetadata:\n  dcc-mcp:\n    dcc: ${dcc}\n    recipes: ${JSON.stringify(recipes)}\n${extra}---\n# ${name}\n`;
const anchors = (...names: string[]): string => names.map((n) => `## ${n}\n\nDo ${n}.\n`).join("\n");
const pack = (...names: string[]): string =>
  `recipes:\n${names.map((n) => `  - name: ${n}\n    description: ${n} pack recipe\n    steps: [{tool: t}]\n`).join("")}`;

async function put(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

function dirs(...list: Array<[number, string]>): ChangeSet {
  return { roots: new Set(), skillDirs: list.map(([rootIndex, dir]) => ({ rootIndex, dir })), privateSlugs: new Set(), privateAll: false };
}
const roots = (...indexes: number[]): ChangeSet => ({ roots: new Set(indexes), skillDirs: [], privateSlugs: new Set(), privateAll: false });
const slugs = (...s: string[]): ChangeSet => ({ roots: new Set(), skillDirs: [], privateSlugs: new Set(s), privateAll: false });

function ids(snapshot: CatalogSnapshot | null): string[] {
  return [...(snapshot?.recipes.keys() ?? [])].sort();
}
function codes(snapshot: CatalogSnapshot | null, skill?: string): string[] {
  return (snapshot?.diagnostics ?? []).filter((d) => skill === undefined || d.skill === skill).map((d) => d.code).sort();
}

let library: RecipeLibrary;
let changes: CatalogChange[];

async function open(skillRoots = [rootA, rootB]): Promise<RecipeLibrary> {
  const search = createSearchEngine({ provider: null });
  const lib = new RecipeLibrary({
    settings: { dcc: "maya", skillRoots, privateDir, stateDir: path.join(tmp, "state") },
    search,
    logger: pino({ level: "silent" }),
  });
  changes = [];
  lib.onChange((_s, _p, change) => changes.push(change));
  await lib.load();
  return lib;
}

beforeEach(async () => {
  tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), "reload-")));
  rootA = path.join(tmp, "A");
  rootB = path.join(tmp, "B");
  privateDir = path.join(tmp, "private");
  await put(path.join(rootA, "rig", "SKILL.md"), skillMd("rig", "RECIPES.md"));
  await put(path.join(rootA, "rig", "RECIPES.md"), anchors("Bind skin", "Paint weights"));
  await put(path.join(rootA, "fx", "SKILL.md"), skillMd("fx", ["packs/*.yaml", "references/RECIPES.yaml"]));
  await put(path.join(rootA, "fx", "packs", "one.yaml"), pack("smoke"));
  await put(path.join(rootA, "fx", "references", "RECIPES.yaml"), pack("fire"));
  await put(path.join(rootB, "rig-copy", "SKILL.md"), skillMd("rig", "RECIPES.md"));
  await put(path.join(rootB, "rig-copy", "RECIPES.md"), anchors("Shadowed"));
  await put(path.join(rootB, "hou", "SKILL.md"), skillMd("hou", "R.md", "houdini"));
  await put(path.join(rootB, "hou", "R.md"), anchors("Other dcc"));
  library = await open();
});

afterEach(async () => {
  await library.stopWatching();
  await library.search.close();
  await rm(tmp, { recursive: true, force: true });
});

describe("incremental reload", () => {
  it("starts from the same catalog a full load gives, with skill-relative paths only", () => {
    const s = library.current()!;
    expect(ids(s)).toEqual(["fx/fire", "fx/smoke", "rig/Bind skin", "rig/Paint weights"]);
    expect(s.skills.get("fx")!.files).toEqual(["packs/one.yaml", "references/RECIPES.yaml"]);
    // Regression: recipe paths reached recipes__list as absolute host paths.
    for (const entry of s.skills.values()) for (const f of entry.files) expect(path.isAbsolute(f)).toBe(false);
    expect(codes(s)).toEqual(["duplicate_skill"]);
  });

  it("re-reads only the affected skill and reuses the others' recipe objects", async () => {
    const before = library.current()!;
    await writeFile(path.join(rootA, "rig", "RECIPES.md"), anchors("Bind skin", "Mirror weights"));
    const result = await library.applyChanges(dirs([0, rootA], [0, path.join(rootA, "rig")]));
    const after = library.current()!;
    expect(result.reloadedSkills).toEqual(["rig"]);
    expect(after.revision).toBe(before.revision + 1);
    expect(ids(after)).toEqual(["fx/fire", "fx/smoke", "rig/Bind skin", "rig/Mirror weights"]);
    expect(after.recipes.get("fx/fire")).toBe(before.recipes.get("fx/fire"));
    expect(changes.at(-1)).toEqual({ source: "reload", visible: true });
    // The search index follows.
    const hits = await library.search.search({ text: "mirror weights", limit: 5, visibility: "public" });
    expect(hits.hits[0]?.recipe.recipeId).toBe("rig/Mirror weights");
    // The old snapshot is untouched: a request that started on it finishes on it.
    expect(ids(before)).toContain("rig/Paint weights");
  });

  it("publishes nothing when a re-read finds the same content (touch, duplicate events)", async () => {
    const before = library.current()!;
    await writeFile(path.join(rootA, "rig", "RECIPES.md"), anchors("Bind skin", "Paint weights"));
    const result = await library.applyChanges(dirs([0, path.join(rootA, "rig")], [0, path.join(rootA, "rig")]));
    expect(result.changed).toBe(false);
    expect(library.current()).toBe(before);
  });

  it("keeps the last good recipes of a YAML pack that became malformed, until it is fixed", async () => {
    const file = path.join(rootA, "fx", "references", "RECIPES.yaml");
    await writeFile(file, "recipes:\n  - name: fire\n    steps: [unclosed\n");
    await library.applyChanges(dirs([0, path.join(rootA, "fx")]));
    let s = library.current()!;
    expect(ids(s)).toContain("fx/fire");
    expect(codes(s, "fx")).toEqual(["reload_kept_last_good", "yaml_parse_error"]);
    const keptDiag = s.diagnostics.find((d) => d.code === "reload_kept_last_good")!;
    expect(keptDiag).toMatchObject({ severity: "warning", skill: "fx", file: "references/RECIPES.yaml" });
    expect(keptDiag.message).not.toContain(tmp);
    expect(changes.at(-1)?.visible).toBe(false);

    // Still malformed on a second edit: still kept.
    await writeFile(file, "not: [a pack");
    await library.applyChanges(dirs([0, path.join(rootA, "fx")]));
    expect(ids(library.current())).toContain("fx/fire");

    await writeFile(file, pack("fire", "embers"));
    await library.applyChanges(dirs([0, path.join(rootA, "fx")]));
    s = library.current()!;
    expect(ids(s)).toEqual(expect.arrayContaining(["fx/fire", "fx/embers"]));
    expect(codes(s, "fx")).toEqual([]);
  });

  it("keeps last good for a pack without recipes:, a non-UTF-8 file and an empty (truncated) Markdown file", async () => {
    await writeFile(path.join(rootA, "fx", "packs", "one.yaml"), "pack: x\n");
    await writeFile(path.join(rootA, "rig", "RECIPES.md"), "");
    await library.applyChanges(dirs([0, path.join(rootA, "fx")], [0, path.join(rootA, "rig")]));
    let s = library.current()!;
    expect(ids(s)).toEqual(["fx/fire", "fx/smoke", "rig/Bind skin", "rig/Paint weights"]);
    expect(codes(s, "fx")).toEqual(["pack_missing_recipes", "reload_kept_last_good"]);
    expect(codes(s, "rig")).toEqual(["duplicate_skill", "file_unreadable", "reload_kept_last_good"]);

    await writeFile(path.join(rootA, "rig", "RECIPES.md"), Buffer.from([0x23, 0x23, 0x20, 0xff, 0xfe]));
    await library.applyChanges(dirs([0, path.join(rootA, "rig")]));
    s = library.current()!;
    expect(ids(s)).toContain("rig/Paint weights");
    expect(codes(s, "rig")).toEqual(["duplicate_skill", "not_utf8", "reload_kept_last_good"]);
  });

  it("a recipe file grown past the size limit keeps its last good recipes", async () => {
    await writeFile(path.join(rootA, "rig", "RECIPES.md"), anchors("Bind skin") + "x".repeat(1024 * 1024 + 1));
    await library.applyChanges(dirs([0, path.join(rootA, "rig")]));
    const s = library.current()!;
    expect(ids(s)).toContain("rig/Paint weights");
    expect(codes(s, "rig")).toEqual(["duplicate_skill", "file_too_large", "reload_kept_last_good"]);
  });

  it("a newly named file that escapes the skill directory through a symlink is refused", async () => {
    await put(path.join(tmp, "outside.md"), anchors("Stolen"));
    const { symlink } = await import("node:fs/promises");
    await symlink(path.join(tmp, "outside.md"), path.join(rootA, "rig", "LINK.md"));
    await writeFile(path.join(rootA, "rig", "SKILL.md"), skillMd("rig", ["RECIPES.md", "LINK.md"]));
    await library.applyChanges(dirs([0, path.join(rootA, "rig")]));
    const s = library.current()!;
    expect(ids(s)).not.toContain("rig/Stolen");
    expect(codes(s, "rig")).toContain("recipe_path_escapes");
  });

  it("a Markdown file whose anchors were really removed loses them (only an empty file is suspect)", async () => {
    await writeFile(path.join(rootA, "rig", "RECIPES.md"), "# Notes only\n\nNo anchors any more.\n");
    await library.applyChanges(dirs([0, path.join(rootA, "rig")]));
    expect(ids(library.current()).filter((id) => id.startsWith("rig/"))).toEqual([]);
  });

  it("a deleted recipe file removes its recipes; a new file matching a glob adds them", async () => {
    await unlink(path.join(rootA, "fx", "references", "RECIPES.yaml"));
    await put(path.join(rootA, "fx", "packs", "two.yaml"), pack("sparks"));
    await library.applyChanges(dirs([0, path.join(rootA, "fx")]));
    const s = library.current()!;
    expect(ids(s).filter((id) => id.startsWith("fx/"))).toEqual(["fx/smoke", "fx/sparks"]);
    expect(codes(s, "fx")).toEqual(["recipe_path_missing"]);
  });

  it("a SKILL.md edit that newly names or stops naming a file adds or drops its recipes", async () => {
    await put(path.join(rootA, "rig", "EXTRA.md"), anchors("Retarget"));
    await writeFile(path.join(rootA, "rig", "SKILL.md"), skillMd("rig", ["EXTRA.md"]));
    await library.applyChanges(dirs([0, path.join(rootA, "rig")]));
    expect(ids(library.current()).filter((id) => id.startsWith("rig/"))).toEqual(["rig/Retarget"]);
    expect(library.current()!.skills.get("rig")!.files).toEqual(["EXTRA.md"]);
  });

  it("a SKILL.md that became malformed keeps the skill; deleting it removes the skill and unshadows the next root's", async () => {
    const md = path.join(rootA, "rig", "SKILL.md");
    await writeFile(md, "---\nname: rig\ntags: [legacy]\n---\n");
    await library.applyChanges(dirs([0, path.join(rootA, "rig")]));
    let s = library.current()!;
    expect(ids(s)).toContain("rig/Bind skin");
    expect(codes(s, "rig")).toEqual(["duplicate_skill", "non_spec_top_level_keys", "reload_kept_last_good"]);

    await writeFile(md, "");
    await library.applyChanges(dirs([0, path.join(rootA, "rig")]));
    expect(ids(library.current())).toContain("rig/Bind skin");

    await unlink(md);
    await library.applyChanges(dirs([0, path.join(rootA, "rig")]));
    s = library.current()!;
    expect(ids(s).filter((id) => id.startsWith("rig/"))).toEqual(["rig/Shadowed"]);
    expect(s.skills.get("rig")!.info.rootIndex).toBe(1);
    expect(codes(s)).toEqual([]);
  });

  it("skill directories added, renamed and removed", async () => {
    await put(path.join(rootA, "new-skill", "SKILL.md"), skillMd("", "N.md"));
    await put(path.join(rootA, "new-skill", "N.md"), anchors("Fresh"));
    await library.applyChanges(dirs([0, path.join(rootA, "new-skill")]));
    expect(ids(library.current())).toContain("new-skill/Fresh");

    await rename(path.join(rootA, "new-skill"), path.join(rootA, "renamed"));
    await library.applyChanges(dirs([0, path.join(rootA, "new-skill")], [0, path.join(rootA, "renamed")]));
    let s = library.current()!;
    expect(ids(s)).toContain("renamed/Fresh");
    expect(ids(s)).not.toContain("new-skill/Fresh");

    await rm(path.join(rootA, "renamed"), { recursive: true });
    await rm(path.join(rootA, "fx"), { recursive: true });
    await library.applyChanges(dirs([0, path.join(rootA, "renamed")], [0, path.join(rootA, "fx")]));
    s = library.current()!;
    expect(ids(s)).toEqual(["rig/Bind skin", "rig/Paint weights"]);
  });

  it("a root that appears later, or becomes a skill itself, is picked up by a root rescan", async () => {
    const rootC = path.join(tmp, "C");
    await library.stopWatching();
    library = await open([rootA, rootB, rootC]);
    await put(path.join(rootC, "late", "SKILL.md"), skillMd("late", "L.md"));
    await put(path.join(rootC, "late", "L.md"), anchors("Late one"));
    await library.applyChanges(roots(2));
    expect(ids(library.current())).toContain("late/Late one");

    await put(path.join(rootC, "SKILL.md"), skillMd("c-root", "late/L.md"));
    await library.applyChanges(roots(2));
    const s = library.current()!;
    expect(ids(s)).toContain("c-root/Late one");
    expect(ids(s)).not.toContain("late/Late one");

    await rm(rootC, { recursive: true });
    await library.applyChanges(roots(2));
    expect(ids(library.current()).some((id) => id.startsWith("c-root/"))).toBe(false);
  });

  it("skills for another DCC stay out; an edit there changes nothing visible", async () => {
    const before = library.current()!;
    await writeFile(path.join(rootB, "hou", "R.md"), anchors("Other dcc", "More"));
    const result = await library.applyChanges(dirs([1, path.join(rootB, "hou")]));
    expect(result.visible).toBe(false);
    expect(library.current()).toBe(before);
  });

  it("serializes concurrent change sets (none lost, none interleaved)", async () => {
    const edits = Array.from({ length: 20 }, (_, i) => i);
    await Promise.all(
      edits.map(async (i) => {
        await put(path.join(rootA, `s${i}`, "SKILL.md"), skillMd(`s${i}`, "R.md"));
        await put(path.join(rootA, `s${i}`, "R.md"), anchors(`Recipe ${i}`));
        await library.applyChanges(dirs([0, path.join(rootA, `s${i}`)]));
      }),
    );
    const s = library.current()!;
    for (const i of edits) expect(ids(s)).toContain(`s${i}/Recipe ${i}`);
  });
});

describe("private playbooks", () => {
  const draft = { title: "Bake normals", summary: "Bake them", whenToUse: "always", steps: [{ title: "a", detail: "b" }], acceptanceCriteria: ["ok"], document: "Body\n" };

  it("a playbook the daemon wrote is not published a second time when its file event comes back", async () => {
    const created = await library.createPlaybook(draft);
    expect(created.ok).toBe(true);
    const after = library.current()!;
    expect(after.recipes.has("private/bake-normals")).toBe(true);
    const result = await library.applyChanges(slugs("bake-normals"));
    expect(result.changed).toBe(false);
    expect(library.current()).toBe(after);

    const updated = await library.updatePlaybook("bake-normals", { summary: "Bake better" });
    expect(updated.ok).toBe(true);
    const afterUpdate = library.current()!;
    await library.applyChanges({ ...slugs(), privateAll: true });
    expect(library.current()).toBe(afterUpdate);
  });

  it("a hand edit is picked up, a malformed edit keeps the last good version, a delete removes it", async () => {
    await library.createPlaybook(draft);
    const file = path.join(privateDir, "bake-normals.md");
    const { readFile } = await import("node:fs/promises");
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace("summary: Bake them", "summary: Edited by hand"));
    await library.applyChanges(slugs("bake-normals"));
    let recipe = library.current()!.recipes.get("private/bake-normals");
    expect(recipe?.description).toBe("Edited by hand");

    await writeFile(file, "---\ntitle: [broken\n---\n");
    await library.applyChanges(slugs("bake-normals"));
    const s = library.current()!;
    recipe = s.recipes.get("private/bake-normals");
    expect(recipe?.description).toBe("Edited by hand");
    expect(codes(s, "private")).toEqual(["private_playbook_invalid", "reload_kept_last_good"]);

    await unlink(file);
    await library.applyChanges(slugs("bake-normals"));
    expect(library.current()!.recipes.has("private/bake-normals")).toBe(false);
    expect(codes(library.current(), "private")).toEqual([]);
  });

  it("a hand-written playbook dropped into the directory appears", async () => {
    await put(path.join(privateDir, "by-hand.md"), "---\ntitle: By hand\n---\nDoc\n");
    await library.applyChanges(slugs("by-hand"));
    expect(library.current()!.recipes.has("private/by-hand")).toBe(true);
  });

  it("a daemon write during a reload batch is neither lost nor overwritten by the older read", async () => {
    await library.createPlaybook(draft);
    const results = await Promise.all([
      library.applyChanges(slugs("bake-normals")),
      library.updatePlaybook("bake-normals", { summary: "v2" }),
      library.applyChanges({ ...slugs(), privateAll: true }),
    ]);
    expect(results[1]).toMatchObject({ ok: true });
    const recipe = library.current()!.recipes.get("private/bake-normals");
    expect(recipe?.format === "private" ? recipe.playbook.revision : 0).toBe(2);
    expect(recipe?.description).toBe("v2");
  });
});

describe("skills handed on as they load", () => {
  it("gives each loaded skill's recipes before the load returns, and on a reload only the re-read skills'", async () => {
    const seen: string[][] = [];
    const handed: Recipe[] = [];
    const catalog = new IncrementalCatalog({
      dcc: "maya",
      roots: [rootA, rootB],
      store: openPrivateStore({ dir: privateDir }),
      onSkillLoaded: (recipes: readonly Recipe[]) => {
        seen.push(recipes.map((r) => r.recipeId).sort());
        handed.push(...recipes);
      },
    });
    await catalog.loadAll();
    // rig-copy is shadowed by rig and hou serves houdini: neither is loaded for maya.
    expect(seen.sort()).toEqual([["fx/fire", "fx/smoke"], ["rig/Bind skin", "rig/Paint weights"]]);
    // Every recipe handed on is one the catalog then serves, as the same object.
    const served = new Map(catalog.parts().skills.flatMap((s) => s.recipes.map((r) => [r.recipeId, r] as const)));
    expect(served.size).toBe(4);
    for (const recipe of handed) expect(served.get(recipe.recipeId)).toBe(recipe);
    seen.length = 0;
    await writeFile(path.join(rootA, "rig", "RECIPES.md"), anchors("Bind skin", "Mirror weights"));
    await catalog.apply(dirs([0, path.join(rootA, "rig")]));
    expect(seen).toEqual([["rig/Bind skin", "rig/Mirror weights"]]);
  });
});
