/**
 * The real packs of the dcc-mcp ecosystem (../shared/data/real-skills, read in
 * place) served as their authors wrote them: real daemon, the
 * SDK Client over streamable HTTP.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, REAL_SKILLS, startServer, type RunningServer, type ToolAnswer } from "./harness.js";
import { requireShared } from "../helpers/shared.js";

const ROOTS = [
  "dcc-mcp-freecad@e9a1209a/src/dcc_mcp_freecad/skills",
  "dcc-mcp-maya@aa6ca922/src/dcc_mcp_maya/skills",
  "dcc-mcp-maya/src/dcc_mcp_maya/skills",
].map((r) => path.join(REAL_SKILLS, r));
const present = ROOTS.every((r) => requireShared(r, "real-pack e2e tests"));

/** The whole answer, read window by window: real recipes are longer than one window. */
async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  let text = "";
  let isError = false;
  for (let start: number | null = 0; start !== null; ) {
    const result = (await client.callTool({ name, arguments: { ...args, resultStart: start, resultEnd: start + 8000 } })) as {
      content: Array<{ text: string }>;
      isError?: boolean;
    };
    text += result.content[0]!.text;
    isError ||= result.isError === true;
    start = result.content.length > 1 ? (JSON.parse(result.content[1]!.text) as { nextResultStart: number | null }).nextResultStart : null;
  }
  return { ...(JSON.parse(text) as Omit<ToolAnswer, "isError" | "raw">), isError, raw: text };
}

let running: RunningServer;
let freecad: Client;
let maya: Client;

/** Inputs the fem-review schema accepts, leaving out every optional field. */
const FEM_INPUTS = {
  fem_result: {
    max_von_mises: { value: 120, unit: "MPa" },
    max_displacement: { value: 0.4, unit: "mm" },
  },
};

describe.skipIf(!present)("real packs end to end", () => {
  beforeAll(async () => {
    running = await startServer({ dccs: ["freecad", "maya"], skillsPaths: ROOTS });
    freecad = await connect(running.url, "/mcp/freecad");
    maya = await connect(running.url, "/mcp/maya");
  });

  afterAll(async () => {
    await freecad?.close();
    await maya?.close();
    await running?.stop();
  });

  describe("recipes__apply materialize on freecad fem-review", () => {
    it("valid inputs omitting the optional target_object/document_path apply, their placeholders kept and listed", async () => {
      const answer = await call(freecad, "recipes__apply", { skill: "freecad-fem-review", recipe: "fem-review", inputs: FEM_INPUTS, materialize: true });
      expect(answer.success).toBe(true);
      const anchor = answer.context.materialized_steps[0];
      expect(anchor.inputs).toEqual({ document_path: "${fem_result.document_path}", object_name: "${fem_result.target_object}" });
      expect(answer.context.unresolved_placeholders.map((u: { step_id: string; field: string; placeholder: string }) => [u.step_id, u.field, u.placeholder])).toEqual([
        ["anchor", "inputs.document_path", "${fem_result.document_path}"],
        ["anchor", "inputs.object_name", "${fem_result.target_object}"],
        ["anchor", "fallback_inputs.object_name", "${fem_result.fixed_faces[0]}"],
        ["inspect", "inputs.path", "${fem_result.document_path}"],
      ]);
      expect(answer.context.skippable_steps).toEqual([1]);
      expect(answer.message).toBe("Recipe freecad-fem-review/fem-review applied: 3 step(s); 4 placeholder(s) kept verbatim (see unresolved_placeholders)");
    });

    it("answers concurrent materializing applies alike, and refuses invalid inputs before materializing", async () => {
      const args = { skill: "freecad-fem-review", recipe: "fem-review", inputs: FEM_INPUTS, materialize: true };
      const answers = await Promise.all(Array.from({ length: 12 }, () => call(freecad, "recipes__apply", args)));
      for (const a of answers) expect(a.raw).toBe(answers[0]!.raw);
      const bad = await call(freecad, "recipes__apply", { ...args, inputs: { fem_result: { max_von_mises: { value: -1, unit: "MPa" } } } });
      expect(bad).toMatchObject({ success: false, error: "invalid_input" });
      expect(bad.context.unresolved).toBeUndefined();
    });

    it("resolves the indexed ${fem_result.fixed_faces[0]} in fallback_inputs", async () => {
      const inputs = { fem_result: { ...FEM_INPUTS.fem_result, document_path: "/w/b.FCStd", fixed_faces: ["Bracket:Face1"] } };
      const answer = await call(freecad, "recipes__apply", { skill: "freecad-fem-review", recipe: "fem-review", inputs, materialize: true });
      expect(answer.success).toBe(true);
      expect(answer.context.materialized_steps[0].fallback_inputs).toEqual({ object_name: "Bracket:Face1" });
      expect(answer.context.materialized_steps[1].inputs).toEqual({ path: "/w/b.FCStd" });
      expect(answer.context.unresolved_placeholders).toEqual([
        { step: 0, step_id: "anchor", field: "inputs.object_name", placeholder: "${fem_result.target_object}", reason: "input_absent", optional_step: false },
      ]);
      expect(answer.context.skippable_steps).toEqual([]);
    });
  });

  describe("response shapes as dcc-mcp-core", () => {
    it("recipes__list of the Markdown-only maya-geometry lists its anchors as entries (provenance.format markdown-anchor)", async () => {
      const answer = await call(maya, "recipes__list", { skill: "maya-geometry" });
      expect(answer.context.anchors).toEqual(["Before export (FBX / OBJ)", "Before import (FBX)", "Gateway agents"]);
      expect(answer.context.recipes.map((r: { name: string }) => r.name)).toEqual(answer.context.anchors);
      expect(answer.context.recipes[0]).toMatchObject({
        name: "Before export (FBX / OBJ)",
        inputs_schema: {},
        steps: [],
        output_contract: "markdown_recipe",
        toolset_profiles: [],
        provenance: { format: "markdown-anchor", skill: "maya-geometry", path: "references/IO_CHECKLIST.md", line: 5 },
        recipeId: "maya-geometry/Before export (FBX / OBJ)",
        file: "references/IO_CHECKLIST.md",
      });
    });

    it("recipes__list YAML entries are whole (inputs_schema, steps, output_contract, toolset_profiles, provenance) with our extras", async () => {
      const answer = await call(maya, "recipes__list", { skill: "maya-mesh-ops" });
      const loft = answer.context.recipes.find((r: { name: string }) => r.name === "loft_hull_from_sections");
      expect(loft.inputs_schema.required).toEqual(["sections", "name"]);
      expect(loft.steps[0].tool).toBe("maya_mesh_ops__loft_sections");
      expect(loft.output_contract.required).toContain("history_uuid");
      expect(loft.toolset_profiles).toEqual([]);
      expect(loft).toMatchObject({
        dcc: "maya",
        format: "yaml",
        file: "references/RECIPES.yaml",
        line: 2,
        recipeId: "maya-mesh-ops/loft_hull_from_sections",
        provenance: { format: "recipe-pack", skill: "maya-mesh-ops", path: "references/RECIPES.yaml", line: 2 },
      });
      expect(JSON.stringify(answer.raw)).not.toContain(REAL_SKILLS);
    });

    it("recipes__get of a YAML recipe has provenance and always a toolset_profiles list", async () => {
      const loft = await call(maya, "recipes__get", { skill: "maya-mesh-ops", anchor: "loft_hull_from_sections" });
      expect(loft.context.recipe.toolset_profiles).toEqual([]);
      expect(loft.context.recipe.provenance).toEqual({ format: "recipe-pack", skill: "maya-mesh-ops", path: "references/RECIPES.yaml", line: 2 });
      expect(loft.context.provenance).toEqual(loft.context.recipe.provenance);
      const fem = await call(freecad, "recipes__get", { skill: "freecad-fem-review", anchor: "fem-review" });
      expect(fem.context.recipe.toolset_profiles).toEqual(["freecad-analysis"]);
      expect(fem.context.recipe.provenance).toMatchObject({ format: "recipe-pack", path: "RECIPES.yaml" });
      // The content is the entry as written: provenance is ours, not the author's.
      expect(fem.context.content).not.toContain("recipe-pack");
    });
  });

  describe("newer metadata from metadata.dcc-mcp", () => {
    it("recipes__list shows layer and depends (metadata/depends.md merged, once) and products", async () => {
      const all = await call(freecad, "recipes__list");
      const fem = all.context.skills.find((s: { name: string }) => s.name === "freecad-fem-review");
      expect(fem).toMatchObject({ layer: "domain", depends: ["freecad-analysis"], products: [] });
      const one = await call(freecad, "recipes__list", { skill: "freecad-fem-review" });
      expect(one.context).toMatchObject({ layer: "domain", depends: ["freecad-analysis"], products: [] });
    });

    it("an example prompt finds its skill's recipe first", async () => {
      const answer = await call(freecad, "recipes__search", { query: "is it strong enough or does it need to be thicker" });
      expect(answer.context.recipes[0]).toMatchObject({ recipeId: "freecad-fem-review/fem-review", layer: "domain" });
    });

    it("recipes__search filters by layer (a skill naming none counts as domain)", async () => {
      const harness = await call(maya, "recipes__search", { query: "", layer: "thin-harness", limit: 50 });
      const skills = new Set(harness.context.recipes.map((r: { skill: string }) => r.skill));
      expect([...skills]).toEqual(["maya-scripting"]);
      const domain = await call(maya, "recipes__search", { query: "mesh", layer: "domain", limit: 50 });
      expect(domain.context.recipes.length).toBeGreaterThan(0);
      for (const r of domain.context.recipes) expect(r.layer).toBe("domain");
      const bad = await call(maya, "recipes__search", { query: "mesh", layer: "kernel" });
      expect(bad).toMatchObject({ success: false, error: "invalid_input" });
    });
  });
});
