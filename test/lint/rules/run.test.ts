import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { goodRecipe, lintTree, skillMd, withCode } from "../helpers.js";

const ROUTING = {
  adapters: ["blender", "maya"],
  scripting_fallback: { blender: "blender_scripting__execute_python", maya: "maya_scripting__execute_python" },
  tools: { set_pivot: { blender: "blender_mesh_ops__set_pivot", maya: null }, delete_object: { blender: "blender_mesh_ops__delete", maya: "maya_mesh_ops__delete" } },
};

async function lintRouted(recipe: Record<string, unknown>, routing: unknown = ROUTING) {
  const text = stringify({ pack: { name: "s", dcc: "any", canonical_namespace: "mesh_ops" }, tool_routing: routing, recipes: [recipe] }, { lineWidth: 0 });
  return (await lintTree({ "s/SKILL.md": skillMd("s", "RECIPES.yaml", "any"), "s/RECIPES.yaml": text })).findings;
}

const routed = (extra: Record<string, unknown> = {}, step: Record<string, unknown> = {}): Record<string, unknown> => ({
  ...goodRecipe(),
  dcc: "any",
  steps: [{ tool: "mesh_ops__set_pivot", arguments: { object_name: "${object_name}" }, ...step }],
  ...extra,
});

describe("run_no_route", () => {
  it("warns for a step a claimed DCC has neither a route nor a scripting fallback for, naming the DCC", async () => {
    const noFallback = { ...ROUTING, scripting_fallback: { blender: "blender_scripting__execute_python" } };
    const hits = withCode(await lintRouted(routed(), noFallback), "run_no_route");
    expect(hits).toHaveLength(1);
    expect(hits[0]!.severity).toBe("warning");
    expect(hits[0]!.message).toMatch(/steps\[0\] \(set_pivot\) on maya/);
    const missingKey = { ...ROUTING, tools: { set_pivot: { blender: "blender_mesh_ops__set_pivot" } } };
    expect(withCode(await lintRouted(routed(), missingKey), "run_no_route")[0]!.message).toMatch(/on maya/);
  });

  it("a null route beside a declared scripting fallback is core's contract: quiet", async () => {
    expect(withCode(await lintRouted(routed()), "run_no_route")).toEqual([]);
  });

  it("names a namespaced verb the table lacks, and stays quiet for concrete tool names and packs without a table", async () => {
    const unknown = withCode(await lintRouted(routed({ steps: [{ tool: "mesh_ops__explode", arguments: {} }] })), "run_no_route");
    expect(unknown[0]!.message).toMatch(/no verb "explode"/);
    expect(withCode(await lintRouted(routed({ steps: [{ tool: "blender_mesh_ops__set_pivot", arguments: {} }] })), "run_no_route")).toEqual([]);
    expect(withCode(await lintRouted(routed(), null), "run_no_route")).toEqual([]);
  });
});

describe("undo_step_unknown_tool / run_placeholder_unresolvable / receipt_step_unknown", () => {
  it("errs on an undo step without a tool or with one the table does not route; prose undo steps are fine", async () => {
    const findings = await lintRouted(
      routed(
        { undo_steps: ["Delete ${object_name} by hand.", { arguments: {} }, { tool: "mesh_ops__vanish", arguments: {} }, { tool: "mesh_ops__delete_object", arguments: { object_name: "${object_name}" } }] },
        { fallback_arguments: { code: "x" } },
      ),
    );
    const hits = withCode(findings, "undo_step_unknown_tool");
    expect(hits.map((h) => h.message)).toEqual([
      expect.stringMatching(/undo_steps\[1\] is neither/),
      expect.stringMatching(/undo_steps\[2\] tool mesh_ops__vanish names no verb/),
    ]);
    expect(hits.every((h) => h.severity === "error")).toBe(true);
  });

  it("warns on recovery and undo placeholders no input declares", async () => {
    const findings = await lintRouted(routed({ recovery: [{ when: "it fails", next: "delete ${target_path} and retry with ${object_name}" }] }, { fallback_arguments: { code: "x" } }));
    const hits = withCode(findings, "run_placeholder_unresolvable");
    expect(hits).toHaveLength(1);
    expect(hits[0]!.message).toContain("${target_path}");
  });

  it("errs on a receipt_step that names no step; an index or a step id passes", async () => {
    expect(withCode(await lintRouted(routed({ receipt_step: 3 }, { fallback_arguments: { code: "x" } })), "receipt_step_unknown")).toHaveLength(1);
    expect(withCode(await lintRouted(routed({ receipt_step: "nope" }, { fallback_arguments: { code: "x" } })), "receipt_step_unknown")).toHaveLength(1);
    expect(withCode(await lintRouted(routed({ receipt_step: 0 }, { fallback_arguments: { code: "x" } })), "receipt_step_unknown")).toEqual([]);
    const byId = await lintRouted(routed({ receipt_step: "pivot" }, { id: "pivot", fallback_arguments: { code: "x" } }));
    expect(withCode(byId, "receipt_step_unknown")).toEqual([]);
    expect(withCode(byId, "entry_key_typo")).toEqual([]);
  });
});
