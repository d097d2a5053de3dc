import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseSkillMarkdown } from "../../src/skills/frontmatter.js";
import { REAL_SKILLS, requireShared } from "../helpers/shared.js";

function ok(text: string, dir = "dir-name") {
  const r = parseSkillMarkdown(text, dir);
  if (!r.ok) throw new Error(`expected ok: ${JSON.stringify(r.diagnostics)}`);
  return r;
}

describe("parseSkillMarkdown", () => {
  it("reads the Agent Skills keys and the body", () => {
    const r = ok(
      "---\nname: s\ndescription: d\nlicense: MIT\ncompatibility: x\nallowed-tools: Bash Read\nmetadata:\n  dcc-mcp:\n    dcc: maya\n    version: 1.2.0\n    tags: [a, b]\n    search-hint: hint\n    recipes: R.md\n    layer: domain\n---\n# Body\n",
    );
    expect(r.skill).toMatchObject({
      name: "s",
      description: "d",
      license: "MIT",
      compatibility: "x",
      allowedTools: "Bash Read",
      dcc: "maya",
      version: "1.2.0",
      tags: ["a", "b"],
      searchHint: "hint",
      recipePatterns: ["R.md"],
      body: "# Body\n",
    });
    expect(r.skill.dccMetadata["layer"]).toBe("domain");
    expect(r.diagnostics).toEqual([]);
  });

  it("an empty or missing name becomes the directory name; dcc defaults to python", () => {
    expect(ok("---\nname: ''\n---\n").skill.name).toBe("dir-name");
    expect(ok("---\ndescription: d\n---\n").skill.name).toBe("dir-name");
    expect(ok("---\n---\n").skill.dcc).toBe("python");
  });

  it("tolerates a UTF-8 BOM and CRLF", () => {
    const r = ok("\uFEFF---\r\nname: crlf\r\nmetadata:\r\n  dcc-mcp:\r\n    dcc: houdini\r\n---\r\nbody\r\n");
    expect(r.skill.name).toBe("crlf");
    expect(r.skill.dcc).toBe("houdini");
    expect(r.skill.body).toBe("body\n");
  });

  it("flat dcc-mcp.<key> keys are read; nested wins when both exist", () => {
    const r = ok(
      "---\nname: s\nmetadata:\n  dcc-mcp.dcc: blender\n  dcc-mcp.recipes: [a.yaml, 'b/*.md']\n  dcc-mcp.tags: [flat]\n  dcc-mcp:\n    tags: [nested]\n---\n",
    );
    expect(r.skill.dcc).toBe("blender");
    expect(r.skill.recipePatterns).toEqual(["a.yaml", "b/*.md"]);
    expect(r.skill.tags).toEqual(["nested"]);
  });

  it("refuses non-spec top-level keys, naming them and the fix, with the line", () => {
    const r = parseSkillMarkdown("---\nname: s\ndcc: maya\ntags: [a]\n---\n", "s");
    expect(r.ok).toBe(false);
    const d = r.diagnostics[0]!;
    expect(d.code).toBe("non_spec_top_level_keys");
    expect(d.message).toContain("dcc, tags");
    expect(d.message).toContain("move under metadata.dcc-mcp");
    expect(d.line).toBe(3);
    expect(d.file).toBe("SKILL.md");
  });

  it.each([
    ["no frontmatter", "# just markdown\n", "frontmatter_missing"],
    ["unterminated frontmatter", "---\nname: s\n", "frontmatter_missing"],
    ["empty text", "", "frontmatter_missing"],
    ["frontmatter is a list", "---\n- a\n- b\n---\n", "frontmatter_invalid"],
    ["frontmatter is a scalar", "---\nhello\n---\n", "frontmatter_invalid"],
    ["bad YAML", "---\nname: [x\n---\n", "frontmatter_invalid"],
    ["duplicate key", "---\nname: a\nname: b\n---\n", "frontmatter_invalid"],
    ["non-string name", "---\nname: {a: 1}\n---\n", "frontmatter_invalid"],
  ])("%s is refused (%s)", (_l, text, code) => {
    const r = parseSkillMarkdown(text, "s");
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]!.code).toBe(code);
  });

  it("reports YAML error lines relative to the file (frontmatter offset +1)", () => {
    const r = parseSkillMarkdown("---\nname: a\nname: b\n---\n", "s");
    expect(r.diagnostics[0]!.line).toBe(3);
  });

  it("recipes of the wrong type is an error diagnostic but the skill stays", () => {
    const r = ok("---\nname: s\nmetadata:\n  dcc-mcp:\n    recipes: 42\n---\n");
    expect(r.skill.recipePatterns).toEqual([]);
    expect(r.diagnostics.map((d) => [d.code, d.severity])).toEqual([["invalid_metadata", "error"]]);
    expect(r.diagnostics[0]!.message).toContain("a number");
    const m = ok("---\nname: s\nmetadata:\n  dcc-mcp:\n    recipes: {a: 1}\n---\n");
    expect(m.diagnostics[0]!.code).toBe("invalid_metadata");
  });

  it("wrong-typed optional metadata is a warning and ignored", () => {
    const r = ok("---\nname: s\nmetadata:\n  dcc-mcp:\n    tags: {a: 1}\n    dcc: [x]\n---\n");
    expect(r.skill.tags).toEqual([]);
    expect(r.skill.dcc).toBe("python");
    expect(r.diagnostics.every((d) => d.severity === "warning" && d.code === "invalid_metadata")).toBe(true);
  });

  it("an alias bomb in frontmatter is refused", () => {
    let y = "---\nname: s\nmetadata:\n  l0: &l0 [a, a, a, a, a, a, a, a, a, a]\n";
    for (let i = 1; i <= 8; i++) y += `  l${i}: &l${i} [${Array(10).fill(`*l${i - 1}`).join(", ")}]\n`;
    const r = parseSkillMarkdown(`${y}---\n`, "s");
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]!.code).toBe("frontmatter_invalid");
  });
});

const realRoot = REAL_SKILLS;
const hasReal = requireShared(realRoot, "real SKILL.md tests");

describe.skipIf(!hasReal)("real SKILL.md files", () => {
  const read = (p: string) => readFile(path.join(realRoot, p), "utf8");

  it("legacy maya-mesh-ops is refused naming dcc, version, tags", async () => {
    const r = parseSkillMarkdown(await read("dcc-mcp-maya@legacy-version/src/dcc_mcp_maya/skills/maya-mesh-ops/SKILL.md"), "maya-mesh-ops");
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]!.code).toBe("non_spec_top_level_keys");
    expect(r.diagnostics[0]!.message).toMatch(/dcc, version, tags/);
  });

  it.each([
    ["dcc-mcp-maya/src/dcc_mcp_maya/skills/maya-scripting/SKILL.md", "maya-scripting", "maya", ["references/RECIPES.md"]],
    ["dcc-mcp-maya/src/dcc_mcp_maya/skills/maya-geometry/SKILL.md", "maya-geometry", "maya", ["references/IO_CHECKLIST.md"]],
    ["dcc-mcp-maya/src/dcc_mcp_maya/skills/maya-mesh-ops/SKILL.md", "maya-mesh-ops", "maya", ["references/RECIPES.yaml"]],
    ["dcc-mcp-core/skills/mesh-ops/SKILL.md", "mesh-ops", "any", ["RECIPES.yaml"]],
    ["dcc-pipeline-publish/skill/pipeline-publish/SKILL.md", "pipeline-publish", "python", ["RECIPES.yaml"]],
    ["dcc-mcp-freecad/src/dcc_mcp_freecad/skills/freecad-fem-review/SKILL.md", "freecad-fem-review", "freecad", ["RECIPES.yaml"]],
  ])("%s loads", async (file, name, dcc, recipes) => {
    const r = parseSkillMarkdown(await read(file), "x");
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    expect(r.skill.name).toBe(name);
    expect(r.skill.dcc).toBe(dcc);
    expect(r.skill.recipePatterns).toEqual(recipes);
    expect(r.skill.tags.length).toBeGreaterThan(0);
    expect(r.skill.searchHint).toBeTruthy();
    expect(r.diagnostics).toEqual([]);
  });

  it("keeps extra dcc-mcp keys for display (recipes_undo, examplePrompts)", async () => {
    const p = parseSkillMarkdown(await read("dcc-pipeline-publish/skill/pipeline-publish/SKILL.md"), "x");
    const f = parseSkillMarkdown(await read("dcc-mcp-freecad/src/dcc_mcp_freecad/skills/freecad-fem-review/SKILL.md"), "x");
    if (!p.ok || !f.ok) throw new Error("expected ok");
    expect(p.skill.dccMetadata["recipes_undo"]).toEqual({ scene_qa: "single-step" });
    expect(p.skill.version).toBe("0.2.0");
    expect(Array.isArray(f.skill.dccMetadata["examplePrompts"])).toBe(true);
  });
});

const realSkills = REAL_SKILLS;
const femSkillMd = path.join(realSkills, "dcc-mcp-freecad@e9a1209a/src/dcc_mcp_freecad/skills/freecad-fem-review/SKILL.md");
const hasFem = requireShared(femSkillMd, "real SKILL.md metadata tests");

describe("allowed_tools alias (dcc-mcp-core accepts the underscore spelling)", () => {
  it("no longer refuses the skill with non_spec_top_level_keys, and reads the value", () => {
    const r = ok("---\nname: s\nallowed_tools: Bash Read\n---\n");
    expect(r.skill.allowedTools).toBe("Bash Read");
    expect(r.diagnostics).toEqual([]);
    expect(ok("---\nname: s\nallowed_tools: [python, Read]\n---\n").skill.allowedTools).toEqual(["python", "Read"]);
  });

  it("the hyphenated key wins when both are written; a wrong type still warns", () => {
    expect(ok("---\nname: s\nallowed-tools: A\nallowed_tools: B\n---\n").skill.allowedTools).toBe("A");
    const r = ok("---\nname: s\nallowed_tools: {a: 1}\n---\n");
    expect(r.skill.allowedTools).toBeUndefined();
    expect(r.diagnostics.map((d) => d.code)).toEqual(["invalid_metadata"]);
  });

  it.skipIf(!hasFem)("a real SKILL.md rewritten with allowed_tools loads as the original does", async () => {
    const text = await readFile(femSkillMd, "utf8");
    const original = ok(text, "freecad-fem-review");
    const alias = ok(text.replace("allowed-tools:", "allowed_tools:"), "freecad-fem-review");
    expect(alias.skill).toEqual(original.skill);
  });
});

describe("newer metadata.dcc-mcp keys (dcc-mcp-core's loader)", () => {
  it.skipIf(!hasFem)("reads layer, depends and example prompts of freecad-fem-review", async () => {
    const r = ok(await readFile(femSkillMd, "utf8"), "freecad-fem-review");
    expect(r.skill.layer).toBe("domain");
    expect(r.skill.depends).toEqual(["freecad-analysis"]);
    expect(r.skill.examplePrompts).toHaveLength(4);
    // A prompt is one sentence, commas and all.
    expect(r.skill.examplePrompts![0]).toBe("This bracket was solved at 100 N — is it strong enough, or does it need to be thicker?");
    expect(r.diagnostics).toEqual([]);
  });

  it("splits comma-separated aliases, depends and products; takes the spellings core reads", () => {
    const r = ok(
      "---\nname: s\nmetadata:\n  dcc-mcp:\n    layer: Thin-Harness\n    search_aliases: 'smoke, pyro'\n    example_prompts: Make it explode, big\n    depends: a-skill, b-skill\n    products: houdini, maya\n---\n",
    );
    expect(r.skill).toMatchObject({
      layer: "thin-harness",
      searchAliases: ["smoke", "pyro"],
      examplePrompts: ["Make it explode, big"],
      depends: ["a-skill", "b-skill"],
      products: ["houdini", "maya"],
    });
    expect(ok("---\nname: s\nmetadata:\n  dcc-mcp:\n    aliases: [x]\n    examplePrompts: [p1, p2]\n---\n").skill).toMatchObject({ searchAliases: ["x"], examplePrompts: ["p1", "p2"] });
  });

  it("leaves the fields out when unset, and warns on a wrong type", () => {
    const plain = ok("---\nname: s\n---\n").skill;
    for (const k of ["layer", "searchAliases", "examplePrompts", "depends", "products"]) expect(plain).not.toHaveProperty(k);
    const r = ok("---\nname: s\nmetadata:\n  dcc-mcp:\n    depends: {a: 1}\n    layer: [x]\n---\n");
    expect(r.skill).not.toHaveProperty("depends");
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      "metadata.dcc-mcp.layer must be a string; ignored",
      "metadata.dcc-mcp.depends must be a list of strings; ignored",
    ]);
  });
});
