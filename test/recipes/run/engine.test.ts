import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { planRun } from "../../../src/recipes/run/resolve.js";
import { DccRunner, type RunEvent } from "../../../src/recipes/run/runner.js";
import { McpDccConnection } from "../../../src/recipes/run/mcp-connection.js";
import { DEFAULT_RUN_LIMITS, type RunLimits, type RunPlan } from "../../../src/recipes/run/types.js";
import type { YamlRecipe } from "../../../src/recipes/types.js";
import { resetDouble, startDccDouble, startSilentEndpoint, type DccDouble } from "../../e2e/dcc-double.js";
import { loadPack, MESH_OPS_DIR, RUN_PACK, writePack } from "./fixtures.js";
import { requireShared } from "../../helpers/shared.js";
import { until } from "../../helpers/until.js";

const LIMITS: RunLimits = { ...DEFAULT_RUN_LIMITS, connectTimeoutMs: 1_500, stepTimeoutMs: 5_000, runTimeoutMs: 20_000 };
const haveMeshOps = requireShared(path.join(MESH_OPS_DIR, "RECIPES.yaml"), "planning core's mesh-ops pack");

let pack: Awaited<ReturnType<typeof writePack>>;
const recipe = (name: string): YamlRecipe => pack.recipes.get(name)!;

function plan(name: string, inputs: unknown, dcc = "blender"): RunPlan {
  const planned = planRun(recipe(name), inputs, dcc);
  if (!planned.ok) throw new Error(planned.message);
  return planned.plan;
}

function runnerFor(url: string, limits: RunLimits = LIMITS, onRun?: (e: RunEvent) => void, headers: Record<string, string> = {}): DccRunner {
  return new DccRunner(new McpDccConnection("blender", { url, headers }, { name: "test", version: "0" }), limits, onRun);
}

beforeAll(async () => {
  pack = await writePack(RUN_PACK);
});
afterAll(() => pack.cleanup());

describe("planRun: resolving steps for a DCC", () => {
  it("routes canonical verbs through tool_routing and materializes placeholders and defaults", () => {
    const p = plan("make_bevelled", { name: "Box" });
    expect(p.steps.map((s) => [s.tool, s.resolvedTool, s.route])).toEqual([
      ["mesh_ops__create_primitive", "blender_mesh_ops__create_primitive", "routed"],
      ["mesh_ops__bevel_edges", "blender_mesh_ops__bevel_edges", "routed"],
      ["mesh_ops__get_poly_count", "blender_mesh_ops__get_poly_count", "routed"],
    ]);
    expect(p.steps[1]!.arguments).toEqual({ object_name: "Box", edge_indices: [0, 1], width: 0.1, segments: 2 });
    expect(p.undoSteps.map((s) => [s.resolvedTool, s.arguments])).toEqual([["blender_mesh_ops__delete_object", { object_name: "Box" }]]);
    expect(p.manualUndo).toEqual(["Check the outliner for a stray Box."]);
    expect(p.receiptStep).toBe(2);
  });

  it("uses the scripting fallback only when the step supplies its arguments, else refuses naming the verb and the fallback", () => {
    const p = plan("frozen", {});
    expect(p.steps[0]).toMatchObject({ resolvedTool: "blender_scripting__execute_python", route: "scripting_fallback", arguments: { code: "import bpy; bpy.data.objects['Cube'].select_set(True)" } });
    const refused = planRun(recipe("frozen_no_script"), {}, "blender");
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.code).toBe("preflight_failed");
      expect(refused.message).toContain('"freeze"');
      expect(refused.message).toContain("blender_scripting__execute_python");
    }
    const maya = planRun(recipe("make_bevelled"), { name: "Box" }, "maya");
    expect(!maya.ok && maya.message).toMatch(/maya publishes no tool for verb "create_primitive".*no fallback_arguments for maya_scripting__execute_python/);
    const unknown = planRun(recipe("make_bevelled"), { name: "Box" }, "unreal");
    expect(!unknown.ok && unknown.message).toMatch(/names no route for unreal/);
  });

  it("takes the receipt from the step receipt_step names (an id or an index)", () => {
    expect(plan("bevel_receipt", { name: "B" }).receiptStep).toBe(1);
  });

  it.skipIf(!haveMeshOps)("plans core's unmodified mesh-ops pack for Blender", async () => {
    const meshOps = await loadPack(MESH_OPS_DIR, "mesh-ops");
    const planned = planRun(meshOps.get("bevel_edges")!, { object_name: "Cube", edge_indices: [0, 1], width: 0.1 }, "blender");
    expect(planned.ok && planned.plan.steps[0]).toMatchObject({ resolvedTool: "blender_mesh_ops__bevel_edges", arguments: { object_name: "Cube", edge_indices: [0, 1], width: 0.1, segments: 1 } });
    const maya = planRun(meshOps.get("create_primitive")!, { primitive_type: "cube", name: "C" }, "maya");
    expect(!maya.ok && maya.message).toMatch(/maya_scripting__execute_python/);
  });
});

describe("DccRunner against an SDK-server DCC double", () => {
  let dcc: DccDouble;
  const runners: DccRunner[] = [];
  const make = (...args: Parameters<typeof runnerFor>): DccRunner => {
    const runner = runnerFor(...args);
    runners.push(runner);
    return runner;
  };
  beforeAll(async () => {
    dcc = await startDccDouble({ era: "2025" });
  });
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.close()));
    resetDouble(dcc);
  });
  afterAll(() => dcc.stop());

  it("runs the steps in order and proves the receipt against the contract", async () => {
    const events: RunEvent[] = [];
    const progress: string[] = [];
    const runner = make(dcc.url, LIMITS, (e) => events.push(e));
    const outcome = await runner.run({ plan: plan("make_bevelled", { name: "Box" }), contract: recipe("make_bevelled").outputValidator, dryRun: false, progress: (done, total, message) => progress.push(`${done}/${total} ${message}`) });
    expect(outcome.error).toBeUndefined();
    expect(outcome.report.status).toBe("succeeded");
    expect(outcome.report.output_valid).toBe(true);
    expect(outcome.report.receipt).toMatchObject({ object_name: "Box", face_count: 10, changed: false });
    expect(dcc.calls.map((c) => c.tool)).toEqual(["blender_mesh_ops__create_primitive", "blender_mesh_ops__bevel_edges", "blender_mesh_ops__get_poly_count"]);
    expect(dcc.calls[1]!.arguments).toEqual({ object_name: "Box", edge_indices: [0, 1], width: 0.1, segments: 2 });
    expect(progress).toEqual([
      "1/3 step 0 blender_mesh_ops__create_primitive: ok",
      "2/3 step 1 blender_mesh_ops__bevel_edges: ok",
      "3/3 step 2 blender_mesh_ops__get_poly_count: ok",
    ]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ dcc: "blender", recipeId: "run-pack/make_bevelled", status: "succeeded" });
    expect(events[0]!.steps).toHaveLength(3);
  });

  it("a receipt that fails the contract fails the run though every tool said success (a lying DCC)", async () => {
    const runner = make(dcc.url);
    dcc.hooks.unchanged.add("bevel_edges");
    const lied = await runner.run({ plan: plan("bevel_receipt", { name: "T" }), contract: recipe("bevel_receipt").outputValidator, dryRun: false });
    expect(lied.error).toBe("contract_failed");
    expect(lied.report.status).toBe("failed");
    expect(lied.report.output_valid).toBe(false);
    expect(lied.report.output_errors.join(" ")).toMatch(/changed/);
    expect(lied.report.steps.every((s) => s.status === "ok")).toBe(true);
  });

  it("dry run and preflight: nothing reaches the DCC's tools; a missing tool or bad arguments name the step and tool", async () => {
    const runner = make(dcc.url);
    const dry = await runner.run({ plan: plan("make_bevelled", { name: "D" }), contract: null, dryRun: true });
    expect(dry.report.status).toBe("dry_run");
    expect(dry.report.steps.map((s) => s.status)).toEqual(["not_run", "not_run", "not_run"]);
    expect(dcc.calls).toEqual([]);

    dcc.hooks.missing.add("blender_mesh_ops__bevel_edges");
    const missingRunner = make(dcc.url);
    const missing = await missingRunner.run({ plan: plan("make_bevelled", { name: "M" }), contract: null, dryRun: false });
    expect(missing.error).toBe("preflight_failed");
    expect(missing.message).toContain("steps[1] (mesh_ops__bevel_edges)");
    expect(missing.message).toContain("blender_mesh_ops__bevel_edges is not offered");
    expect(dcc.calls).toEqual([]);

    dcc.hooks.missing.clear();
    const bad = plan("make_bevelled", { name: "X" });
    const broken: RunPlan = { ...bad, steps: bad.steps.map((s, i) => (i === 1 ? { ...s, arguments: { ...s.arguments, width: "wide" } } : s)) };
    const invalid = await make(dcc.url).run({ plan: broken, contract: null, dryRun: false });
    expect(invalid.error).toBe("preflight_failed");
    expect(invalid.message).toMatch(/steps\[1\].*width/);
    expect(dcc.calls).toEqual([]);
  });

  it("a failing step stops the run; the undo steps run and are reported (recovered), with the pack's prose", async () => {
    dcc.hooks.fail.add("blender_mesh_ops__bevel_edges");
    const outcome = await make(dcc.url).run({ plan: plan("make_bevelled", { name: "F" }), contract: recipe("make_bevelled").outputValidator, dryRun: false });
    expect(outcome.error).toBe("run_failed");
    expect(outcome.report.status).toBe("recovered");
    expect(outcome.report.steps.map((s) => s.status)).toEqual(["ok", "failed", "not_run"]);
    expect(outcome.report.steps[1]!.error).toMatch(/told to fail/);
    expect(outcome.report.recovery?.steps.map((s) => [s.resolved_tool, s.status])).toEqual([["blender_mesh_ops__delete_object", "ok"]]);
    expect(outcome.report.recovery?.manual).toEqual(["Check the outliner for a stray F."]);
    expect(outcome.report.recovery?.advice).toEqual([{ when: "a step fails", next: "delete ${name} and re-run" }]);
    expect(dcc.scene.has("F")).toBe(false);
  });

  it("a DCC that accepts the connection and never answers is dcc_unavailable after the connect bound, nothing run", async () => {
    const hung = await startSilentEndpoint();
    try {
      const outcome = await make(hung.url, { ...LIMITS, connectTimeoutMs: 400 }).run({ plan: plan("make_bevelled", { name: "H" }), contract: null, dryRun: false });
      expect(outcome.error).toBe("dcc_unavailable");
      expect(outcome.message).toContain(hung.url);
      expect(outcome.report.steps.every((s) => s.status === "not_run")).toBe(true);
    } finally {
      await hung.stop();
    }
  });

  it("a step that outlives its bound fails with timeout and the run stops", async () => {
    dcc.hooks.slow.set("blender_mesh_ops__bevel_edges", 1_500);
    const outcome = await make(dcc.url, { ...LIMITS, stepTimeoutMs: 200 }).run({ plan: plan("five_steps", { name: "S" }), contract: null, dryRun: false });
    expect(outcome.error).toBe("run_failed");
    expect(outcome.report.steps[1]).toMatchObject({ status: "failed" });
    expect(outcome.report.steps[1]!.error).toMatch(/^timeout/);
    expect(outcome.report.steps.slice(2).every((s) => s.status === "not_run")).toBe(true);
  });

  it("cancellation acts between steps, then recovery runs", async () => {
    dcc.hooks.slow.set("blender_mesh_ops__create_primitive", 300);
    const controller = new AbortController();
    const running = make(dcc.url).run({ plan: plan("make_bevelled", { name: "C" }), contract: null, dryRun: false, signal: controller.signal });
    // Cancel once the first step is on the DCC.
    await until(() => dcc.calls.length > 0, { stepMs: 10 });
    controller.abort();
    const outcome = await running;
    expect(outcome.error).toBe("cancelled");
    expect(outcome.report.status).toBe("cancelled");
    expect(outcome.report.steps.map((s) => s.status)).toEqual(["ok", "not_run", "not_run"]);
    expect(outcome.report.recovery?.steps.map((s) => s.status)).toEqual(["ok"]);
    expect(dcc.calls.map((c) => c.tool)).toEqual(["blender_mesh_ops__create_primitive", "blender_mesh_ops__delete_object"]);
  });

  it("one run at a time per DCC: past the queue, busy at once and nothing reaches the DCC", async () => {
    dcc.hooks.slow.set("blender_mesh_ops__create_primitive", 300);
    const runner = make(dcc.url, { ...LIMITS, maxQueued: 1 });
    const runs = ["A", "B", "C"].map((name) => runner.run({ plan: plan("bevel_receipt", { name }), contract: null, dryRun: false }));
    const outcomes = await Promise.all(runs);
    expect(outcomes.map((o) => o.error ?? "ok")).toEqual(["ok", "ok", "busy"]);
    expect(outcomes[2]!.message).toMatch(/busy/);
    // The two admitted runs never overlapped on the DCC: A's three calls, then B's.
    expect(dcc.calls.map((c) => String(c.arguments["name"] ?? c.arguments["object_name"]))).toEqual(["A", "A", "A", "B", "B", "B"]);
  });

  it("reconnects after the DCC restarts (its session is gone)", async () => {
    const own = await startDccDouble({ era: "2025" });
    const runner = make(own.url);
    expect((await runner.run({ plan: plan("bevel_receipt", { name: "R" }), contract: null, dryRun: false })).error).toBeUndefined();
    await own.stop();
    const down = await runner.run({ plan: plan("bevel_receipt", { name: "R" }), contract: null, dryRun: false });
    expect(down.error).toBe("dcc_unavailable");
    expect(runner.status().reachability).toBe("unavailable");
    const again = await startDccDouble({ era: "2025", port: own.port });
    try {
      const back = await runner.run({ plan: plan("bevel_receipt", { name: "R2" }), contract: null, dryRun: false });
      expect(back.error).toBeUndefined();
      expect(runner.status().reachability).toBe("answering");
    } finally {
      await again.stop();
    }
  });

  it("a DCC that speaks only 2026-07-28 runs through the v2 client: same report, same recovery, and the revision is remembered", async () => {
    const modern = await startDccDouble({ era: "2026" });
    try {
      const connection = new McpDccConnection("blender", { url: modern.url, headers: {} }, { name: "test", version: "0" });
      const runner = new DccRunner(connection, LIMITS);
      runners.push(runner);
      const outcome = await runner.run({ plan: plan("make_bevelled", { name: "M" }), contract: recipe("make_bevelled").outputValidator, dryRun: false });
      expect(outcome.error).toBeUndefined();
      expect(outcome.report).toMatchObject({ status: "succeeded", output_valid: true, receipt: { object_name: "M", face_count: 10 } });
      expect(connection.revision()).toBe("2026-07-28");
      expect(modern.sessionCount()).toBe(0);
      modern.hooks.fail.add("bevel_edges");
      const failed = await runner.run({ plan: plan("make_bevelled", { name: "N" }), contract: null, dryRun: false });
      expect(failed.report.status).toBe("recovered");
      expect(modern.calls.map((c) => c.tool)).toEqual([
        "blender_mesh_ops__create_primitive", "blender_mesh_ops__bevel_edges", "blender_mesh_ops__get_poly_count",
        "blender_mesh_ops__create_primitive", "blender_mesh_ops__bevel_edges", "blender_mesh_ops__delete_object",
      ]);
      // A reconnect (the DCC went away and came back) tries 2026-07-28 first and still answers.
      await runner.close();
      expect((await runner.run({ plan: plan("bevel_receipt", { name: "O" }), contract: null, dryRun: true })).report.status).toBe("dry_run");
      expect(connection.revision()).toBe("2026-07-28");
    } finally {
      await modern.stop();
    }
  });

  it("an endpoint that speaks both revisions is spoken to in 2025-11-25 (one session)", async () => {
    const both = await startDccDouble({ era: "both" });
    try {
      const connection = new McpDccConnection("blender", { url: both.url, headers: {} }, { name: "test", version: "0" });
      runners.push(new DccRunner(connection, LIMITS));
      const outcome = await runners.at(-1)!.run({ plan: plan("bevel_receipt", { name: "B" }), contract: null, dryRun: false });
      expect(outcome.error).toBeUndefined();
      expect(connection.revision()).toBe("2025-11-25");
      expect(both.sessionCount()).toBe(1);
    } finally {
      await both.stop();
    }
  });

  it("sends the configured headers; a wrong token is dcc_unavailable without the token in the message", async () => {
    const guarded = await startDccDouble({ era: "2025", requireHeader: ["Authorization", "Bearer right-token"] });
    try {
      const wrong = await make(guarded.url, LIMITS, undefined, { Authorization: "Bearer wrong-token" }).run({ plan: plan("bevel_receipt", { name: "G" }), contract: null, dryRun: true });
      expect(wrong.error).toBe("dcc_unavailable");
      expect(JSON.stringify(wrong)).not.toContain("wrong-token");
      const right = await make(guarded.url, LIMITS, undefined, { Authorization: "Bearer right-token" }).run({ plan: plan("bevel_receipt", { name: "G" }), contract: null, dryRun: true });
      expect(right.report.status).toBe("dry_run");
    } finally {
      await guarded.stop();
    }
  });

  it("cuts a step result past the documented size, after checking the contract on the whole", async () => {
    const runner = make(dcc.url, { ...LIMITS, maxResultChars: 40 });
    const outcome = await runner.run({ plan: plan("bevel_receipt", { name: "a-long-object-name-to-exceed-forty-chars" }), contract: recipe("bevel_receipt").outputValidator, dryRun: false });
    expect(outcome.report.output_valid).toBe(true);
    expect(outcome.report.steps[0]!.result).toMatchObject({ truncated: true });
    expect(String((outcome.report.steps[0]!.result as { preview: string }).preview)).toHaveLength(40);
  });
});
