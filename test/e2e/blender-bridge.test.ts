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
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSchema, renderErrors } from "../../src/jsonschema/index.js";
import { BRIDGE_TOOLS_FILE, skipWithoutBlender, startBlenderBridge, type BlenderBridge } from "./blender.js";
import { REAL_SKILLS } from "./harness.js";
import { requireShared } from "../helpers/shared.js";

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

const haveMeshOps = requireShared(MESH_OPS, "the mesh-ops contract tests");

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

describe.skipIf(!haveMeshOps)("tools.json against core's mesh-ops pack (no Blender needed)", () => {
  it("each routed Blender tool takes exactly the arguments the recipes' steps pass it, with the recipes' schemas", () => {
    const pack = yaml.load(fs.readFileSync(MESH_OPS, "utf8")) as MeshOpsPack & {
      recipes: { inputs_schema: { required: string[]; properties: Record<string, unknown> } }[];
    };
    const routedTools = new Set(Object.values(pack.tool_routing.tools).map((byDcc) => byDcc.blender).filter((t): t is string => typeof t === "string"));
    expect([...routedTools].sort()).toEqual(DEFINED.map((d) => d.name).sort());
    for (const recipe of pack.recipes) {
      for (const step of recipe.steps) {
        const tool = DEFINED.find((d) => d.name === pack.tool_routing.tools[step.tool.replace(/^mesh_ops__/, "")]!.blender)!;
        expect(Object.keys(tool.inputSchema.properties).sort(), `${recipe.name} → ${tool.name}`).toEqual(Object.keys(step.arguments).sort());
        for (const [argument, value] of Object.entries(step.arguments)) {
          const input = /^\$\{(\w+)\}$/.exec(String(value))![1]!;
          expect(tool.inputSchema.properties[argument], `${tool.name}.${argument}`).toEqual(recipe.inputs_schema.properties[input]);
          expect(tool.inputSchema.required.includes(argument), `${tool.name}.${argument} required`).toBe(recipe.inputs_schema.required.includes(input));
        }
      }
    }
  });
});

describe.skipIf(skipWithoutBlender("the mesh-ops contract tests") || !haveMeshOps)("core's mesh-ops recipes against the bridge", () => {
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

describe.skipIf(skipWithoutBlender("the lying and slow bridge tests"))("a bridge started with --lying-tool bevel_edges --slow-ms --max-sessions 2", () => {
  let bridge: BlenderBridge;
  beforeAll(async () => {
    bridge = await startBlenderBridge({ lyingTools: ["bevel_edges"], slowMs: 400, maxSessions: 2 });
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

  it("past --max-sessions the least recently used session is dropped (404) and the others keep working", async () => {
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    const open = async (): Promise<string> => (await post(bridge.url, initialize(1))).headers.get("mcp-session-id")!;
    const [first, second] = [await open(), await open()];
    expect((await post(bridge.url, ping, { "mcp-session-id": first })).status).toBe(200);
    const third = await open();
    // `first` was used after `second`, so `second` is the one dropped.
    expect((await post(bridge.url, ping, { "mcp-session-id": second })).status).toBe(404);
    expect((await post(bridge.url, ping, { "mcp-session-id": first })).status).toBe(200);
    expect((await post(bridge.url, ping, { "mcp-session-id": third })).status).toBe(200);
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

/** A raw POST to the bridge, as a client that does not use the SDK would send it. */
async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; json: any }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  // `any`: the tests read whatever JSON-RPC shape came back, field by field.
  return { status: response.status, headers: response.headers, json: text === "" ? null : (JSON.parse(text) as any) };
}

function initialize(id: number, protocolVersion: unknown = "2025-11-25"): Record<string, unknown> {
  return { jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
}

describe.skipIf(skipWithoutBlender("the bridge's HTTP tests"))("the bridge on the wire (raw HTTP)", () => {
  let bridge: BlenderBridge;
  let session: string;
  beforeAll(async () => {
    bridge = await startBlenderBridge({ idleTimeoutS: 1 });
    const init = await post(bridge.url, initialize(1));
    session = init.headers.get("mcp-session-id")!;
  }, BLENDER_TIMEOUT);
  afterAll(async () => bridge?.stop());

  it("initialize answers the requested revision when it speaks it, else 2025-11-25, with a fresh session each time", async () => {
    const seen = new Set<string>();
    for (const [asked, answered] of [
      ["2025-11-25", "2025-11-25"],
      ["2025-06-18", "2025-06-18"],
      ["2025-03-26", "2025-03-26"],
      ["2024-11-05", "2025-11-25"],
      ["2026-07-28", "2025-11-25"],
      ["not-a-version", "2025-11-25"],
    ]) {
      const { status, headers, json } = await post(bridge.url, initialize(7, asked));
      expect(status).toBe(200);
      expect(json).toMatchObject({ jsonrpc: "2.0", id: 7, result: { protocolVersion: answered, capabilities: { tools: {} }, serverInfo: { name: "blender-bridge" } } });
      const id = headers.get("mcp-session-id")!;
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(6);
    const noVersion = await post(bridge.url, initialize(8, 42));
    expect(noVersion.status).toBe(400);
    expect(noVersion.json.error.code).toBe(-32602);
  });

  it("notifications and client responses are 202 with no body; ping answers {}; an unknown method is -32601", async () => {
    const h = { "mcp-session-id": session };
    for (const notice of [
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3, reason: "changed my mind" } },
      { jsonrpc: "2.0", id: 99, result: {} },
    ]) {
      const answer = await post(bridge.url, notice, h);
      expect(answer.status).toBe(202);
      expect(answer.json).toBeNull();
    }
    expect((await post(bridge.url, { jsonrpc: "2.0", id: "p", method: "ping" }, h)).json).toEqual({ jsonrpc: "2.0", id: "p", result: {} });
    const unknown = await post(bridge.url, { jsonrpc: "2.0", id: 4, method: "resources/list" }, h);
    expect(unknown.json.error).toMatchObject({ code: -32601 });
  });

  it("session rules: none is 400, an unknown one 404, DELETE ends one (then 404), a second DELETE is 404", async () => {
    const list = { jsonrpc: "2.0", id: 5, method: "tools/list" };
    expect((await post(bridge.url, list)).status).toBe(400);
    expect((await post(bridge.url, list, { "mcp-session-id": "f".repeat(32) })).status).toBe(404);
    const mine = (await post(bridge.url, initialize(1))).headers.get("mcp-session-id")!;
    expect((await post(bridge.url, list, { "mcp-session-id": mine })).json.result.tools).toHaveLength(ROUTED.length);
    expect((await fetch(bridge.url, { method: "DELETE", headers: { "mcp-session-id": mine } })).status).toBe(200);
    expect((await post(bridge.url, list, { "mcp-session-id": mine })).status).toBe(404);
    expect((await fetch(bridge.url, { method: "DELETE", headers: { "mcp-session-id": mine } })).status).toBe(404);
    expect((await fetch(bridge.url, { method: "DELETE" })).status).toBe(400);
  });

  it("GET is 405 naming POST and DELETE (no server stream); another path is 404", async () => {
    const get = await fetch(bridge.url, { headers: { accept: "text/event-stream", "mcp-session-id": session } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, DELETE");
    expect((await fetch(bridge.url.replace(/\/mcp$/, "/other"), { method: "POST", body: "{}" })).status).toBe(404);
  });

  it("malformed input is a JSON-RPC error: bad JSON, a batch, no jsonrpc, a bad id, params or arguments that are not objects", async () => {
    const h = { "mcp-session-id": session };
    const cases: [unknown, number, number][] = [
      ["{not json", 400, -32700],
      ["\u00ff\u00fe", 400, -32700],
      ['{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"blender_mesh_ops__bevel_edges","arguments":{"object_name":"Cube","edge_indices":[0],"width":NaN}}}', 400, -32700],
      ['{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":-Infinity}}', 400, -32700],
      [[{ jsonrpc: "2.0", id: 1, method: "ping" }], 400, -32600],
      [{ id: 1, method: "ping" }, 400, -32600],
      [{ jsonrpc: "2.0", id: { nested: 1 }, method: "ping" }, 400, -32600],
      [{ jsonrpc: "2.0", id: true, method: "ping" }, 400, -32600],
      [{ jsonrpc: "2.0", id: 1, method: 7 }, 400, -32600],
      [{ jsonrpc: "2.0", id: 1, method: "tools/call", params: [] }, 400, -32602],
      [{ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "blender_mesh_ops__get_poly_count", arguments: [1] } }, 200, -32602],
      [{ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "blender_mesh_ops__get_poly_count", arguments: "object_name=Cube" } }, 200, -32602],
      [{ jsonrpc: "2.0", id: 1, method: "tools/call", params: { arguments: {} } }, 200, -32602],
      [{ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "../../etc/passwd" } }, 200, -32602],
    ];
    for (const [body, status, code] of cases) {
      const answer = await post(bridge.url, body, h);
      expect([JSON.stringify(body), answer.status]).toEqual([JSON.stringify(body), status]);
      expect(answer.json.error.code).toBe(code);
    }
    // Still serving after all that.
    expect((await post(bridge.url, { jsonrpc: "2.0", id: 2, method: "ping" }, h)).status).toBe(200);
  });

  it("HTTP guards: a foreign Origin is 403, loopback origins pass; wrong content type 415; no JSON accepted 406; an oversized body 413", async () => {
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    const h = { "mcp-session-id": session };
    expect((await post(bridge.url, ping, { ...h, origin: "http://evil.example" })).status).toBe(403);
    expect((await post(bridge.url, ping, { ...h, origin: "http://localhost.evil.example:8080" })).status).toBe(403);
    expect((await post(bridge.url, ping, { ...h, origin: "http://localhost:3000" })).status).toBe(200);
    expect((await post(bridge.url, ping, { ...h, origin: "http://[::1]:3000" })).status).toBe(200);
    expect((await post(bridge.url, ping, { ...h, "content-type": "text/plain" })).status).toBe(415);
    expect((await post(bridge.url, ping, { ...h, accept: "text/html" })).status).toBe(406);
    // A declared length past the 1 MiB limit is refused before a byte of the body is read.
    const status = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(bridge.port, "127.0.0.1", () => {
        socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nMcp-Session-Id: ${session}\r\nContent-Length: ${2 << 20}\r\n\r\n{`);
      });
      let head = "";
      socket.on("data", (chunk) => {
        head += chunk.toString("latin1");
      });
      socket.on("close", () => resolve(head.split("\r\n")[0]!));
      socket.on("error", reject);
    });
    expect(status).toMatch(/^HTTP\/1\.[01] 413 /);
    expect((await post(bridge.url, ping, h)).status).toBe(200);
  });

  it("a 2026-07-28 probe (server/discover) is refused with the versions the bridge speaks", async () => {
    const answer = await post(bridge.url, { jsonrpc: "2.0", id: 1, method: "server/discover", params: {} }, { "mcp-protocol-version": "2026-07-28" });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: -32022, data: { supported: ["2025-11-25", "2025-06-18", "2025-03-26"], requested: "2026-07-28" } });
  });

  it("hostile arguments: names with quotes and non-ASCII round-trip, a 256-character name and 4097 indices are refused by the schema", async () => {
    const { client, call } = await legacyClient(bridge.url);
    try {
      const odd = `Kübel "q" ' \\ ${"\u{1F9CA}"}`;
      expect(receipt(await call("blender_mesh_ops__create_primitive", { primitive_type: "cube", name: odd }))).toMatchObject({ object_name: odd, face_count: 6 });
      expect(receipt(await call("blender_mesh_ops__get_poly_count", { object_name: odd }))).toMatchObject({ object_name: odd, face_count: 6 });
      expect(errorText(await call("blender_mesh_ops__create_primitive", { primitive_type: "cube", name: "n".repeat(256) }))).toMatch(/name must be at most 255 characters/);
      const many = Array.from({ length: 4097 }, (_, i) => i);
      expect(errorText(await call("blender_mesh_ops__bevel_edges", { object_name: odd, edge_indices: many, width: 0.1 }))).toMatch(/at most 4096 items/);
      expect(errorText(await call("blender_mesh_ops__create_primitive", { primitive_type: "cube", name: odd }))).toMatch(/already exists/);
      expect(errorText(await call("blender_mesh_ops__create_primitive", { primitive_type: "cube", name: "Inf", size: 1e309 }))).toMatch(/size/);
    } finally {
      await client.close();
    }
  });

  it("a connection that sends nothing holds the one thread only until its socket times out; then the others are served", async () => {
    const idle = net.connect(bridge.port, "127.0.0.1");
    await new Promise<void>((resolve, reject) => idle.once("connect", resolve).once("error", reject));
    const closed = new Promise<void>((resolve) => idle.once("close", () => resolve()));
    try {
      const ping = await post(bridge.url, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": session });
      expect(ping.json).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
      // The bridge hung up on the idle connection rather than waiting on it forever.
      await closed;
    } finally {
      idle.destroy();
    }
  });

  it("concurrent clients are served one call at a time and every receipt is right", async () => {
    const clients = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? legacyClient(bridge.url) : modernClient(bridge.url))));
    try {
      const made = await Promise.all(
        clients.map(({ call }, i) => call("blender_mesh_ops__create_primitive", { primitive_type: i % 2 === 0 ? "cube" : "plane", name: `Crowd${i}` })),
      );
      made.forEach((result, i) => expect(receipt(result)).toMatchObject({ object_name: `Crowd${i}`, face_count: i % 2 === 0 ? 6 : 1 }));
      const counted = await Promise.all(clients.map(({ call }, i) => call("blender_mesh_ops__get_poly_count", { object_name: `Crowd${(i + 1) % 6}` })));
      counted.forEach((result, i) => expect(receipt(result)).toMatchObject({ object_name: `Crowd${(i + 1) % 6}`, face_count: (i + 1) % 2 === 0 ? 6 : 1 }));
    } finally {
      await Promise.all(clients.map(({ client }) => client.close()));
    }
  });
});

describe.skipIf(skipWithoutBlender("the harness tests"))("startBlenderBridge", () => {
  it("rejects with Blender's output when the bridge exits before BRIDGE_READY (a --lying-tool it does not have)", async () => {
    await expect(startBlenderBridge({ lyingTools: ["no_such_tool"] })).rejects.toThrow(
      /exited \(code 1\) before BRIDGE_READY[^]*--lying-tool no_such_tool is not one of the bridge's tools/,
    );
  }, BLENDER_TIMEOUT);

  it("stop() ends Blender and frees the port; calling it twice is harmless", async () => {
    const bridge = await startBlenderBridge();
    await bridge.stop();
    await bridge.stop();
    expect(() => process.kill(bridge.pid, 0)).toThrow();
    await expect(fetch(bridge.url, { method: "POST" })).rejects.toThrow(/fetch failed/);
  }, BLENDER_TIMEOUT);
});
