import { describe, expect, it } from "vitest";
import { goodRecipe, lintTree, pack, skillMd, withCode } from "../helpers.js";

describe("pack loading diagnostics", () => {
  it("reports a parse error with its line, and nothing else from that file", async () => {
    const { findings } = await lintTree({ "s/SKILL.md": skillMd("s"), "s/RECIPES.yaml": "recipes:\n  - name: a\n    steps: [\n" });
    expect(findings.map((f) => f.code)).toEqual(["yaml_parse_error"]);
    expect(findings[0]!.line).toBeDefined();
  });

  it("reports duplicate keys and a pack without recipes:", async () => {
    const { findings } = await lintTree({
      "s/SKILL.md": skillMd("s", ["a.yaml", "b.yaml"]),
      "s/a.yaml": "recipes: []\nrecipes: []\n",
      "s/b.yaml": "recipe:\n  - name: x\n",
    });
    expect(findings.map((f) => [f.file, f.code])).toEqual([
      ["a.yaml", "yaml_duplicate_key"],
      ["b.yaml", "pack_missing_recipes"],
    ]);
  });

  it("reports a repeated name within a skill", async () => {
    const { findings } = await lintTree({ "s/SKILL.md": skillMd("s"), "s/RECIPES.yaml": pack(goodRecipe(), goodRecipe()) });
    expect(findings.map((f) => f.code)).toEqual(["duplicate_recipe"]);
  });

  it("reports a schema that fails closed, with the reason, at the offending keyword", async () => {
    const r = goodRecipe();
    (r["inputs_schema"] as Record<string, unknown>)["$id"] = "https://example.com/s";
    const { findings } = await lintTree({ "s/SKILL.md": skillMd("s"), "s/RECIPES.yaml": pack(r) });
    const hit = withCode(findings, "schema_fails_closed");
    expect(hit).toHaveLength(1);
    expect(hit[0]!.message).toContain("inputs_schema fails closed");
    expect(hit[0]!.line).toBeGreaterThan(2);
  });
});

describe("duplicate_recipe_across_skills", () => {
  const tree = (dccA: string, dccB: string) => ({
    "a/SKILL.md": skillMd("a"),
    "a/RECIPES.yaml": pack({ ...goodRecipe(), dcc: dccA }),
    "b/SKILL.md": skillMd("b"),
    "b/RECIPES.yaml": pack({ ...goodRecipe(), dcc: dccB }),
  });

  it("warns when two skills publish one name to the same DCC", async () => {
    const { findings } = await lintTree(tree("maya", "maya"));
    expect(findings).toMatchObject([{ code: "duplicate_recipe_across_skills", path: "b/RECIPES.yaml", severity: "warning", line: 2 }]);
    expect(findings[0]!.message).toContain('skill "a"');
  });

  it("is quiet for different DCCs and for the dcc: any + adapter-local override", async () => {
    expect((await lintTree(tree("maya", "houdini"))).findings).toEqual([]);
    expect((await lintTree(tree("any", "maya"))).findings).toEqual([]);
  });
});
