import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRecipeFile, loadSkillRecipes, markdownDescription } from "../../../src/recipes/packs/loader.js";
import type { MarkdownRecipe, Recipe, YamlRecipe } from "../../../src/recipes/types.js";
import { loadSkill } from "../../../src/skills/discover.js";
import type { SkillInfo } from "../../../src/skills/types.js";
import { REAL_SKILLS, requireShared } from "../../helpers/shared.js";

const realRoot = REAL_SKILLS;
const hasReal = requireShared(realRoot, "real recipe loading tests");

async function skillAt(dir: string): Promise<SkillInfo> {
  const r = await loadSkill(dir, path.dirname(dir), 0);
  if (r.skill === null) throw new Error(JSON.stringify(r.diagnostics));
  return r.skill;
}

const yamlOf = (rs: readonly Recipe[]) => rs.filter((r): r is YamlRecipe => r.format === "yaml");
const mdOf = (rs: readonly Recipe[]) => rs.filter((r): r is MarkdownRecipe => r.format === "markdown");

describe.skipIf(!hasReal)("real skill packs", () => {
  const maya = path.join(realRoot, "dcc-mcp-maya/src/dcc_mcp_maya/skills");

  it("dcc-mcp-core mesh-ops: 19 YAML recipes, pack-level keys kept", async () => {
    const skill = await skillAt(path.join(realRoot, "dcc-mcp-core/skills/mesh-ops"));
    const { recipes, diagnostics, files } = await loadSkillRecipes(skill);
    expect(files.map((f) => path.basename(f))).toEqual(["RECIPES.yaml"]);
    const ys = yamlOf(recipes);
    expect(ys).toHaveLength(19);
    expect(ys[0]!.recipeId).toBe("mesh-ops/create_primitive");
    expect(ys.at(-1)!.name).toBe("get_poly_count");
    expect(ys.every((r) => r.dcc === "any" && r.file === "RECIPES.yaml" && r.visibility === "public")).toBe(true);
    expect(ys[0]!.line).toBe(171);
    expect(Object.keys(ys[0]!.pack).sort()).toEqual(["adapter_recipe_aliases", "pack", "tool_routing"]);
    expect((ys[0]!.pack["tool_routing"] as { adapters: string[] }).adapters).toContain("maya");
    expect(ys[0]!.toolsetProfiles).toEqual(["mesh-ops"]);
    expect(ys[0]!.tags).toContain("modeling");
    expect(ys[0]!.searchHint).toMatch(/modeling recipe/);
    expect(ys[0]!.description).toBe("Create a named mesh primitive with bounded transform parameters.");
    expect(typeof ys[0]!.outputContract).toBe("object");
    expect(ys.every((r) => r.outputValidator !== null)).toBe(true);
    expect(diagnostics).toEqual([]);
  });

  it("maya-mesh-ops: 4 YAML recipes with unquoted placeholders", async () => {
    const { recipes } = await loadSkillRecipes(await skillAt(path.join(maya, "maya-mesh-ops")));
    const ys = yamlOf(recipes);
    expect(ys.map((r) => r.name)).toEqual(["loft_hull_from_sections", "mirror_assembly", "radial_array", "auto_uv_for_export"]);
    expect(ys[0]!.file).toBe("references/RECIPES.yaml");
    expect((ys[0]!.steps[0] as { arguments: Record<string, unknown> }).arguments["sections"]).toBe("${sections}");
    expect(ys.every((r) => r.dcc === "maya")).toBe(true);
  });

  it("maya-scripting RECIPES.md: Markdown anchors inherit the skill dcc", async () => {
    const { recipes, diagnostics } = await loadSkillRecipes(await skillAt(path.join(maya, "maya-scripting")));
    const ms = mdOf(recipes);
    expect(ms.length).toBeGreaterThan(8);
    expect(ms[0]).toMatchObject({ recipeId: "maya-scripting/primitives", dcc: "maya", file: "references/RECIPES.md", line: 14 });
    expect(ms[0]!.content.startsWith("## primitives\n")).toBe(true);
    expect(diagnostics).toEqual([]);
  });

  it("maya-geometry IO_CHECKLIST.md: anchors with spaces, descriptions from the first prose line", async () => {
    const { recipes } = await loadSkillRecipes(await skillAt(path.join(maya, "maya-geometry")));
    expect(recipes.map((r) => r.recipeId)).toEqual([
      "maya-geometry/Before export (FBX / OBJ)",
      "maya-geometry/Before import (FBX)",
      "maya-geometry/Gateway agents",
    ]);
    expect(recipes[0]!.description).toMatch(/^1\. Prefer an \*\*absolute\*\* destination path/);
    expect(recipes.every((r) => [...r.description].length <= 200)).toBe(true);
  });

  it("freecad fem-review: hyphenated name, steps with inputs, toolset_profiles", async () => {
    const { recipes } = await loadSkillRecipes(await skillAt(path.join(realRoot, "dcc-mcp-freecad/src/dcc_mcp_freecad/skills/freecad-fem-review")));
    const [r] = yamlOf(recipes);
    expect(r).toMatchObject({ recipeId: "freecad-fem-review/fem-review", dcc: "freecad", toolsetProfiles: ["freecad-analysis"] });
    expect(r!.steps).toHaveLength(3);
    expect((r!.steps[0] as { inputs: Record<string, unknown> }).inputs["document_path"]).toBe("${fem_result.document_path}");
  });

  it("pipeline-publish scene_qa: extra entry keys kept", async () => {
    const { recipes } = await loadSkillRecipes(await skillAt(path.join(realRoot, "dcc-pipeline-publish/skill/pipeline-publish")));
    const [r] = yamlOf(recipes);
    expect(r!.recipeId).toBe("pipeline-publish/scene_qa");
    expect(r!.dcc).toBe("any");
    for (const k of ["undo", "undo_steps", "recovery", "examplePrompts", "side_effects"]) expect(r!.entry).toHaveProperty(k);
  });

  it("every real schema compiles (no schema_fails_closed)", async () => {
    const dirs = [
      path.join(realRoot, "dcc-mcp-core/skills/mesh-ops"),
      path.join(maya, "maya-mesh-ops"),
      path.join(realRoot, "dcc-mcp-freecad/src/dcc_mcp_freecad/skills/freecad-fem-review"),
      path.join(realRoot, "dcc-pipeline-publish/skill/pipeline-publish"),
    ];
    for (const d of dirs) {
      const { recipes, diagnostics } = await loadSkillRecipes(await skillAt(d));
      expect(diagnostics).toEqual([]);
      for (const r of yamlOf(recipes)) {
        expect(r.inputValidator.ok).toBe(true);
        expect(r.outputValidator?.ok).toBe(true);
      }
    }
  });

  it("returned recipes are deeply frozen", async () => {
    const { recipes } = await loadSkillRecipes(await skillAt(path.join(maya, "maya-mesh-ops")));
    const r = yamlOf(recipes)[0]!;
    expect(() => {
      (r as { name: string }).name = "x";
    }).toThrow(TypeError);
    expect(() => {
      (r.steps as unknown[]).push({});
    }).toThrow(TypeError);
    expect(() => {
      ((r.steps[0] as { arguments: Record<string, unknown> }).arguments)["name"] = "evil";
    }).toThrow(TypeError);
    expect(() => {
      (r.pack as Record<string, unknown>)["x"] = 1;
    }).toThrow(TypeError);
    expect(Object.isFrozen(r.inputsSchema)).toBe(true);
  });
});

describe("hostile recipe files", () => {
  let tmp = "";
  let dir = "";
  let skill: SkillInfo;
  let result: Awaited<ReturnType<typeof loadSkillRecipes>>;
  const MiB = 1024 * 1024;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "hostile-recipes-"));
    dir = path.join(tmp, "hostile");
    await mkdir(path.join(dir, "r"), { recursive: true });
    const w = (rel: string, data: string | Buffer) => writeFile(path.join(dir, rel), data);
    let bomb = "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    for (let i = 1; i <= 9; i++) bomb += `l${i}: &l${i} [${Array(10).fill(`*l${i - 1}`).join(", ")}]\n`;
    bomb += "recipes:\n  - name: boom\n    steps: *l9\n";
    const patterns = [
      "r/a-good.yaml",
      "r/b-dup-in-file.yaml",
      "r/c-dup-across.yaml",
      "r/d-bad.yaml",
      "r/e-bomb.yaml",
      "r/f-big.yaml",
      "r/g-exact.md",
      "r/h-fences.md",
      "r/i-latin1.md",
      "r/j-empty.md",
      "r/k-empty.yaml",
      "r/l-not-pack.yml",
      "r/m-fails-closed.yaml",
      "r/n-dup-anchor.md",
      "escape.md",
      "../outside.md",
      path.join(tmp, "outside.md"),
      "r/missing.md",
      "r/*.nothing",
    ];
    await w(
      "SKILL.md",
      `\uFEFF---\r\nname: hostile\r\nmetadata:\r\n  dcc-mcp:\r\n    dcc: maya\r\n    tags: [t]\r\n    recipes:\r\n${patterns
        .map((p) => `      - ${JSON.stringify(p)}\r\n`)
        .join("")}---\r\n`,
    );
    await w(
      "r/a-good.yaml",
      "pack: {name: p}\nrecipes:\n  - name: good\n    description: '  Good one.  '\n    toolset_profile: solo\n    steps:\n      - tool: t\n        arguments: {x: '${x}'}\n    output_contract: a legacy label\n  - name: houdini_one\n    dcc: Houdini\n",
    );
    await w("r/b-dup-in-file.yaml", "recipes:\n  - name: twin\n    description: first\n  - name: twin\n    description: second\n");
    await w("r/c-dup-across.yaml", "recipes:\n  - name: good\n    description: impostor\n");
    await w("r/d-bad.yaml", "recipes:\n  - name: [oops\n  bad: : :\n");
    await w("r/e-bomb.yaml", bomb);
    await w("r/f-big.yaml", "recipes: []\n#" + "x".repeat(MiB - 13) + "\n");
    const head = "## exact\n";
    await w("r/g-exact.md", head + "y".repeat(MiB - head.length));
    await w("r/h-fences.md", "## outer\n```\n## hidden\n```\n~~~~\n## hidden2\n~~~\n~~~~~\n## visible\ntext\n````\n## unclosed-hidden\n");
    await w("r/i-latin1.md", Buffer.from([0x23, 0x23, 0x20, 0x63, 0x61, 0x66, 0xe9, 0x0a]));
    await w("r/j-empty.md", "");
    await w("r/k-empty.yaml", "");
    await w("r/l-not-pack.yml", "## looks like markdown\n- but: it is a yaml list\n");
    await w("r/m-fails-closed.yaml", "recipes:\n  - name: closed\n    inputs_schema: {$dynamicRef: '#meta'}\n");
    await w("r/n-dup-anchor.md", "## twin-anchor\none\n## twin-anchor\ntwo\n");
    await writeFile(path.join(tmp, "outside.md"), "## secret\n");
    await symlink(path.join(tmp, "outside.md"), path.join(dir, "escape.md"));
    skill = await skillAt(dir);
    result = await loadSkillRecipes(skill);
  });
  afterAll(async () => rm(tmp, { recursive: true, force: true }));

  const codesFor = (file: string) => result.diagnostics.filter((d) => d.file === file).map((d) => d.code);

  it("no diagnostic message contains the temp dir", () => {
    expect(result.diagnostics.length).toBeGreaterThan(10);
    for (const d of result.diagnostics) {
      expect(d.message).not.toContain(tmp);
      expect(d.file ?? "").not.toContain(tmp);
      expect(d.skill).toBe("hostile");
    }
  });

  it("loads the good recipes and only those", () => {
    expect(result.recipes.map((r) => r.recipeId)).toEqual([
      "hostile/good",
      "hostile/houdini_one",
      "hostile/twin",
      "hostile/exact",
      "hostile/outer",
      "hostile/visible",
      "hostile/closed",
      "hostile/twin-anchor",
    ]);
    const good = result.recipes[0] as YamlRecipe;
    expect(good).toMatchObject({ dcc: "maya", description: "Good one.", toolsetProfiles: ["solo"], outputContract: "a legacy label", tags: ["t"] });
    expect(good.outputValidator).toBeNull();
    expect(good.inputsSchema).toEqual({});
    expect(result.recipes[1]!.dcc).toBe("houdini");
    expect((result.recipes[2] as YamlRecipe).description).toBe("first");
  });

  it("duplicate names: first wins, warnings for YAML and Markdown", () => {
    expect(codesFor("r/b-dup-in-file.yaml")).toEqual(["duplicate_recipe"]);
    expect(codesFor("r/c-dup-across.yaml")).toEqual(["duplicate_recipe"]);
    expect(codesFor("r/n-dup-anchor.md")).toEqual(["duplicate_anchor"]);
    const across = result.diagnostics.find((d) => d.file === "r/c-dup-across.yaml" && d.code === "duplicate_recipe")!;
    expect(across.severity).toBe("warning");
    expect(across.message).toContain("r/a-good.yaml:3");
  });

  it("bad YAML, alias bombs, oversized, non-UTF-8, empty and non-pack YAML are errors", () => {
    expect(codesFor("r/d-bad.yaml")[0]).toBe("yaml_parse_error");
    expect(codesFor("r/e-bomb.yaml")).toEqual(["yaml_alias_limit"]);
    expect(codesFor("r/f-big.yaml")).toEqual(["file_too_large"]);
    expect(codesFor("r/g-exact.md")).toEqual([]);
    expect(codesFor("r/i-latin1.md")).toEqual(["not_utf8"]);
    expect(codesFor("r/j-empty.md")).toEqual([]);
    expect(codesFor("r/k-empty.yaml")).toEqual(["pack_missing_recipes"]);
    expect(codesFor("r/l-not-pack.yml")).toEqual(["pack_missing_recipes"]);
  });

  it("a schema that fails closed keeps the recipe with the failed result", () => {
    expect(codesFor("r/m-fails-closed.yaml")).toEqual(["schema_fails_closed"]);
    const closed = result.recipes.find((r) => r.name === "closed") as YamlRecipe;
    expect(closed.inputValidator.ok).toBe(false);
    const d = result.diagnostics.find((x) => x.code === "schema_fails_closed" && x.file === "r/m-fails-closed.yaml")!;
    expect(d.severity).toBe("error");
    expect(d.line).toBe(2);
    if (!closed.inputValidator.ok) expect(d.message).toContain(closed.inputValidator.error.code);
  });

  it("fenced ## are not anchors; an unclosed fence runs to the end", () => {
    const outer = result.recipes.find((r) => r.name === "outer") as MarkdownRecipe;
    // ~~~~ is not closed by ~~~ but is by ~~~~~, so "visible" is a real anchor.
    expect(outer.content).toBe("## outer\n```\n## hidden\n```\n~~~~\n## hidden2\n~~~\n~~~~~");
    const visible = result.recipes.find((r) => r.name === "visible") as MarkdownRecipe;
    expect(visible.content.endsWith("````\n## unclosed-hidden")).toBe(true);
    expect(visible.line).toBe(9);
    expect(result.recipes.some((r) => /hidden/.test(r.name))).toBe(false);
  });

  it("escaping, ../, absolute, missing and empty-glob paths are reported", () => {
    const codes = result.diagnostics.filter((d) => d.file === "SKILL.md").map((d) => d.code);
    expect(codes.filter((c) => c === "recipe_path_escapes")).toHaveLength(3);
    expect(codes).toContain("recipe_path_missing");
    expect(codes).toContain("recipe_glob_empty");
    expect(result.files.some((f) => f.endsWith("escape.md"))).toBe(false);
  });

  it("loadRecipeFile reads one file; a vanished one is a diagnostic", async () => {
    const one = await loadRecipeFile(skill, path.join(dir, "r/b-dup-in-file.yaml"));
    expect(one.recipes.map((r) => r.name)).toEqual(["twin"]);
    expect(one.diagnostics.map((d) => d.code)).toEqual(["duplicate_recipe"]);
    const gone = await loadRecipeFile(skill, path.join(dir, "r/gone.md"));
    expect(gone.diagnostics.map((d) => d.code)).toEqual(["recipe_path_missing"]);
    expect(gone.diagnostics[0]!.message).not.toContain(tmp);
  });

  it("concurrent loads of one skill agree", async () => {
    const runs = await Promise.all(Array.from({ length: 4 }, () => loadSkillRecipes(skill)));
    for (const r of runs) {
      expect(r.recipes.map((x) => x.recipeId)).toEqual(result.recipes.map((x) => x.recipeId));
      expect(r.diagnostics).toEqual(result.diagnostics);
    }
  });
});

describe("markdownDescription", () => {
  it("skips headings and fenced code, clips long lines", () => {
    expect(markdownDescription("## a\n\n```\ncode\n```\n### sub\n  First prose.  \n\nsecond")).toBe("First prose.");
    expect(markdownDescription("## a\n```py\nonly code\n```")).toBe("");
    const long = markdownDescription(`## a\n${"w".repeat(500)}`);
    expect([...long].length).toBe(200);
    expect(long.endsWith("…")).toBe(true);
  });

  it("clips by code points, not code units, when the text holds characters beyond the BMP", () => {
    // 150 astral characters are 300 code units but under the limit in code points: kept whole.
    const astral = "🦊".repeat(150);
    expect(markdownDescription(`## a\n${astral}`)).toBe(astral);
    const long = markdownDescription(`## a\n${"🦊".repeat(300)}`);
    expect([...long].length).toBe(200);
    expect(long).toBe(`${"🦊".repeat(199)}…`);
    // A cut never splits a surrogate pair.
    expect(markdownDescription(`## a\n${"x".repeat(198)}🦊🦊🦊`)).toBe(`${"x".repeat(198)}🦊…`);
  });

  it("keeps a wrapped first paragraph whole instead of cutting it at the line break", () => {
    expect(markdownDescription("## Subdivide\nRaise the resolution and even out\nthe new vertices.\n\nSecond paragraph.")).toBe(
      "Raise the resolution and even out the new vertices.",
    );
    expect(markdownDescription("## a\nfirst line\n```\ncode\n```\nafter")).toBe("first line");
  });

  it("never takes a thematic break (---, ***, ___) for the description", () => {
    expect(markdownDescription("## a\n---\nReal prose.")).toBe("Real prose.");
    expect(markdownDescription("## a\n* * *\n\nReal prose.")).toBe("Real prose.");
    expect(markdownDescription("## a\nprose\n___\nmore")).toBe("prose");
  });
});

describe("schema validators kept as verdicts (memory at 20,000 recipes)", () => {
  it("validates the same way on every call, however often it is rebuilt", async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), "lazy-validators-"));
    try {
      const dir = path.join(tmp, "lazy");
      await mkdir(dir, { recursive: true });
      await writeFile(
        path.join(dir, "SKILL.md"),
        "---\nname: lazy\nmetadata:\n  dcc-mcp:\n    recipes: p.yaml\n---\n",
      );
      await writeFile(
        path.join(dir, "p.yaml"),
        "recipes:\n  - name: r\n    inputs_schema: { type: object, required: [a], properties: { a: { type: integer } } }\n    output_contract: { type: object, required: [changed], properties: { changed: { const: true } } }\n",
      );
      const loaded = await loadSkill(dir, tmp, 0);
      const { recipes, diagnostics } = await loadSkillRecipes(loaded.skill!);
      expect(diagnostics).toEqual([]);
      const recipe = recipes[0] as YamlRecipe;
      expect(recipe.inputValidator.ok).toBe(true);
      if (!recipe.inputValidator.ok || recipe.outputValidator === null || !recipe.outputValidator.ok) throw new Error("expected validators");
      for (let i = 0; i < 50; i += 1) {
        expect(recipe.inputValidator.validator.validate({ a: 1 }).valid).toBe(true);
        expect(recipe.inputValidator.validator.validate({ a: "x" }).valid).toBe(false);
        expect(recipe.outputValidator.validator.validate({ changed: false }).valid).toBe(false);
      }
      expect(Object.isFrozen(recipe.inputValidator)).toBe(true);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe("a Draft-07 $schema the validator accepts is served with a schema_draft07_accepted warning", () => {
  let tmp = "";
  let result: Awaited<ReturnType<typeof loadSkillRecipes>>;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "draft07-recipes-"));
    const dir = path.join(tmp, "legacy");
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "SKILL.md"), "---\nname: legacy\nmetadata:\n  dcc-mcp:\n    dcc: maya\n    recipes: [r.yaml]\n---\n");
    const draft07 = "http://json-schema.org/draft-07/schema#";
    await writeFile(
      path.join(dir, "r.yaml"),
      [
        "recipes:",
        "  - name: accepted",
        `    inputs_schema: {$schema: '${draft07}', type: object, properties: {n: {type: integer}}, required: [n]}`,
        "  - name: array_items",
        `    inputs_schema: {$schema: '${draft07}', type: array, items: [{type: string}]}`,
        "  - name: modern",
        "    inputs_schema: {$schema: 'https://json-schema.org/draft/2020-12/schema', type: object}",
        "",
      ].join("\n"),
    );
    result = await loadSkillRecipes(await skillAt(dir));
  });
  afterAll(async () => rm(tmp, { recursive: true, force: true }));

  it("warns once for the accepted schema, at its entry, and validates it as 2020-12", () => {
    const warnings = result.diagnostics.filter((d) => d.code === "schema_draft07_accepted");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ severity: "warning", file: "r.yaml", line: 2 });
    expect(warnings[0]!.message).toContain('recipe "accepted" inputs_schema');
    const accepted = result.recipes.find((r) => r.name === "accepted") as YamlRecipe;
    expect(accepted.inputValidator.ok).toBe(true);
    if (accepted.inputValidator.ok) {
      expect(accepted.inputValidator.validator.validate({ n: 3 }).valid).toBe(true);
      expect(accepted.inputValidator.validator.validate({ n: "3" }).valid).toBe(false);
    }
  });

  it("refuses array-form items under Draft-07 (fails closed, no dialect warning) and says nothing of a 2020-12 schema", () => {
    const refused = result.diagnostics.filter((d) => d.code === "schema_fails_closed");
    expect(refused).toHaveLength(1);
    expect(refused[0]!.message).toContain('recipe "array_items"');
    expect(result.diagnostics.filter((d) => d.message.includes('"modern"'))).toEqual([]);
  });
});
