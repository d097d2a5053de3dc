/**
 * recipes__run on a real DCC: core's unmodified mesh-ops pack (read in place
 * from ../shared) through the real daemon, driving headless Blender 3.4 via
 * the example bridge (examples/blender-bridge). Create, bevel, count, and a
 * contract failure from a bridge whose bevel reports `changed: false`.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { call, connect, REAL_SKILLS, sharedAvailable, startServer, type RunningServer } from "./harness.js";
import { skipWithoutBlender, startBlenderBridge, type BlenderBridge } from "./blender.js";

const CORE_SKILLS = path.join(REAL_SKILLS, "dcc-mcp-core/skills");
const SUITE = "recipes__run against Blender";

const noShared = !(await sharedAvailable());
if (noShared) {
  if (process.env.CI) throw new Error(`${SUITE} needs ../shared (core's mesh-ops pack at ${CORE_SKILLS}) and CI is set`);
  console.warn(`skipping ${SUITE}: ../shared is absent (core's mesh-ops pack is read in place from ${CORE_SKILLS})`);
}
const skip = noShared || skipWithoutBlender(SUITE);

async function daemonFor(bridge: BlenderBridge): Promise<{ running: RunningServer; client: Client }> {
  const running = await startServer({ dccs: ["blender"], skillsPaths: [CORE_SKILLS], args: ["--dcc-endpoint", `blender=${bridge.url}`] });
  return { running, client: await connect(running.url, "/mcp/blender") };
}

describe.skipIf(skip)(SUITE, () => {
  let bridge: BlenderBridge;
  let running: RunningServer;
  let client: Client;

  beforeAll(async () => {
    bridge = await startBlenderBridge();
    ({ running, client } = await daemonFor(bridge));
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await running?.stop();
    await bridge?.stop();
  });

  it("creates, bevels and counts a cube with the unmodified mesh-ops recipes, each receipt proven against its contract", async () => {
    const created = await call(client, "recipes__run", { skill: "mesh-ops", recipe: "create_primitive", inputs: { primitive_type: "cube", name: "RunCube" } });
    expect(created.message).toBeTypeOf("string");
    expect(created.success).toBe(true);
    expect(created.context).toMatchObject({ status: "succeeded", output_valid: true, receipt: { object_name: "RunCube", changed: true, face_count: 6, vertex_count: 8 } });
    expect(created.context.steps[0]).toMatchObject({ tool: "mesh_ops__create_primitive", resolved_tool: "blender_mesh_ops__create_primitive", status: "ok" });
    // Schema defaults were materialized: size, location, rotation and scale reached Blender.
    expect(created.context.steps[0].arguments).toMatchObject({ size: 1, location: [0, 0, 0], scale: [1, 1, 1] });

    const bevelled = await call(client, "recipes__run", { skill: "mesh-ops", recipe: "bevel_edges", inputs: { object_name: "RunCube", edge_indices: [0, 1, 2, 3], width: 0.1 } });
    expect(bevelled.success).toBe(true);
    expect(bevelled.context.receipt).toMatchObject({ object_name: "RunCube", changed: true });
    expect(bevelled.context.receipt.face_count).toBeGreaterThan(6);

    const counted = await call(client, "recipes__run", { skill: "mesh-ops", recipe: "get_poly_count", inputs: { object_name: "RunCube" } });
    expect(counted.success).toBe(true);
    expect(counted.context.output_valid).toBe(true);
    expect(counted.context.receipt).toMatchObject({ object_name: "RunCube", changed: false, face_count: bevelled.context.receipt.face_count });
  });

  it("dry-runs and refuses invalid inputs without touching the scene", async () => {
    const dry = await call(client, "recipes__run", { skill: "mesh-ops", recipe: "bevel_edges", inputs: { object_name: "RunCube", edge_indices: [0], width: 0.05 }, dryRun: true });
    expect(dry.context.status).toBe("dry_run");
    expect(dry.context.steps[0]).toMatchObject({ resolved_tool: "blender_mesh_ops__bevel_edges", status: "not_run", arguments: { segments: 1 } });
    const invalid = await call(client, "recipes__run", { skill: "mesh-ops", recipe: "bevel_edges", inputs: { object_name: "RunCube", edge_indices: [], width: -1 } });
    expect(invalid.error).toBe("invalid_input");
    expect(invalid.context.errors.join(" ")).toMatch(/edge_indices|width/);
  });

  it("a bridge whose bevel does nothing and says changed: false fails the run on the contract", async () => {
    const liar = await startBlenderBridge({ lyingTools: ["bevel_edges"] });
    const own = await daemonFor(liar);
    try {
      const created = await call(own.client, "recipes__run", { skill: "mesh-ops", recipe: "create_primitive", inputs: { primitive_type: "cube", name: "Liar" } });
      expect(created.success).toBe(true);
      const lied = await call(own.client, "recipes__run", { skill: "mesh-ops", recipe: "bevel_edges", inputs: { object_name: "Liar", edge_indices: [0], width: 0.1 } });
      expect(lied.success).toBe(false);
      expect(lied.error).toBe("contract_failed");
      expect(lied.context.output_valid).toBe(false);
      expect(lied.context.output_errors.join(" ")).toMatch(/changed/);
      expect(lied.context.steps[0].status).toBe("ok");
    } finally {
      await own.client.close();
      await own.running.stop();
      await liar.stop();
    }
  }, 120_000);
});
