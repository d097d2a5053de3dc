import { describe, expect, it } from "vitest";
import { validateRecipeInputs } from "../../../src/jsonschema/index.js";
import { parsePack } from "../../../src/recipes/packs/parsed-pack.js";
import type { YamlRecipe } from "../../../src/recipes/types.js";
import { toDocument, yamlEntryText } from "../../../src/recipes/search/document.js";
import { yamlRecipes } from "../../../src/recipes/packs/yaml-recipe.js";
import { wholeEntry } from "../../../src/recipes/api/entry-view.js";
import { sortKeys } from "../../../src/util/stable-json.js";
import type { SkillInfo } from "../../../src/skills/types.js";

const skill = {
  name: "modeling",
  dcc: "maya",
  tags: ["mesh"],
  searchHint: "polygon work",
} as unknown as SkillInfo; // only the fields yamlRecipes reads

const PACK = `pack: { name: demo }
tool_routing: { maya: direct }
recipes:
  - name: bevel
    dcc: Houdini
    description: "  Bevel edges  "
    toolset_profiles: modeling
    undo: [{ tool: undo }]
    inputs_schema: { type: object, required: [target], properties: { target: { type: string } } }
    steps:
      - tool: bevel
        arguments: { target: "\${target}" }
    output_contract: { type: object, required: [changed] }
  - name: bare
    steps: not a list
`;

function load(): YamlRecipe[] {
  return yamlRecipes(skill, "RECIPES.yaml", parsePack(PACK, "RECIPES.yaml")).recipes;
}

describe("yamlRecipes", () => {
  it("serves summary fields directly and the entry, schemas, steps and pack from the body", () => {
    const [bevel, bare] = load();
    expect(bevel).toMatchObject({
      recipeId: "modeling/bevel",
      dcc: "houdini",
      description: "Bevel edges",
      tags: ["mesh"],
      searchHint: "polygon work",
      line: 4,
      toolsetProfiles: ["modeling"],
    });
    expect(bevel!.entry["undo"]).toEqual([{ tool: "undo" }]);
    expect(bevel!.steps).toEqual([{ tool: "bevel", arguments: { target: "${target}" } }]);
    expect(bevel!.inputsSchema).toMatchObject({ required: ["target"] });
    expect(bevel!.outputContract).toEqual({ type: "object", required: ["changed"] });
    expect(bevel!.pack).toEqual({ pack: { name: "demo" }, tool_routing: { maya: "direct" } });
    expect(bare!.dcc).toBe("maya");
    expect(bare!.steps).toEqual([]);
    expect(bare!.inputsSchema).toEqual({});
    expect(bare!.outputValidator).toBeNull();
  });

  it("keeps everything it hands out frozen, recipes included", () => {
    const [bevel] = load();
    expect(Object.isFrozen(bevel)).toBe(true);
    expect(Object.isFrozen(bevel!.entry)).toBe(true);
    expect(Object.isFrozen((bevel!.steps[0] as { arguments: object }).arguments)).toBe(true);
    expect(Object.isFrozen(bevel!.pack)).toBe(true);
    expect(() => {
      (bevel!.entry as Record<string, unknown>)["name"] = "other";
    }).toThrow(TypeError);
    expect(bevel!.entry["name"]).toBe("bevel");
  });

  it("shows the same entry to every reader while it is in use", () => {
    const [bevel] = load();
    const first = bevel!.entry;
    expect(bevel!.entry).toBe(first);
    expect(bevel!.steps).toBe(first["steps"]);
  });

  it("is seen whole by JSON, as a plain recipe would be", () => {
    const [bevel] = load();
    const json = JSON.parse(JSON.stringify(bevel)) as Record<string, unknown>;
    expect(json["entry"]).toMatchObject({ name: "bevel", undo: [{ tool: "undo" }] });
    expect(json["steps"]).toHaveLength(1);
    expect(json["pack"]).toEqual({ pack: { name: "demo" }, tool_routing: { maya: "direct" } });
    expect(json["inputValidator"]).toEqual({ ok: true, validator: {} });
  });

  it("validates with the schemas it reads lazily, and reports a steps value that is not a list", () => {
    const [bevel] = load();
    const v = bevel!.inputValidator;
    expect(v.ok && v.validator.validate({ target: "pCube1" }).valid).toBe(true);
    expect(v.ok && v.validator.validate({}).valid).toBe(false);
    const o = bevel!.outputValidator;
    expect(o?.ok && o.validator.validate({ changed: true }).valid).toBe(true);
    const { diagnostics } = yamlRecipes(skill, "RECIPES.yaml", parsePack(PACK, "RECIPES.yaml"));
    expect(diagnostics.map((d) => [d.code, d.skill, d.line])).toEqual([["recipe_invalid_entry", "modeling", 14]]);
  });

  it("carries the search text indexing would derive from the entry, without reading the entry", () => {
    for (const recipe of load()) expect(recipe.indexText).toEqual(yamlEntryText(recipe.entry));
    const [bevel] = load();
    const plain = { ...JSON.parse(JSON.stringify(bevel)), format: "yaml" } as YamlRecipe;
    expect(toDocument(bevel!)).toEqual(toDocument(plain));
    expect(toDocument(bevel!).steps).toContain("target");
  });

  it("regression: validateRecipeInputs reads the schema of a loaded recipe (it once found no own inputsSchema and accepted anything)", () => {
    const [bevel] = load();
    expect(validateRecipeInputs(bevel!, { target: 5 })).toEqual(["$.target: Expected type string, got integer"]);
    expect(validateRecipeInputs(bevel!, { target: "pCube1" })).toEqual([]);
  });

  it("regression: a skill without a search hint gives its recipes no searchHint key at all", () => {
    const bare = { ...skill, searchHint: undefined } as unknown as SkillInfo;
    const [bevel] = yamlRecipes(bare, "RECIPES.yaml", parsePack(PACK, "RECIPES.yaml")).recipes;
    expect(Object.hasOwn(bevel!, "searchHint")).toBe(false);
  });

  it("keeps a sorted, frozen copy of the entry, so the whole entry a get answers is in key order with nothing left to copy", () => {
    const [bevel, bare] = load();
    const sorted = bevel!.sortedEntry!;
    expect(Object.isFrozen(sorted)).toBe(true);
    expect(Object.keys(sorted)).toEqual([...Object.keys(bevel!.entry)].sort());
    // The entry as written keeps its authors' order (the YAML text of a get is written from it).
    expect(Object.keys(bevel!.entry)[0]).toBe("name");
    expect(bevel!.sortedEntry).toBe(sorted);
    for (const recipe of [bevel!, bare!]) {
      const whole = wholeEntry(recipe);
      // Already as stable-json writes it: returned as it is, not copied.
      expect(sortKeys(whole)).toBe(whole);
      expect(JSON.stringify(whole)).toBe(
        JSON.stringify(
          sortKeys({ ...recipe.entry, inputs_schema: recipe.inputsSchema, steps: recipe.steps, toolset_profiles: recipe.toolsetProfiles, provenance: whole["provenance"] }),
        ),
      );
    }
    expect(wholeEntry(bare!)["steps"]).toEqual([]);
    expect(Object.keys(bevel!.pack)).toEqual(["pack", "tool_routing"]);
  });

  it("builds the whole entry with a __proto__ key as own data, in order, never as its prototype", () => {
    const PROTO_PACK = `recipes:\n  - name: odd\n    "__proto__": { polluted: true }\n    zeta: 1\n    steps: []\n`;
    const [odd] = yamlRecipes(skill, "RECIPES.yaml", parsePack(PROTO_PACK, "RECIPES.yaml")).recipes as YamlRecipe[];
    const whole = wholeEntry(odd!);
    expect(Object.getPrototypeOf(whole)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.hasOwn(whole, "__proto__")).toBe(Object.hasOwn(odd!.entry, "__proto__"));
    expect(sortKeys(whole)).toBe(whole);
    expect(JSON.parse(JSON.stringify(whole))).toEqual(JSON.parse(JSON.stringify(sortKeys({ ...odd!.entry, inputs_schema: odd!.inputsSchema, steps: odd!.steps, toolset_profiles: odd!.toolsetProfiles, provenance: whole["provenance"] }))));
  });
});
