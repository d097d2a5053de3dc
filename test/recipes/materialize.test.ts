import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadSkillRecipes } from "../../src/recipes/loader.js";
import { materializeSteps } from "../../src/recipes/materialize.js";
import type { YamlRecipe } from "../../src/recipes/types.js";
import { loadSkill } from "../../src/skills/discover.js";

const schema = {
  type: "object",
  required: ["name"],
  properties: {
    name: { type: "string" },
    size: { type: "number", default: 1.5 },
    loc: { type: "array", default: [0, 0, 0] },
    nested: { type: "object", properties: { deep: { type: "string", default: "d" } } },
  },
};

describe("materializeSteps", () => {
  it("replaces whole-value placeholders from inputs, then defaults, keeping types", () => {
    const steps = [{ tool: "t", arguments: { name: "${name}", size: "${size}", loc: "${loc}", fixed: 3 } }];
    const r = materializeSteps(steps, { name: "cube" }, schema);
    expect(r).toEqual({ ok: true, steps: [{ tool: "t", arguments: { name: "cube", size: 1.5, loc: [0, 0, 0], fixed: 3 } }] });
  });

  it("inputs win over defaults, including falsy values", () => {
    const r = materializeSteps([{ arguments: { size: "${size}" } }], { size: 0 }, schema);
    expect(r).toEqual({ ok: true, steps: [{ arguments: { size: 0 } }] });
  });

  it("dotted placeholders read nested inputs and nested defaults", () => {
    const steps = [{ arguments: { a: "${nested.deep}", b: "${obj.x.y}" } }];
    expect(materializeSteps(steps, { obj: { x: { y: [1] } } }, schema)).toEqual({
      ok: true,
      steps: [{ arguments: { a: "d", b: [1] } }],
    });
  });

  it("embedded placeholders substitute the string form", () => {
    const steps = [{ arguments: { path: "out/${name}_${size}.fbx", list: "v=${loc}" } }];
    expect(materializeSteps(steps, { name: "a" }, schema)).toEqual({
      ok: true,
      steps: [{ arguments: { path: "out/a_1.5.fbx", list: "v=[0,0,0]" } }],
    });
  });

  it("walks nested arrays and objects inside arguments", () => {
    const steps = [{ arguments: { list: ["${name}", { k: "${size}" }] } }];
    expect(materializeSteps(steps, { name: "n" }, schema)).toEqual({ ok: true, steps: [{ arguments: { list: ["n", { k: 1.5 }] } }] });
  });

  it("lists every unresolved placeholder once", () => {
    const steps = [{ arguments: { a: "${missing}", b: "x_${other}", c: "${missing}", d: "${nested.nodefault}" } }];
    expect(materializeSteps(steps, {}, schema)).toEqual({ ok: false, unresolved: ["missing", "other", "nested.nodefault"] });
  });

  it("materializes `inputs` too, but leaves prose keys verbatim", () => {
    const steps = [{ id: "s", description: "uses ${name} later", inputs: { doc: "${name}" } }];
    expect(materializeSteps(steps, { name: "n" }, schema)).toEqual({
      ok: true,
      steps: [{ id: "s", description: "uses ${name} later", inputs: { doc: "n" } }],
    });
    // A placeholder in prose never makes a step unresolvable.
    expect(materializeSteps([{ description: "${nope}" }], {}, schema).ok).toBe(true);
  });

  it("does not mutate frozen inputs, steps or schema, and copies values", () => {
    const loc = Object.freeze([1, 2, 3]);
    const inputs = Object.freeze({ name: "n", loc });
    const steps = Object.freeze([Object.freeze({ arguments: Object.freeze({ loc: "${loc}", name: "${name}" }) })]);
    const r = materializeSteps(steps, inputs, Object.freeze(schema));
    if (!r.ok) throw new Error("expected ok");
    const args = (r.steps[0] as { arguments: { loc: number[] } }).arguments;
    expect(args.loc).toEqual([1, 2, 3]);
    expect(args.loc).not.toBe(loc);
    args.loc.push(4);
    expect(loc).toEqual([1, 2, 3]);
    expect(steps[0]!.arguments.loc).toBe("${loc}");
  });

  it("own properties only: a placeholder cannot read the prototype chain", () => {
    const r = materializeSteps([{ arguments: { a: "${constructor}", b: "${name.length}" } }], { name: "n" }, {});
    expect(r).toEqual({ ok: false, unresolved: ["constructor", "name.length"] });
  });

  it("tolerates odd schemas and non-object steps", () => {
    expect(materializeSteps(["raw", 3, null], {}, null)).toEqual({ ok: true, steps: ["raw", 3, null] });
    expect(materializeSteps([{ arguments: { a: "${a}" } }], null, { properties: 5 })).toEqual({ ok: false, unresolved: ["a"] });
  });
});

/** Minimal inputs: each required property with a type-appropriate value, recursively. */
function minimalInputs(s: unknown): unknown {
  if (typeof s !== "object" || s === null) return null;
  const sch = s as Record<string, unknown>;
  if (Array.isArray(sch["enum"])) return sch["enum"][0];
  switch (sch["type"]) {
    case "object": {
      const props = (sch["properties"] ?? {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const k of (sch["required"] as string[] | undefined) ?? []) out[k] = minimalInputs(props[k]);
      return out;
    }
    case "array":
      return Array.from({ length: (sch["minItems"] as number | undefined) ?? 0 }, () => minimalInputs(sch["items"]));
    case "string":
      return "x";
    case "integer":
    case "number":
      return (sch["minimum"] as number | undefined) ?? 1;
    case "boolean":
      return true;
    default:
      return null;
  }
}

const realRoot = path.resolve(import.meta.dirname, "../../../shared/data/real-skills");
const hasReal = existsSync(realRoot);
if (!hasReal) console.warn(`skipping real-pack materialization tests: ${realRoot} not found`);

async function packRecipes(rel: string): Promise<YamlRecipe[]> {
  const dir = path.join(realRoot, rel);
  const { skill } = await loadSkill(dir, path.dirname(dir), 0);
  if (skill === null) throw new Error(`${rel} did not load`);
  return (await loadSkillRecipes(skill)).recipes.filter((r): r is YamlRecipe => r.format === "yaml");
}

const hasPlaceholder = (v: unknown): boolean => JSON.stringify(v).includes("${");

describe.skipIf(!hasReal)("every placeholder in the real packs", () => {
  it.each([
    "dcc-mcp-core/skills/mesh-ops",
    "dcc-mcp-maya/src/dcc_mcp_maya/skills/maya-mesh-ops",
    "dcc-pipeline-publish/skill/pipeline-publish",
  ])("%s materializes from the required inputs alone", async (rel) => {
    const recipes = await packRecipes(rel);
    expect(recipes.length).toBeGreaterThan(0);
    let placeholders = 0;
    for (const r of recipes) {
      placeholders += (JSON.stringify(r.steps).match(/\$\{/g) ?? []).length;
      const out = materializeSteps(r.steps, minimalInputs(r.inputsSchema), r.inputsSchema);
      expect(out, r.recipeId).toMatchObject({ ok: true });
      if (out.ok) expect(hasPlaceholder(out.steps), r.recipeId).toBe(false);
    }
    expect(placeholders).toBeGreaterThan(0);
  });

  it("freecad fem-review: dotted placeholders in step inputs", async () => {
    const [r] = await packRecipes("dcc-mcp-freecad/src/dcc_mcp_freecad/skills/freecad-fem-review");
    // The pack names fem_result.document_path, which its schema neither requires nor defaults,
    // and the optional geometry_context: minimal inputs cannot resolve them, and we say so.
    const minimal = materializeSteps(r!.steps, minimalInputs(r!.inputsSchema), r!.inputsSchema);
    expect(minimal).toEqual({ ok: false, unresolved: ["fem_result.document_path", "geometry_context.object_name"] });

    const inputs = {
      ...(minimalInputs(r!.inputsSchema) as Record<string, unknown>),
      fem_result: { ...((minimalInputs(r!.inputsSchema) as { fem_result: object }).fem_result), document_path: "/p/bracket.FCStd" },
      geometry_context: { object_name: "Bracket" },
    };
    const full = materializeSteps(r!.steps, inputs, r!.inputsSchema);
    if (!full.ok) throw new Error(full.unresolved.join(","));
    expect((full.steps[0] as { inputs: unknown }).inputs).toEqual({ document_path: "/p/bracket.FCStd", object_name: "Bracket" });
    expect((full.steps[0] as { scripting_fallback: string }).scripting_fallback).toBe(
      (r!.steps[0] as { scripting_fallback: string }).scripting_fallback,
    );
    expect(hasPlaceholder(full.steps)).toBe(false);
  });
});
