import { describe, expect, it } from "vitest";
import { entryKeyRule } from "../../../src/lint/rules/entry-keys.js";
import type { YamlRecipe } from "../../../src/recipes/types.js";
import { codes, goodRecipe, lintPack, withCode } from "../helpers.js";

const asRecipe = (entry: Record<string, unknown>): YamlRecipe => ({ name: String(entry["name"]), entry }) as unknown as YamlRecipe;

describe("entry_key_typo", () => {
  it("passes a pack whose keys are all known or known extensions", async () => {
    const r = { ...goodRecipe(), undo: "none", undo_steps: ["x"], recovery: [], examplePrompts: ["a"], side_effects: { modifies: true }, toolset_profile: "p" };
    expect(await lintPack(r)).toEqual([]);
  });

  it("flags near misses of known keys with the key's own position and the rename", async () => {
    const { inputs_schema, ...rest } = goodRecipe();
    const findings = await lintPack({ ...rest, input_schema: inputs_schema });
    const hit = withCode(findings, "entry_key_typo");
    expect(hit).toHaveLength(1);
    expect(hit[0]!.severity).toBe("error");
    expect(hit[0]!.fix).toBe('rename "input_schema" to "inputs_schema"');
    expect(hit[0]!.line).toBeGreaterThan(1);
    expect(hit[0]!.column).toBe(5);
    // With the schema under the wrong key the placeholders lose their declarations too.
    expect(codes(findings)).toContain("placeholder_undeclared");
  });

  it.each([
    ["outputContract", "output_contract"],
    ["Output-Contract", "output_contract"],
    ["step", "steps"],
    ["descripton", "description"],
    ["toolset_profils", "toolset_profiles"],
    ["dcs", "dcc"],
  ])("%s reads as %s", (key, known) => {
    expect(entryKeyRule(asRecipe({ name: "r", [key]: 1 }))[0]?.fix).toBe(`rename "${key}" to "${known}"`);
  });

  it.each(["undo", "undo_steps", "recovery", "examplePrompts", "side_effects", "x-steps", "notes", "id", "tool_routing", "category", "owner"])(
    "leaves %s alone",
    (key) => {
      expect(entryKeyRule(asRecipe({ name: "r", [key]: 1 }))).toEqual([]);
    },
  );
});
