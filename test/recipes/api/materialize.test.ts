import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadSkillRecipes } from "../../../src/recipes/packs/loader.js";
import { materializeSteps } from "../../../src/recipes/api/materialize.js";
import type { YamlRecipe } from "../../../src/recipes/types.js";
import { loadSkill } from "../../../src/skills/discover.js";
import { REAL_SKILLS, requireShared } from "../../helpers/shared.js";

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

/** A materialization with nothing left unresolved. */
const done = (steps: unknown[]) => ({ ok: true, steps, unresolved: [], skippable: [] });

describe("materializeSteps", () => {
  it("replaces whole-value placeholders from inputs, then defaults, keeping types", () => {
    const steps = [{ tool: "t", arguments: { name: "${name}", size: "${size}", loc: "${loc}", fixed: 3 } }];
    const r = materializeSteps(steps, { name: "cube" }, schema);
    expect(r).toEqual(done([{ tool: "t", arguments: { name: "cube", size: 1.5, loc: [0, 0, 0], fixed: 3 } }]));
  });

  it("inputs win over defaults, including falsy values", () => {
    const r = materializeSteps([{ arguments: { size: "${size}" } }], { size: 0 }, schema);
    expect(r).toEqual(done([{ arguments: { size: 0 } }]));
  });

  it("dotted placeholders read nested inputs and nested defaults", () => {
    const steps = [{ arguments: { a: "${nested.deep}", b: "${obj.x.y}" } }];
    expect(materializeSteps(steps, { obj: { x: { y: [1] } } }, schema)).toEqual(done([{ arguments: { a: "d", b: [1] } }]));
  });

  it("embedded placeholders substitute the string form", () => {
    const steps = [{ arguments: { path: "out/${name}_${size}.fbx", list: "v=${loc}" } }];
    expect(materializeSteps(steps, { name: "a" }, schema)).toEqual(done([{ arguments: { path: "out/a_1.5.fbx", list: "v=[0,0,0]" } }]));
  });

  it("walks nested arrays and objects inside arguments", () => {
    const steps = [{ arguments: { list: ["${name}", { k: "${size}" }] } }];
    expect(materializeSteps(steps, { name: "n" }, schema)).toEqual(done([{ arguments: { list: ["n", { k: 1.5 }] } }]));
  });

  it("refuses only placeholders nothing could fill, naming each occurrence with its field", () => {
    const steps = [{ id: "a", arguments: { a: "${missing}", b: "x_${other}", c: "${missing}", d: "${nested.nodefault}" } }];
    const r = materializeSteps(steps, {}, schema);
    expect(r.ok).toBe(false);
    expect(r.unresolved.map((u) => [u.field, u.placeholder, u.reason])).toEqual([
      ["arguments.a", "${missing}", "undeclared"],
      ["arguments.b", "${other}", "undeclared"],
      ["arguments.c", "${missing}", "undeclared"],
      ["arguments.d", "${nested.nodefault}", "undeclared"],
    ]);
    expect(r.unresolved[0]).toMatchObject({ step: 0, step_id: "a", optional_step: false });
  });

  it("materializes `inputs` too, but leaves prose keys verbatim", () => {
    const steps = [{ id: "s", description: "uses ${name} later", inputs: { doc: "${name}" } }];
    expect(materializeSteps(steps, { name: "n" }, schema)).toEqual(done([{ id: "s", description: "uses ${name} later", inputs: { doc: "n" } }]));
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

  it("keeps an absent optional input's placeholder verbatim and lists it with its step and field", () => {
    const steps = [{ id: "s", arguments: { a: "${nested.deep}", b: "x_${opt}" } }];
    const sch = { type: "object", properties: { opt: { type: "string" }, nested: schema.properties.nested } };
    const r = materializeSteps(steps, {}, sch);
    expect(r).toEqual({
      ok: true,
      steps: [{ id: "s", arguments: { a: "d", b: "x_${opt}" } }],
      unresolved: [{ step: 0, step_id: "s", field: "arguments.b", placeholder: "${opt}", reason: "input_absent", optional_step: false }],
      skippable: [],
    });
  });

  it("reports an optional: true step holding an unresolved placeholder as skippable, even an undeclared one", () => {
    const steps = [{ tool: "a", arguments: { n: "${name}" } }, { tool: "b", optional: true, inputs: { p: "${nowhere}" } }];
    const r = materializeSteps(steps, { name: "n" }, schema);
    expect(r.ok && r.skippable).toEqual([1]);
    expect(r.unresolved).toEqual([{ step: 1, field: "inputs.p", placeholder: "${nowhere}", reason: "undeclared", optional_step: true }]);
  });

  it("resolves indexed placeholders [n] and .n into arrays, whole and embedded", () => {
    const sch = { type: "object", properties: { faces: { type: "array", items: { type: "string" } }, m: { type: "array", items: { type: "array" } } } };
    const steps = [{ arguments: { a: "${faces[0]}", b: "${faces.1}", c: "on ${faces[1]}", d: "${m[0][1]}", e: "${faces[5]}" } }];
    const r = materializeSteps(steps, { faces: ["F1", "F2"], m: [[1, [2]]] }, sch);
    expect(r.ok && r.steps).toEqual([{ arguments: { a: "F1", b: "F2", c: "on F2", d: [2], e: "${faces[5]}" } }]);
    expect(r.unresolved).toMatchObject([{ field: "arguments.e", placeholder: "${faces[5]}", reason: "input_absent" }]);
  });

  it("reports a `${` it cannot parse instead of leaving it silently", () => {
    const r = materializeSteps([{ arguments: { a: "${ name }", b: "${name}" } }], { name: "n" }, schema);
    expect(r.ok && r.steps).toEqual([{ arguments: { a: "${ name }", b: "n" } }]);
    expect(r.unresolved).toEqual([{ step: 0, field: "arguments.a", placeholder: "${ name }", reason: "malformed", optional_step: false }]);
  });

  it("materializes fallback_inputs and fallback_arguments as parameters", () => {
    const r = materializeSteps([{ fallback_inputs: { a: "${name}" }, fallback_arguments: ["${size}"] }], { name: "n" }, schema);
    expect(r.ok && r.steps).toEqual([{ fallback_inputs: { a: "n" }, fallback_arguments: [1.5] }]);
  });

  it("hostile parameter text: an unclosed `${` flood is one malformed report, huge indexes and __proto__ read nothing", () => {
    const flood = "${a".repeat(50_000);
    const sch = { type: "object", properties: { a: { type: "array", items: { type: "string" } } } };
    const r = materializeSteps([{ arguments: { f: flood, i: "${a[99999999999999999999]}" } }], { a: ["x"] }, sch);
    if (!r.ok) throw new Error(JSON.stringify(r.unresolved.map((u) => [u.field, u.reason])));
    expect((r.steps[0] as { arguments: Record<string, unknown> }).arguments).toEqual({ f: flood, i: "${a[99999999999999999999]}" });
    expect(r.unresolved.map((u) => [u.field, u.reason])).toEqual([
      ["arguments.f", "malformed"],
      ["arguments.i", "input_absent"],
    ]);
    const proto = materializeSteps([{ arguments: { p: "${a.__proto__}" } }], { a: ["x"] }, sch);
    expect(proto).toMatchObject({ ok: false, unresolved: [{ field: "arguments.p", reason: "undeclared" }] });
  });

  it("own properties only: a placeholder cannot read the prototype chain", () => {
    const r = materializeSteps([{ arguments: { a: "${constructor}", b: "${name.length}" } }], { name: "n" }, {});
    expect(r.ok).toBe(false);
    expect(r.unresolved.map((u) => u.placeholder)).toEqual(["${constructor}", "${name.length}"]);
  });

  it("tolerates odd schemas and non-object steps", () => {
    expect(materializeSteps(["raw", 3, null], {}, null)).toEqual(done(["raw", 3, null]));
    expect(materializeSteps([{ arguments: { a: "${a}" } }], null, { properties: 5 })).toMatchObject({ ok: false, unresolved: [{ placeholder: "${a}" }] });
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

const realRoot = REAL_SKILLS;
const hasReal = requireShared(realRoot, "real-pack materialization tests");

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

  it("freecad fem-review (42c377ea): a placeholder its schema never declares still refuses", async () => {
    const [r] = await packRecipes("dcc-mcp-freecad/src/dcc_mcp_freecad/skills/freecad-fem-review");
    // This older version names fem_result.document_path without declaring it (the authors added it
    // in e9a1209a); the optional geometry_context.object_name alone would only be reported.
    const minimal = materializeSteps(r!.steps, minimalInputs(r!.inputsSchema), r!.inputsSchema);
    expect(minimal.ok).toBe(false);
    expect(minimal.unresolved.map((u) => [u.step_id, u.field, u.placeholder, u.reason])).toEqual([
      ["anchor", "inputs.document_path", "${fem_result.document_path}", "undeclared"],
    ]);

    const inputs = {
      ...(minimalInputs(r!.inputsSchema) as Record<string, unknown>),
      fem_result: { ...((minimalInputs(r!.inputsSchema) as { fem_result: object }).fem_result), document_path: "/p/bracket.FCStd" },
      geometry_context: { object_name: "Bracket" },
    };
    const full = materializeSteps(r!.steps, inputs, r!.inputsSchema);
    if (!full.ok) throw new Error(JSON.stringify(full.unresolved));
    expect((full.steps[0] as { inputs: unknown }).inputs).toEqual({ document_path: "/p/bracket.FCStd", object_name: "Bracket" });
    expect((full.steps[0] as { scripting_fallback: string }).scripting_fallback).toBe(
      (r!.steps[0] as { scripting_fallback: string }).scripting_fallback,
    );
    expect(hasPlaceholder(full.steps)).toBe(false);
  });

  it("freecad fem-review (e9a1209a): valid inputs without the optional target_object/document_path materialize", async () => {
    const [r] = await packRecipes("dcc-mcp-freecad@e9a1209a/src/dcc_mcp_freecad/skills/freecad-fem-review");
    const inputs = minimalInputs(r!.inputsSchema);
    expect(r!.inputValidator.ok && r!.inputValidator.validator.validate(inputs).valid).toBe(true);
    const out = materializeSteps(r!.steps, inputs, r!.inputsSchema);
    if (!out.ok) throw new Error(JSON.stringify(out.unresolved));
    expect(out.unresolved.map((u) => [u.step_id, u.field, u.placeholder, u.reason])).toEqual([
      ["anchor", "inputs.document_path", "${fem_result.document_path}", "input_absent"],
      ["anchor", "inputs.object_name", "${fem_result.target_object}", "input_absent"],
      ["anchor", "fallback_inputs.object_name", "${fem_result.fixed_faces[0]}", "input_absent"],
      ["inspect", "inputs.path", "${fem_result.document_path}", "input_absent"],
    ]);
    expect(out.skippable).toEqual([1]);
    expect((out.steps[0] as { inputs: unknown }).inputs).toEqual({ document_path: "${fem_result.document_path}", object_name: "${fem_result.target_object}" });
  });

  it("freecad fem-review (e9a1209a): the indexed ${fem_result.fixed_faces[0]} resolves from the array", async () => {
    const [r] = await packRecipes("dcc-mcp-freecad@e9a1209a/src/dcc_mcp_freecad/skills/freecad-fem-review");
    const base = minimalInputs(r!.inputsSchema) as { fem_result: Record<string, unknown> };
    const inputs = { ...base, fem_result: { ...base.fem_result, document_path: "/p/b.FCStd", target_object: "Bracket", fixed_faces: ["Bracket:Face1", "Bracket:Face2"] } };
    const out = materializeSteps(r!.steps, inputs, r!.inputsSchema);
    if (!out.ok) throw new Error(JSON.stringify(out.unresolved));
    expect(out.unresolved).toEqual([]);
    expect(out.skippable).toEqual([]);
    expect((out.steps[0] as { fallback_inputs: unknown }).fallback_inputs).toEqual({ object_name: "Bracket:Face1" });
    expect(hasPlaceholder(out.steps.map((s) => ({ ...(s as object), description: "", scripting_fallback: "" })))).toBe(false);
  });
});
