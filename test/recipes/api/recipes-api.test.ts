/** The seed's Recipes API functions, against the real packs and hostile trees. */
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  findRecipeEntry,
  getRecipeContent,
  getRecipesPath,
  getRecipesPaths,
  listRecipeEntries,
  loadRecipePack,
  parseRecipeAnchors,
  scanSkills,
  validateRecipeInputs,
  type SkillInfo,
} from "../../../src/index.js";
import { EXAMPLE_SKILLS, makeTempDir, skillMd, writeTree } from "../../e2e/harness.js";
import { REAL_SKILLS, requireShared } from "../../helpers/shared.js";

const haveShared = requireShared(REAL_SKILLS, "real-pack API tests");

const MAYA_ROOT = path.join(REAL_SKILLS, "dcc-mcp-maya/src/dcc_mcp_maya/skills");
const CORE_ROOT = path.join(REAL_SKILLS, "dcc-mcp-core/skills");
const FREECAD_ROOT = path.join(REAL_SKILLS, "dcc-mcp-freecad/src/dcc_mcp_freecad/skills");

async function skill(root: string, name: string, dcc: string): Promise<SkillInfo> {
  const { skills } = await scanSkills({ dccName: dcc, extraPaths: [root], env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" } });
  const found = skills.find((s) => s.name === name);
  if (found === undefined) throw new Error(`skill ${name} not found under ${root}`);
  return found;
}

describe.skipIf(!haveShared)("Recipes API on the real packs", () => {
  it("scanSkills keeps the skills that serve the DCC (its own, any, python)", async () => {
    const maya = await scanSkills({ dccName: "maya", extraPaths: [MAYA_ROOT, CORE_ROOT, FREECAD_ROOT], env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" } });
    const names = maya.skills.map((s) => s.name).sort();
    expect(names).toEqual(["maya-geometry", "maya-mesh-ops", "maya-scripting", "mesh-ops"]);
    expect(maya.roots.slice(0, 3)).toEqual([MAYA_ROOT, CORE_ROOT, FREECAD_ROOT]);
  });

  it("getRecipesPath(s) resolve nested metadata relative to the skill", async () => {
    const scripting = await skill(MAYA_ROOT, "maya-scripting", "maya");
    expect(await getRecipesPath(scripting)).toBe(path.join(scripting.dir, "references/RECIPES.md"));
    expect(await getRecipesPaths(scripting)).toEqual([path.join(scripting.dir, "references/RECIPES.md")]);
  });

  it("parseRecipeAnchors / getRecipeContent read Markdown anchors with spaces", async () => {
    const geometry = await skill(MAYA_ROOT, "maya-geometry", "maya");
    const file = (await getRecipesPath(geometry))!;
    const anchors = await parseRecipeAnchors(file);
    expect(anchors).toContain("Before export (FBX / OBJ)");
    const content = await getRecipeContent(file, "Before export (FBX / OBJ)");
    expect(content?.startsWith("## Before export (FBX / OBJ)")).toBe(true);
    expect(await getRecipeContent(file, "No such anchor")).toBeNull();
  });

  it("loadRecipePack keeps pack-level keys and every entry (mesh-ops: 19)", async () => {
    const meshOps = await skill(CORE_ROOT, "mesh-ops", "maya");
    const recipes = await loadRecipePack((await getRecipesPath(meshOps))!, meshOps);
    expect(recipes).toHaveLength(19);
    expect(recipes[0]!.pack).toHaveProperty("tool_routing");
    expect(recipes.every((r) => r.recipeId.startsWith("mesh-ops/"))).toBe(true);
  });

  it("listRecipeEntries and findRecipeEntry work on YAML and Markdown skills", async () => {
    const fem = await skill(FREECAD_ROOT, "freecad-fem-review", "freecad");
    const entries = await listRecipeEntries(fem);
    expect(entries.map((e) => e.name)).toContain("fem-review");
    expect(entries[0]).toMatchObject({ format: "yaml", file: "RECIPES.yaml" });
    const recipe = await findRecipeEntry(fem, "fem-review");
    expect(recipe?.format).toBe("yaml");
    expect(await findRecipeEntry(fem, "nope")).toBeNull();
  });

  it("listRecipeEntries returns entries whole as core's list_recipe_entries (maya-geometry anchors, mesh-ops recipes)", async () => {
    const geometry = await listRecipeEntries(await skill(MAYA_ROOT, "maya-geometry", "maya"));
    expect(geometry[0]).toMatchObject({
      name: "Before export (FBX / OBJ)",
      output_contract: "markdown_recipe",
      inputs_schema: {},
      steps: [],
      toolset_profiles: [],
      provenance: { format: "markdown-anchor", skill: "maya-geometry", path: "references/IO_CHECKLIST.md" },
    });
    const meshOps = await listRecipeEntries(await skill(CORE_ROOT, "mesh-ops", "maya"));
    const bevel = meshOps.find((e) => e.name === "bevel_edges")!;
    expect(bevel.provenance).toMatchObject({ format: "recipe-pack", skill: "mesh-ops", path: "RECIPES.yaml" });
    expect(bevel.steps.length).toBeGreaterThan(0);
    expect(Array.isArray(bevel.toolset_profiles)).toBe(true);
  });

  it("validateRecipeInputs renders dcc-mcp-core style messages", async () => {
    const meshOps = await skill(CORE_ROOT, "mesh-ops", "maya");
    const recipe = (await findRecipeEntry(meshOps, "bevel_edges"))!;
    expect(recipe.format).toBe("yaml");
    if (recipe.format !== "yaml") return;
    const errors = validateRecipeInputs({ inputs_schema: recipe.inputsSchema }, {});
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.some((e) => e.startsWith("Missing required input:"))).toBe(true);
  });
});

describe("Recipes API on hand-made trees", () => {
  let root: string;
  beforeAll(async () => {
    root = await makeTempDir();
    await writeTree(root, {
      "flat/SKILL.md": `---\nname: flat\ndescription: flat metadata\nmetadata:\n  dcc-mcp.dcc: maya\n  dcc-mcp.recipes: ["a.md", "packs/*.yaml"]\n---\n`,
      "flat/a.md": "## One\nx\n```\n## fenced\n```\n## Two\ny\n",
      "flat/packs/p1.yaml": "recipes:\n  - name: r1\n    output_contract: a label\n    steps: []\n",
      "flat/packs/p2.yaml": "recipes:\n  - name: r2\n    steps: []\n",
      "missing/SKILL.md": skillMd("missing", "maya", "nope.yaml"),
      "bad/SKILL.md": skillMd("bad", "maya", "bad.yaml"),
      "bad/bad.yaml": "recipes: {",
    });
  });
  afterAll(async () => fs.rm(root, { recursive: true, force: true }));

  it("reads flat dcc-mcp.* metadata and glob lists, sorted", async () => {
    const flat = await skill(root, "flat", "maya");
    expect(flat.dcc).toBe("maya");
    const paths = await getRecipesPaths(flat);
    expect(paths.map((p) => path.relative(flat.dir, p))).toEqual(["a.md", "packs/p1.yaml", "packs/p2.yaml"]);
    const entries = await listRecipeEntries(flat);
    expect(entries.map((e) => e.name)).toEqual(["One", "Two", "r1", "r2"]);
  });

  it("keeps a legacy string output_contract as documentation", async () => {
    const flat = await skill(root, "flat", "maya");
    const r1 = await findRecipeEntry(flat, "r1");
    expect(r1?.format === "yaml" && r1.outputContract).toBe("a label");
    expect(r1?.format === "yaml" && r1.outputValidator).toBeNull();
  });

  it("returns empty results, never throws, for missing and malformed files", async () => {
    const missing = await skill(root, "missing", "maya");
    expect(await getRecipesPath(missing)).toBeNull();
    expect(await listRecipeEntries(missing)).toEqual([]);
    const bad = await skill(root, "bad", "maya");
    expect(await loadRecipePack(path.join(bad.dir, "bad.yaml"), bad)).toEqual([]);
    expect(await loadRecipePack(path.join(root, "does-not-exist.yaml"))).toEqual([]);
    expect(await parseRecipeAnchors(path.join(root, "nothing.md"))).toEqual([]);
    expect(await getRecipeContent(path.join(root, "nothing.md"), "x")).toBeNull();
  });

  it("loads the bundled examples through the same API", async () => {
    const { skills } = await scanSkills({ dccName: "houdini", extraPaths: [EXAMPLE_SKILLS], env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" } });
    expect(skills.map((s) => s.name)).toContain("houdini-fx");
    expect(skills.map((s) => s.name)).not.toContain("maya-modeling");
  });
});
