/**
 * The DCC double for fast tests and the run bench: the Blender bridge's tools
 * (the same names and inputSchemas, read from examples/blender-bridge/tools.json,
 * plus `delete_object` and a scripting tool for the run packs' undo steps and
 * fallbacks) served by the SDK's own servers on a loopback port. Era "2025": the 1.32.2 low-level
 * `Server` behind a sessionful `StreamableHTTPServerTransport` (JSON
 * responses, like the bridge). Era "2026": the v2 low-level `Server` behind
 * `createMcpHandler` (2026-07-28 only). Era "both" routes each request to one
 * of the two by the SDK's `isLegacyRequest`. Receipts come from a small counting
 * model of the scene, not from Blender: use test/e2e/blender.ts where the
 * numbers matter. Hooks make a tool fail, hang, do nothing, or be missing.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import net, { type AddressInfo, type Socket } from "node:net";
import { Server as LegacyServer } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { createMcpHandler, isLegacyRequest, ProtocolError, Server as ModernServer, type ListToolsResult } from "@modelcontextprotocol/server";
import { toNodeHandler, toWebRequest } from "@modelcontextprotocol/node";
import { compileSchema, renderErrors, type Validator } from "../../src/jsonschema/index.js";
import { BRIDGE_TOOLS_FILE } from "./blender.js";

export interface DccToolDefinition {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: Record<string, unknown> & { readonly type: "object" };
  readonly annotations?: Record<string, unknown>;
}

/** The bridge's tool definitions, as tools/list serves them. */
export function bridgeTools(): DccToolDefinition[] {
  return (JSON.parse(fs.readFileSync(BRIDGE_TOOLS_FILE, "utf8")) as { tools: DccToolDefinition[] }).tools;
}

/** Beside the bridge's tools by default: a delete (undo steps) and a Python tool (a route's scripting fallback). */
export function runTools(): DccToolDefinition[] {
  return [
    { name: "blender_mesh_ops__delete_object", inputSchema: { type: "object", required: ["object_name"], properties: { object_name: { type: "string" } } } },
    { name: "blender_scripting__execute_python", inputSchema: { type: "object", required: ["code"], properties: { code: { type: "string" } } } },
  ];
}

/** `count` no-op tools (`filler_<n>`) to make tools/list long; answered `{value, changed: false}`. */
export function fillerTools(count: number): DccToolDefinition[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `filler_${i}`,
    inputSchema: { type: "object", properties: { value: { type: "string", maxLength: 100 }, count: { type: "integer", minimum: 0 } }, required: ["value"] },
  }));
}

export type Receipt = Record<string, unknown>;

/**
 * What to do with a call, by tool. Names are full (`blender_mesh_ops__bevel_edges`)
 * or the verb after `__` (`bevel_edges`). The sets are live: change them between calls.
 */
export interface DccHooks {
  /** Answer `isError: true` without touching the scene. */
  readonly fail: Set<string>;
  /** Never answer (until the client cancels or the double stops). */
  readonly hang: Set<string>;
  /** Do nothing and report `changed: false`, as a tool that lies about success. */
  readonly unchanged: Set<string>;
  /** Not in tools/list; a call is an unknown-tool JSON-RPC error. */
  readonly missing: Set<string>;
  /** Wait this long before each call (abortable by cancellation). */
  delayMs: number;
  /** Wait this long before a call of this tool (name or verb), after `delayMs`. */
  readonly slow: Map<string, number>;
}

export interface DccCall {
  /** The tool's full name. */
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  /** How the call ended: answered, an isError answer, or aborted (cancelled or the client went away). */
  outcome: "pending" | "ok" | "error" | "aborted";
}

export type DccEra = "2025" | "2026" | "both";

export interface DccDoubleOptions {
  /** "both": 2025 clients get the sessionful leg, 2026-07-28 clients the v2 one, on one URL (an adapter that offers both). */
  readonly era: DccEra;
  /** Default: the bridge's tools. */
  readonly tools?: readonly DccToolDefinition[];
  /** Initial hooks (names or verbs); the returned `hooks` stays mutable. */
  readonly fail?: readonly string[];
  readonly hang?: readonly string[];
  readonly unchanged?: readonly string[];
  readonly missing?: readonly string[];
  readonly delayMs?: number;
  readonly slow?: Readonly<Record<string, number>>;
  /** A header every request must carry (name, value), else HTTP 401. */
  readonly requireHeader?: readonly [string, string];
  /** Listen on this port (a DCC coming back where it was); default: any free port. */
  readonly port?: number;
  /**
   * Answer a call yourself (a receipt, or a thrown Error for an isError
   * answer); return undefined to leave it to the scene model. For tools the
   * model does not know (a scripting fallback, a 200-tool endpoint).
   */
  readonly respond?: (tool: string, args: Record<string, unknown>) => Receipt | undefined;
  readonly serverName?: string;
}

export interface DccDouble {
  readonly url: string;
  readonly port: number;
  readonly era: DccEra;
  readonly hooks: DccHooks;
  /** Every tools/call that reached the double, in arrival order. */
  readonly calls: DccCall[];
  /** Mesh objects in the modelled scene, by name. */
  readonly scene: Map<string, MeshCounts>;
  /** Live 2025 sessions (always 0 on the 2026 era). */
  sessionCount(): number;
  /** What tools/list answers now (the `missing` hook applied). */
  listedTools(): readonly DccToolDefinition[];
  stop(): Promise<void>;
}

export interface MeshCounts {
  vertex_count: number;
  edge_count: number;
  face_count: number;
  triangle_count: number;
  uv_digest?: string;
}

/** The counts Blender 3.4 gives its default primitives. */
const PRIMITIVES: Record<string, MeshCounts> = {
  cube: { vertex_count: 8, edge_count: 12, face_count: 6, triangle_count: 12 },
  sphere: { vertex_count: 482, edge_count: 992, face_count: 512, triangle_count: 960 },
  ico_sphere: { vertex_count: 42, edge_count: 120, face_count: 80, triangle_count: 80 },
  cylinder: { vertex_count: 64, edge_count: 96, face_count: 34, triangle_count: 124 },
  cone: { vertex_count: 33, edge_count: 64, face_count: 33, triangle_count: 62 },
  torus: { vertex_count: 576, edge_count: 1152, face_count: 576, triangle_count: 1152 },
  plane: { vertex_count: 4, edge_count: 4, face_count: 1, triangle_count: 2 },
  circle: { vertex_count: 32, edge_count: 32, face_count: 1, triangle_count: 30 },
};

class ToolFailure extends Error {}

function verbOf(tool: string): string {
  const at = tool.indexOf("__");
  return at === -1 ? tool : tool.slice(at + 2);
}

function hooked(set: ReadonlySet<string>, tool: string): boolean {
  return set.has(tool) || set.has(verbOf(tool));
}

/**
 * The counting model: each verb changes the counts roughly as Blender would
 * and answers the mesh-ops receipt fields.
 */
// `any` for the arguments: they have passed the tool's inputSchema already,
// and spelling a type per verb would only restate tools.json.
function modelCall(scene: Map<string, MeshCounts>, tool: string, a: Record<string, any>): Receipt {
  const mesh = (name: string, field = "object_name"): MeshCounts => {
    const found = scene.get(name);
    if (found === undefined) throw new ToolFailure(`${field}: no object named '${name}' in the scene`);
    return found;
  };
  const fresh = (name: string): void => {
    if (scene.has(name)) throw new ToolFailure(`an object named '${name}' already exists`);
  };
  const grow = (m: MeshCounts, v: number, e: number, f: number, t = 2 * f): Receipt => {
    const before = { ...m };
    m.vertex_count += v;
    m.edge_count += e;
    m.face_count += f;
    m.triangle_count += t;
    return { before, ...m };
  };
  const indices = (m: MeshCounts, list: number[], kind: "edge" | "face"): void => {
    const limit = kind === "edge" ? m.edge_count : m.face_count;
    const bad = list.find((i) => i >= limit);
    if (bad !== undefined) throw new ToolFailure(`${kind} index ${bad} out of range (the mesh has ${limit})`);
  };
  switch (verbOf(tool)) {
    case "create_primitive": {
      fresh(a.name);
      const counts = { ...PRIMITIVES[a.primitive_type as string]! };
      scene.set(a.name, counts);
      return { object_name: a.name, primitive_type: a.primitive_type, changed: true, location: a.location, ...counts };
    }
    case "bevel_edges": {
      const m = mesh(a.object_name);
      indices(m, a.edge_indices, "edge");
      const n = a.edge_indices.length * a.segments;
      return { object_name: a.object_name, changed: true, beveled_edges: [...a.edge_indices].sort((x, y) => x - y), segments: a.segments, ...grow(m, 2 * n, 3 * n, n) };
    }
    case "extrude_faces": {
      const m = mesh(a.object_name);
      indices(m, a.face_indices, "face");
      const n = a.face_indices.length;
      return { object_name: a.object_name, changed: true, extruded_faces: [...a.face_indices].sort((x, y) => x - y), ...grow(m, 4 * n, 8 * n, 4 * n) };
    }
    case "inset": {
      const m = mesh(a.object_name);
      indices(m, a.face_indices, "face");
      const n = a.face_indices.length;
      return { object_name: a.object_name, changed: true, inset_faces: [...a.face_indices].sort((x, y) => x - y), ...grow(m, 4 * n, 8 * n, 4 * n) };
    }
    case "add_edge_loop": {
      const m = mesh(a.object_name);
      indices(m, a.edge_indices, "edge");
      const n = a.edge_indices.length * a.cuts;
      return { object_name: a.object_name, changed: true, cuts: a.cuts, ...grow(m, n, 2 * n, 0, n) };
    }
    case "merge_vertices": {
      const m = mesh(a.object_name);
      return { object_name: a.object_name, changed: false, vertices_removed: 0, before: { ...m }, ...m };
    }
    case "triangulate_mesh": {
      const m = mesh(a.object_name);
      const before = { ...m };
      const changed = m.face_count !== m.triangle_count;
      m.edge_count += m.triangle_count - m.face_count;
      m.face_count = m.triangle_count;
      return { object_name: a.object_name, changed, non_triangle_face_count: 0, before, ...m };
    }
    case "cleanup_mesh": {
      const m = mesh(a.object_name);
      return { object_name: a.object_name, changed: false, removed: { vertices: 0, edges: 0, faces: 0 }, normals_flipped: 0, before: { ...m }, ...m };
    }
    case "boolean_op": {
      const left = mesh(a.input_a, "input_a");
      mesh(a.input_b, "input_b");
      fresh(a.output_name);
      const result = { ...left };
      scene.set(a.output_name, result);
      grow(result, 6, 9, 3);
      return { object_name: a.output_name, operation: a.operation, source_objects: [a.input_a, a.input_b], changed: true, applied: a.apply, ...result };
    }
    case "combine_meshes": {
      const parts = (a.object_names as string[]).map((name) => mesh(name, "object_names"));
      fresh(a.new_name);
      const joined: MeshCounts = { vertex_count: 0, edge_count: 0, face_count: 0, triangle_count: 0 };
      for (const part of parts) grow(joined, part.vertex_count, part.edge_count, part.face_count, part.triangle_count);
      for (const name of a.object_names as string[]) scene.delete(name);
      scene.set(a.new_name, joined);
      return { object_name: a.new_name, changed: true, source_count: parts.length, ...joined };
    }
    case "mirror": {
      const m = mesh(a.object_name);
      return { object_name: a.object_name, axis: a.axis, changed: true, applied: a.apply, ...grow(m, m.vertex_count, m.edge_count, m.face_count, m.triangle_count) };
    }
    case "loft_sections": {
      const loops = (a.sections as string[]).map((name) => mesh(name, "sections"));
      fresh(a.output_name);
      const ring = loops[0]!.vertex_count;
      const hull = { vertex_count: ring * loops.length, edge_count: ring * (2 * loops.length - 1), face_count: ring * (loops.length - 1), triangle_count: 2 * ring * (loops.length - 1) };
      scene.set(a.output_name, hull);
      return { object_name: a.output_name, changed: true, section_count: loops.length, closed: true, ...hull };
    }
    case "lathe_profile": {
      const profile = mesh(a.profile, "profile");
      fresh(a.output_name);
      const solid = { vertex_count: profile.vertex_count * a.segments, edge_count: 2 * profile.vertex_count * a.segments, face_count: profile.vertex_count * a.segments, triangle_count: 2 * profile.vertex_count * a.segments };
      scene.set(a.output_name, solid);
      return { object_name: a.output_name, changed: true, segment_count: a.segments, ...solid };
    }
    case "set_pivot":
      mesh(a.object_name);
      return { object_name: a.object_name, position: a.position, changed: true };
    case "array_instances": {
      const source = mesh(a.object_name);
      const names = Array.from({ length: a.count - 1 }, (_, i) => `${a.name_prefix}_${String(i + 1).padStart(3, "0")}`);
      for (const name of names) fresh(name);
      for (const name of names) scene.set(name, { ...source });
      return { source: a.object_name, objects: [a.object_name, ...names], verified_count: a.count, changed: true };
    }
    case "auto_uv":
    case "uv_project": {
      const m = mesh(a.object_name);
      const before = m.uv_digest;
      m.uv_digest = digestOf(`${tool}:${JSON.stringify(a)}:${m.face_count}`);
      const common = { object_name: a.object_name, uv_set: "UVMap", uv_count: 4 * m.face_count, uv_digest: m.uv_digest, changed: m.uv_digest !== before };
      return verbOf(tool) === "auto_uv" ? { ...common, margin: a.margin } : { ...common, projection: a.projection, axis: a.axis };
    }
    case "assign_material": {
      const m = mesh(a.object_name);
      return { object_name: a.object_name, material_name: a.material_name, slot_index: a.slot_index, changed: true, face_count: m.face_count };
    }
    case "get_poly_count":
      return { object_name: a.object_name, changed: false, ...mesh(a.object_name) };
    case "delete_object":
      return { object_name: a.object_name, changed: scene.delete(a.object_name) };
    case "execute_python":
      return { ran: true, code_chars: String(a.code).length, changed: true };
    default:
      if (tool.startsWith("filler_")) return { value: a.value, changed: false };
      throw new ToolFailure(`the double has no model for ${tool}; pass respond()`);
  }
}

function digestOf(text: string): string {
  // A stable 64-hex string; the model needs a digest-shaped value, not a cryptographic one.
  let out = "";
  for (let round = 0; out.length < 64; round++) {
    let h = 2166136261 ^ round;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
    out += (h >>> 0).toString(16).padStart(8, "0");
  }
  return out.slice(0, 64);
}

function withDefaults(schema: Record<string, unknown>, args: Record<string, unknown>): Record<string, unknown> {
  const filled: Record<string, unknown> = { ...args };
  const properties = (schema.properties ?? {}) as Record<string, { default?: unknown }>;
  for (const [name, prop] of Object.entries(properties)) {
    if (!(name in filled) && prop.default !== undefined) filled[name] = structuredClone(prop.default);
  }
  return filled;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

type CallAnswer = { content: { type: "text"; text: string }[]; structuredContent?: Receipt; isError?: boolean };

export async function startDccDouble(options: DccDoubleOptions): Promise<DccDouble> {
  const tools = options.tools ?? [...bridgeTools(), ...runTools()];
  const validators = new Map<string, Validator>();
  for (const tool of tools) {
    const compiled = compileSchema(tool.inputSchema);
    if (!compiled.ok) throw new Error(`the double's tool ${tool.name} has an invalid inputSchema`);
    validators.set(tool.name, compiled.validator);
  }
  const hooks: DccHooks = {
    fail: new Set(options.fail),
    hang: new Set(options.hang),
    unchanged: new Set(options.unchanged),
    missing: new Set(options.missing),
    delayMs: options.delayMs ?? 0,
    slow: new Map(Object.entries(options.slow ?? {})),
  };
  const calls: DccCall[] = [];
  const scene = new Map<string, MeshCounts>();
  /** Aborted on stop, so hung calls end with the double. */
  const stopping = new AbortController();

  const listed = (): DccToolDefinition[] => tools.filter((t) => !hooked(hooks.missing, t.name));
  const known = (name: string): DccToolDefinition | undefined => listed().find((t) => t.name === name);

  async function call(name: string, rawArgs: unknown, signal: AbortSignal): Promise<CallAnswer> {
    const tool = known(name)!;
    const args = (rawArgs ?? {}) as Record<string, unknown>;
    const record: DccCall = { tool: name, arguments: args, outcome: "pending" };
    calls.push(record);
    const aborted = AbortSignal.any([signal, stopping.signal]);
    try {
      if (hooks.delayMs > 0) await sleep(hooks.delayMs, aborted);
      const slow = hooks.slow.get(name) ?? hooks.slow.get(verbOf(name)) ?? 0;
      if (slow > 0) await sleep(slow, aborted);
      if (hooked(hooks.hang, name)) await sleep(2 ** 31 - 1, aborted);
    } catch (reason) {
      record.outcome = "aborted";
      throw reason instanceof Error ? reason : new Error("the call was cancelled");
    }
    const text = (message: string): CallAnswer => {
      record.outcome = "error";
      return { content: [{ type: "text", text: message }], isError: true };
    };
    const result = validators.get(name)!.validate(args);
    if (!result.valid) return text(`${name}: invalid arguments: ${renderErrors(result.errors).join("; ")}`);
    if (hooked(hooks.fail, name)) return text(`${name}: failed (the double was told to fail it)`);
    const filled = withDefaults(tool.inputSchema, args);
    let receipt: Receipt;
    try {
      if (hooked(hooks.unchanged, name)) {
        const target = filled.object_name ?? filled.name ?? filled.input_a;
        const counts = typeof target === "string" ? scene.get(target) : undefined;
        receipt = { ...(typeof target === "string" ? { object_name: target } : {}), changed: false, ...counts };
      } else {
        receipt = options.respond?.(name, filled) ?? modelCall(scene, name, filled);
      }
    } catch (failure) {
      return text(`${name}: ${(failure as Error).message}`);
    }
    record.outcome = "ok";
    return { content: [{ type: "text", text: JSON.stringify(receipt) }], structuredContent: receipt };
  }

  const info = { name: options.serverName ?? "blender-double", version: "1.0.0" };
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  const makeLegacyServer = (): LegacyServer => {
    const server = new LegacyServer(info, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed() as never }));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      const { name } = request.params;
      if (known(name) === undefined) throw new McpError(-32602, `Unknown tool: ${name}`);
      return call(name, request.params.arguments, extra.signal);
    });
    return server;
  };
  /** The 2025 leg: one 1.32.2 transport per session, plain JSON answers like the bridge. */
  const serveLegacy = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    const sessionId = req.headers["mcp-session-id"];
    let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (transport === undefined) {
      if (sessionId !== undefined || req.method !== "POST" || !isInitializeRequest(body)) {
        res.writeHead(sessionId === undefined ? 400 : 404, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: sessionId === undefined ? "Bad Request: no session" : "Session not found" } }));
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        enableJsonResponse: true,
        onsessioninitialized: (id) => void sessions.set(id, created),
        onsessionclosed: (id) => void sessions.delete(id),
      });
      await makeLegacyServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  };

  /** The 2026-07-28 leg: a v2 server per request. */
  const modern = createMcpHandler(() => {
    const server = new ModernServer(info, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", () => ({ tools: listed() as unknown as ListToolsResult["tools"] }));
    server.setRequestHandler("tools/call", (request, ctx) => {
      const { name } = request.params;
      if (known(name) === undefined) throw new ProtocolError(-32602, `Unknown tool: ${name}`);
      return call(name, request.params.arguments, ctx.mcpReq.signal);
    });
    return server;
  }, { legacy: "reject" });
  const serveModern = toNodeHandler(modern);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const required = options.requireHeader;
    if (required !== undefined && req.headers[required[0].toLowerCase()] !== required[1]) {
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "unauthorized" }));
      return;
    }
    const body = req.method === "POST" ? await readJson(req) : undefined;
    if (body === NOT_JSON) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the body is not JSON" } }));
      return;
    }
    let legacy = options.era === "2025";
    // Both revisions on one endpoint: the SDK's own classification picks the leg.
    if (options.era === "both") legacy = await isLegacyRequest(await toWebRequest(req, body), body);
    if (legacy) await serveLegacy(req, res, body);
    else await serveModern(req, res, body);
  };
  const closeEra = async (): Promise<void> => {
    await Promise.all([...sessions.values()].map((t) => t.close()));
    sessions.clear();
    await modern.close();
  };

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32603, message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  let stopped: Promise<void> | null = null;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    era: options.era,
    hooks,
    calls,
    scene,
    sessionCount: () => sessions.size,
    listedTools: listed,
    stop: () => {
      stopped ??= (async () => {
        stopping.abort(new Error("the DCC double stopped"));
        await closeEra();
        http.closeAllConnections();
        await new Promise<void>((resolve) => http.close(() => resolve()));
      })();
      return stopped;
    },
  };
}

/** Back to a clean double between tests: no hooks, no calls, an empty scene. */
export function resetDouble(double: DccDouble): void {
  const { hooks } = double;
  for (const set of [hooks.fail, hooks.hang, hooks.unchanged, hooks.missing]) set.clear();
  hooks.slow.clear();
  hooks.delayMs = 0;
  double.calls.length = 0;
  double.scene.clear();
}

const NOT_JSON = Symbol("not JSON");

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/**
 * An endpoint that accepts TCP connections and never answers a byte: the DCC
 * whose main thread is stuck. For "dcc_unavailable within seconds" tests.
 */
export async function startSilentEndpoint(): Promise<{ url: string; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
