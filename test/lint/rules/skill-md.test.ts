import { describe, expect, it } from "vitest";
import { goodRecipe, lintTree, pack, skillMd } from "../helpers.js";

describe("SKILL.md", () => {
  it("flags legacy top-level keys with the metadata.dcc-mcp block to write", async () => {
    const legacy = "---\nname: old\ndescription: d\ndcc: maya\nversion: \"1.0\"\ntags: [a, b]\n---\n";
    const { findings } = await lintTree({ "old/SKILL.md": legacy });
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f).toMatchObject({ code: "non_spec_top_level_keys", severity: "error", file: "SKILL.md", path: "old/SKILL.md", line: 4 });
    expect(f.fix).toBe('move dcc, version, tags under metadata.dcc-mcp: metadata: {dcc-mcp: {dcc: maya, version: "1.0", tags: [a, b]}}');
  });

  it("points a missing recipe file at the recipes key", async () => {
    const { findings } = await lintTree({ "s/SKILL.md": skillMd("s", "nope.yaml") });
    expect(findings).toMatchObject([{ code: "recipe_path_missing", severity: "error", line: 7, column: 5, path: "s/SKILL.md" }]);
    expect(findings[0]!.fix).toContain("metadata.dcc-mcp.recipes");
  });

  it("flags an empty glob and an escaping path (flat metadata form)", async () => {
    const flat = '---\nname: s\nmetadata:\n  dcc-mcp.recipes: ["*.yaml", "../x.yaml"]\n---\n';
    const { findings } = await lintTree({ "s/SKILL.md": flat, "x.yaml": pack(goodRecipe()) });
    expect(findings.map((f) => [f.code, f.line])).toEqual([
      ["recipe_glob_empty", 4],
      ["recipe_path_escapes", 4],
    ]);
  });

  it("reports bad frontmatter shapes", async () => {
    const { findings } = await lintTree({
      "a/SKILL.md": "# no frontmatter\n",
      "b/SKILL.md": "---\n- a list\n---\n",
      "c/SKILL.md": "---\nname: c\nmetadata:\n  dcc-mcp:\n    recipes: {a: 1}\n---\n",
    });
    expect(findings.map((f) => [f.path, f.code])).toEqual([
      ["a/SKILL.md", "frontmatter_missing"],
      ["b/SKILL.md", "frontmatter_invalid"],
      ["c/SKILL.md", "invalid_metadata"],
    ]);
    expect(findings.every((f) => f.fix !== "")).toBe(true);
  });

  it("says so when a PATH holds no skills", async () => {
    const { findings } = await lintTree({ "empty/readme.txt": "x" }, ["empty"]);
    expect(findings).toMatchObject([{ code: "no_skills_found", severity: "error", path: "empty" }]);
  });

  it("reports a skill name shadowed by an earlier one", async () => {
    const { findings } = await lintTree({ "a/SKILL.md": skillMd("same", []), "b/SKILL.md": skillMd("same", []) });
    expect(findings).toMatchObject([{ code: "duplicate_skill", path: "b/SKILL.md", severity: "warning" }]);
  });
});
