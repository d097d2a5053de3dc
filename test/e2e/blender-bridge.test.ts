/**
 * The Blender bridge (examples/blender-bridge) inside real headless Blender,
 * driven by both real SDK clients: @modelcontextprotocol/sdk 1.32.2 and the
 * v2 @modelcontextprotocol/client (legacy and auto negotiation). Receipts are
 * checked against what a Blender mesh really has.
 */
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import yaml from "js-yaml";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSchema, renderErrors } from "../../src/jsonschema/index.js";
import { BRIDGE_TOOLS_FILE, skipWithoutBlender, startBlenderBridge, type BlenderBridge } from "./blender.js";
import { REAL_SKILLS } from "./harness.js";

const BLENDER_TIMEOUT = 120_000;

interface ToolDefinition {
  readonly name: string;
  readonly inputSchema: { readonly properties: Record<string, unknown>; readonly required: readonly string[] };
}
const DEFINED = (JSON.parse(fs.readFileSync(BRIDGE_TOOLS_FILE, "utf8")) as { tools: ToolDefinition[] }).tools;

/** The Blender tool names core's mesh-ops pack routes its verbs to (its tool_routing table). */
const ROUTED = [
  "create_primitive", "bevel_edges", "extrude_faces", "inset", "boolean_op", "add_edge_loop", "merge_vertices",
  "triangulate_mesh", "cleanup_mesh", "combine_meshes", "mirror", "loft_sections", "lathe_profile", "set_pivot",
  "array_instances", "auto_uv", "uv_project", "assign_material", "get_poly_count",
].map((verb) => `blender_mesh_ops__${verb}`);

interface CallResult {
  readonly isError?: boolean;
  readonly structuredContent?: Record<string, unknown>;
  readonly content: readonly { type: string; text?: string }[];
}

type Caller = (name: string, args: Record<string, unknown>) => Promise<CallResult>;

async function legacyClient(url: string): Promise<{ client: LegacyClient; call: Caller }> {
  const client = new LegacyClient({ name: "bridge-test-1x", version: "1.0.0" });
  await client.connect(new LegacyTransport(new URL(url)));
  return { client, call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallResult };
}

async function modernClient(url: string, mode: "legacy" | "auto" = "legacy"): Promise<{ client: Client; call: Caller }> {
  const client = new Client(
    { name: "bridge-test-v2", version: "1.0.0" },
    mode === "auto" ? { versionNegotiation: { mode: "auto" } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallResult };
}

function receipt(result: CallResult): Record<string, unknown> {
  expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
  const text = result.content.find((c) => c.type === "text")?.text;
  // The receipt is both structured and JSON text, and the two agree.
  expect(JSON.parse(text ?? "null")).toEqual(result.structuredContent);
  return result.structuredContent!;
}

function errorText(result: CallResult): string {
  expect(result.isError).toBe(true);
  return result.content.map((c) => c.text ?? "").join("\n");
}

describe.skipIf(skipWithoutBlender("the Blender bridge tests"))("the Blender bridge inside real Blender", () => {
  let bridge: BlenderBridge;
  beforeAll(async () => {
    bridge = await startBlenderBridge();
  }, BLENDER_TIMEOUT);
  afterAll(async () => bridge?.stop());

  it("tools/list (SDK 1.32.2) has exactly the tools mesh-ops routes to for Blender, each with its inputSchema", async () => {
    const { client } = await legacyClient(bridge.url);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...ROUTED].sort());
      for (const tool of tools) {
        const defined = DEFINED.find((d) => d.name === tool.name)!;
        expect(tool.inputSchema).toEqual(defined.inputSchema);
        expect(tool.inputSchema.type).toBe("object");
      }
      const bevel = tools.find((t) => t.name === "blender_mesh_ops__bevel_edges")!;
      expect(bevel.inputSchema.required).toEqual(["object_name", "edge_indices", "width"]);
      expect(Object.keys(bevel.inputSchema.properties ?? {})).toEqual(["object_name", "edge_indices", "width", "segments"]);
      expect(client.getServerVersion()?.name).toBe("blender-bridge");
    } finally {
      await client.close();
    }
  });

  it("create a cube, bevel it, count it (SDK 1.32.2): the receipts are the mesh Blender really holds", async () => {
    const { client, call } = await legacyClient(bridge.url);
    try {
      const created = receipt(await call("blender_mesh_ops__create_primitive", { primitive_type: "cube", name: "BevelBox", size: 2 }));
      expect(created).toMatchObject({ object_name: "BevelBox", primitive_type: "cube", changed: true, vertex_count: 8, edge_count: 12, face_count: 6 });

      const bevelled = receipt(await call("blender_mesh_ops__bevel_edges", { object_name: "BevelBox", edge_indices: [0, 1, 2, 3], width: 0.1, segments: 2 }));
      expect(bevelled.changed).toBe(true);
      expect(bevelled.beveled_edges).toEqual([0, 1, 2, 3]);
      expect(bevelled.before).toMatchObject({ vertex_count: 8, edge_count: 12, face_count: 6 });
      expect(bevelled.face_count as number).toBeGreaterThan(6);
      expect(bevelled.vertex_count as number).toBeGreaterThan(8);

      const counted = receipt(await call("blender_mesh_ops__get_poly_count", { object_name: "BevelBox" }));
      expect(counted).toMatchObject({
        object_name: "BevelBox",
        changed: false,
        face_count: bevelled.face_count,
        vertex_count: bevelled.vertex_count,
        edge_count: bevelled.edge_count,
      });
      // Euler characteristic of a closed genus-0 surface: V - E + F = 2, whatever the bevel did.
      const c = counted as { vertex_count: number; edge_count: number; face_count: number };
      expect(c.vertex_count - c.edge_count + c.face_count).toBe(2);
    } finally {
      await client.close();
    }
  });

  it("the full-cube bevel with two segments has the topology Blender gives it (54 faces, 56 vertices)", async () => {
    const { client, call } = await legacyClient(bridge.url);
    try {
      receipt(await call("blender_mesh_ops__create_primitive", { primitive_type: "cube", name: "AllEdges" }));
      const all = Array.from({ length: 12 }, (_, i) => i);
      const bevelled = receipt(await call("blender_mesh_ops__bevel_edges", { object_name: "AllEdges", edge_indices: all, width: 0.1, segments: 2 }));
      expect(bevelled).toMatchObject({ changed: true, face_count: 54, vertex_count: 56 });
      const triangulated = receipt(await call("blender_mesh_ops__triangulate_mesh", { object_name: "AllEdges" }));
      expect(triangulated).toMatchObject({ changed: true, non_triangle_face_count: 0 });
      expect(triangulated.face_count).toBe(triangulated.triangle_count);
      expect(triangulated.triangle_count).toBe((bevelled as { triangle_count: number }).triangle_count);
    } finally {
      await client.close();
    }
  });

  it("the v2 client (legacy and auto negotiation) lists and calls the same tools", async () => {
    for (const mode of ["legacy", "auto"] as const) {
      const { client, call } = await modernClient(bridge.url, mode);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual([...ROUTED].sort());
        const name = `V2Plane_${mode}`;
        const created = receipt(await call("blender_mesh_ops__create_primitive", { primitive_type: "plane", name }));
        expect(created).toMatchObject({ object_name: name, changed: true, vertex_count: 4, face_count: 1 });
        const uv = receipt(await call("blender_mesh_ops__auto_uv", { object_name: name }));
        expect(uv).toMatchObject({ object_name: name, changed: true, uv_count: 4, margin: 0.001 });
        expect(uv.uv_digest).toMatch(/^[0-9a-f]{64}$/);
      } finally {
        await client.close();
      }
    }
  });

  it("an unknown tool is a JSON-RPC error for both clients, and the bridge keeps serving", async () => {
    const legacy = await legacyClient(bridge.url);
    const modern = await modernClient(bridge.url);
    try {
      await expect(legacy.call("blender_mesh_ops__nope", {})).rejects.toThrow(/Unknown tool/);
      await expect(modern.call("blender_mesh_ops__nope", {})).rejects.toThrow(/Unknown tool/);
      expect((await legacy.client.listTools()).tools.length).toBe(ROUTED.length);
    } finally {
      await legacy.client.close();
      await modern.client.close();
    }
  });

  it("arguments that break the inputSchema are a tool error naming the field; nothing changes in the scene", async () => {
    const { client, call } = await legacyClient(bridge.url);
    try {
      receipt(await call("blender_mesh_ops__create_primitive", { primitive_type: "cube", name: "Untouched" }));
      expect(errorText(await call("blender_mesh_ops__bevel_edges", { object_name: "Untouched", edge_indices: [0], width: -1 }))).toMatch(/arguments\.width must be > 0/);
      expect(errorText(await call("blender_mesh_ops__bevel_edges", { object_name: "Untouched", edge_indices: [0, 0], width: 0.1 }))).toMatch(/edge_indices must not repeat/);
      expect(errorText(await call("blender_mesh_ops__bevel_edges", { object_name: "Untouched", width: 0.1 }))).toMatch(/edge_indices is required/);
      expect(errorText(await call("blender_mesh_ops__bevel_edges", { object_name: "Untouched", edge_indices: ["1"], width: 0.1 }))).toMatch(/edge_indices\[0\] must be integer/);
      expect(errorText(await call("blender_mesh_ops__get_poly_count", { object_name: "Untouched", extra: true }))).toMatch(/arguments\.extra is not allowed/);
      expect(errorText(await call("blender_mesh_ops__create_primitive", { primitive_type: "teapot", name: "T" }))).toMatch(/primitive_type must be one of/);
      // Valid by schema, impossible in the scene: an edge the cube does not have, an object that does not exist.
      expect(errorText(await call("blender_mesh_ops__bevel_edges", { object_name: "Untouched", edge_indices: [12], width: 0.1 }))).toMatch(/edge index 12 out of range \(the mesh has 12\)/);
      expect(errorText(await call("blender_mesh_ops__get_poly_count", { object_name: "NoSuchObject" }))).toMatch(/no object named 'NoSuchObject'/);
      expect(receipt(await call("blender_mesh_ops__get_poly_count", { object_name: "Untouched" }))).toMatchObject({ vertex_count: 8, face_count: 6 });
    } finally {
      await client.close();
    }
  });
});

const MESH_OPS = path.join(REAL_SKILLS, "dcc-mcp-core/skills/mesh-ops/RECIPES.yaml");

interface MeshOpsPack {
  tool_routing: { tools: Record<string, Record<string, string | null>> };
  recipes: {
    name: string;
    inputs_schema: { properties: Record<string, { default?: unknown }> };
    steps: { tool: string; arguments: Record<string, unknown> }[];
    output_contract: unknown;
  }[];
}

function skipWithoutMeshOps(): boolean {
  if (fs.existsSync(MESH_OPS)) return false;
  if (process.env.CI) throw new Error(`the mesh-ops contract tests need ${MESH_OPS} and CI is set`);
  console.warn(`skipping the mesh-ops contract tests: ${MESH_OPS} is absent (no ../shared beside this clone)`);
  return true;
}

/** A recipe's steps as the dispatch contract says: placeholders from the inputs or the schema default, the verb routed to Blender's tool. */
function materialize(pack: MeshOpsPack, recipeName: string, inputs: Record<string, unknown>): { tool: string; arguments: Record<string, unknown> }[] {
  const recipe = pack.recipes.find((r) => r.name === recipeName)!;
  return recipe.steps.map((step) => {
    const args: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(step.arguments)) {
      const placeholder = typeof value === "string" ? /^\$\{(\w+)\}$/.exec(value) : null;
      args[key] = placeholder === null ? value : (inputs[placeholder[1]!] ?? recipe.inputs_schema.properties[placeholder[1]!]!.default);
    }
    const verb = step.tool.replace(/^mesh_ops__/, "");
    return { tool: pack.tool_routing.tools[verb]!.blender!, arguments: args };
  });
}

function contractErrors(pack: MeshOpsPack, recipeName: string, observed: unknown): string[] {
  const compiled = compileSchema(pack.recipes.find((r) => r.name === recipeName)!.output_contract);
  if (!compiled.ok) throw new Error(`the ${recipeName} output_contract does not compile`);
  const result = compiled.validator.validate(observed);
  return result.valid ? [] : renderErrors(result.errors);
}

describe.skipIf(skipWithoutBlender("the mesh-ops contract tests") || skipWithoutMeshOps())("core's mesh-ops recipes against the bridge", () => {
  let bridge: BlenderBridge;
  let pack: MeshOpsPack;
  beforeAll(async () => {
    pack = yaml.load(fs.readFileSync(MESH_OPS, "utf8")) as MeshOpsPack;
    bridge = await startBlenderBridge();
  }, BLENDER_TIMEOUT);
  afterAll(async () => bridge?.stop());

  it("every recipe, materialized and routed to Blender, answers a receipt its output_contract accepts", async () => {
    const { client, call } = await legacyClient(bridge.url);
    // Inputs that really change the scene; the recipes that need objects run after the ones that make them.
    const plan: [string, Record<string, unknown>][] = [
      ["create_primitive", { primitive_type: "cube", name: "K" }],
      ["bevel_edges", { object_name: "K", edge_indices: [0, 1], width: 0.1 }],
      ["extrude_faces", { object_name: "K", face_indices: [0], distance: 0.5 }],
      ["inset", { object_name: "K", face_indices: [1], thickness: 0.05 }],
      ["add_edge_loop", { object_name: "K", edge_indices: [0] }],
      ["triangulate_mesh", { object_name: "K" }],
      ["get_poly_count", { object_name: "K" }],
      ["auto_uv", { object_name: "K" }],
      ["uv_project", { object_name: "K", projection: "cylindrical" }],
      ["assign_material", { object_name: "K", material_name: "Steel" }],
      ["set_pivot", { object_name: "K", position: [1, 0, 0] }],
      ["create_primitive", { primitive_type: "ico_sphere", name: "Ball", location: [0.5, 0, 0] }],
      ["boolean_op", { input_a: "K", input_b: "Ball", operation: "subtract", output_name: "Cut" }],
      ["mirror", { object_name: "Cut", axis: "y", apply: true }],
      ["create_primitive", { primitive_type: "circle", name: "Ring0" }],
      ["create_primitive", { primitive_type: "circle", name: "Ring1", size: 2, location: [0, 0, 1] }],
      ["loft_sections", { sections: ["Ring0", "Ring1"], output_name: "Hull" }],
      ["lathe_profile", { profile: "Ring1", output_name: "Turned", axis: "x", segments: 12 }],
      ["create_primitive", { primitive_type: "cube", name: "Twin0" }],
      ["create_primitive", { primitive_type: "cube", name: "Twin1" }],
      ["combine_meshes", { object_names: ["Twin0", "Twin1"], new_name: "Twins" }],
      ["merge_vertices", { object_name: "Twins" }],
      ["create_primitive", { primitive_type: "cube", name: "Dup0" }],
      ["create_primitive", { primitive_type: "cube", name: "Dup1" }],
      ["combine_meshes", { object_names: ["Dup0", "Dup1"], new_name: "Dups" }],
      ["cleanup_mesh", { object_name: "Dups" }],
      ["create_primitive", { primitive_type: "cylinder", name: "Blade", location: [2, 0, 0] }],
      ["radial_array", { object_name: "Blade", count: 6, pivot: [0, 0, 0], rotate_step: [0, 0, 60], name_prefix: "Blade" }],
    ];
    try {
      const covered = new Set<string>();
      for (const [recipe, inputs] of plan) {
        let last: Record<string, unknown> = {};
        for (const step of materialize(pack, recipe, inputs)) {
          covered.add(step.tool);
          last = receipt(await call(step.tool, step.arguments));
        }
        expect(contractErrors(pack, recipe, last), `${recipe}: ${JSON.stringify(last)}`).toEqual([]);
      }
      expect([...covered].sort()).toEqual([...ROUTED].sort());
      // What the receipts claimed is in the scene.
      // Two coincident cubes merged: remove_doubles folds the duplicate faces too, back to one cube.
      expect(receipt(await call("blender_mesh_ops__get_poly_count", { object_name: "Twins" }))).toMatchObject({ vertex_count: 8, edge_count: 12, face_count: 6 });
      expect(receipt(await call("blender_mesh_ops__get_poly_count", { object_name: "Blade_005" }))).toMatchObject({ face_count: 34 });
      expect(errorText(await call("blender_mesh_ops__get_poly_count", { object_name: "Twin0" }))).toMatch(/no object named 'Twin0'/);
    } finally {
      await client.close();
    }
  });

  it("a mutating recipe on a mesh with nothing to do fails its contract: the receipt says changed:false honestly", async () => {
    const { client, call } = await legacyClient(bridge.url);
    try {
      receipt(await call("blender_mesh_ops__create_primitive", { primitive_type: "cube", name: "Clean" }));
      const merged = receipt(await call("blender_mesh_ops__merge_vertices", { object_name: "Clean" }));
      expect(merged).toMatchObject({ changed: false, vertices_removed: 0, vertex_count: 8 });
      expect(contractErrors(pack, "merge_vertices", merged).join("\n")).toMatch(/changed/);
    } finally {
      await client.close();
    }
  });
});

describe.skipIf(skipWithoutBlender("the lying and slow bridge tests"))("a bridge started with --lying-tool bevel_edges --slow-ms", () => {
  let bridge: BlenderBridge;
  beforeAll(async () => {
    bridge = await startBlenderBridge({ lyingTools: ["bevel_edges"], slowMs: 400 });
  }, BLENDER_TIMEOUT);
  afterAll(async () => bridge?.stop());

  it("the lying tool reports success with changed:false and leaves the mesh as it was; the others still work", async () => {
    const { client, call } = await legacyClient(bridge.url);
    try {
      receipt(await call("blender_mesh_ops__create_primitive", { primitive_type: "cube", name: "Liar" }));
      const lied = receipt(await call("blender_mesh_ops__bevel_edges", { object_name: "Liar", edge_indices: [0, 1, 2], width: 0.2 }));
      expect(lied).toMatchObject({ object_name: "Liar", changed: false, face_count: 6, vertex_count: 8 });
      expect(receipt(await call("blender_mesh_ops__get_poly_count", { object_name: "Liar" }))).toMatchObject({ face_count: 6, vertex_count: 8 });
      const triangulated = receipt(await call("blender_mesh_ops__triangulate_mesh", { object_name: "Liar" }));
      expect(triangulated).toMatchObject({ changed: true, face_count: 12 });
    } finally {
      await client.close();
    }
  });

  it("a call the client abandons mid-flight still completes in Blender (a bpy call cannot be interrupted), and the bridge serves the next", async () => {
    const { client, call } = await legacyClient(bridge.url);
    try {
      const creates = (): number => bridge.output().split("\n").filter((l) => l === "bridge: call blender_mesh_ops__create_primitive").length;
      const before = creates();
      const abort = new AbortController();
      const abandoned = client.callTool(
        { name: "blender_mesh_ops__create_primitive", arguments: { primitive_type: "plane", name: "Abandoned" } },
        undefined,
        { signal: abort.signal },
      );
      // Abort once Blender has the call (its console line says so), not before it was sent.
      await expect.poll(creates, { timeout: 20_000 }).toBe(before + 1);
      abort.abort();
      await expect(abandoned).rejects.toThrow();
      // The bridge finished the call before it could read anything else: the plane exists.
      expect(receipt(await call("blender_mesh_ops__get_poly_count", { object_name: "Abandoned" }))).toMatchObject({ face_count: 1 });
    } finally {
      await client.close();
    }
  });

  it("a Blender that dies under the client: the next call rejects with a connection error", async () => {
    const { client, call } = await legacyClient(bridge.url);
    try {
      receipt(await call("blender_mesh_ops__create_primitive", { primitive_type: "cube", name: "BeforeDeath" }));
      await bridge.kill();
      await expect(call("blender_mesh_ops__get_poly_count", { object_name: "BeforeDeath" })).rejects.toThrow(/fetch failed|ECONNREFUSED|ECONNRESET|socket/i);
      const fresh = new LegacyClient({ name: "late", version: "1" });
      await expect(fresh.connect(new LegacyTransport(new URL(bridge.url)))).rejects.toThrow(/fetch failed|ECONNREFUSED/i);
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});
