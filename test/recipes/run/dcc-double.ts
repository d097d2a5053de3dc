/**
 * A DCC double for the run engine's tests and the bench: the SDK's own MCP
 * server (1.32.2, streamable HTTP with sessions, as today's adapters serve)
 * on a loopback port, exposing the Blender tools core's mesh-ops pack routes
 * to over a small in-memory scene. It answers honest receipts unless told
 * to lie (`changed: false`), fail, or stall; `hang()` gives a port that
 * accepts connections and never answers.
 */
import http from "node:http";
import net from "node:net";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

export interface DoubleOptions {
  /** `lie`: mutating tools answer `changed: false`. */
  mode?: "honest" | "lie";
  /** Tools whose calls answer isError. */
  failing?: readonly string[];
  /** Per-tool delay in ms. */
  delays?: Readonly<Record<string, number>>;
  /** Extra no-op tools (`filler_<n>`) to make tools/list long. */
  extraTools?: number;
  /** Tools left out of tools/list. */
  without?: readonly string[];
  /** A header every request must carry (name → value), else 401. */
  requireHeader?: readonly [string, string];
  port?: number;
}

interface MeshObject {
  vertices: number;
  edges: number;
  faces: number;
}

export interface DccDouble {
  readonly url: string;
  readonly port: number;
  /** Every tools/call the double answered, in order. */
  readonly calls: Array<{ name: string; args: Record<string, unknown> }>;
  readonly scene: Map<string, MeshObject>;
  options: DoubleOptions;
  close(): Promise<void>;
}

const PRIMITIVES: Record<string, MeshObject> = {
  cube: { vertices: 8, edges: 12, faces: 6 },
  plane: { vertices: 4, edges: 4, faces: 1 },
  sphere: { vertices: 482, edges: 960, faces: 480 },
};

const vec3 = { type: "array", items: { type: "number" }, minItems: 3, maxItems: 3 };

function toolList(options: DoubleOptions): Array<{ name: string; inputSchema: Record<string, unknown> }> {
  const tools: Array<{ name: string; inputSchema: Record<string, unknown> }> = [
    {
      name: "blender_mesh_ops__create_primitive",
      inputSchema: {
        type: "object",
        required: ["primitive_type", "name"],
        properties: { primitive_type: { type: "string" }, name: { type: "string" }, size: { type: "number" }, location: vec3, rotation: vec3, scale: vec3 },
        additionalProperties: false,
      },
    },
    {
      name: "blender_mesh_ops__bevel_edges",
      inputSchema: {
        type: "object",
        required: ["object_name", "edge_indices", "width"],
        properties: { object_name: { type: "string" }, edge_indices: { type: "array", items: { type: "integer" } }, width: { type: "number" }, segments: { type: "integer" } },
      },
    },
    { name: "blender_mesh_ops__get_poly_count", inputSchema: { type: "object", required: ["object_name"], properties: { object_name: { type: "string" } } } },
    { name: "blender_mesh_ops__delete_object", inputSchema: { type: "object", required: ["object_name"], properties: { object_name: { type: "string" } } } },
    { name: "blender_scripting__execute_python", inputSchema: { type: "object", required: ["code"], properties: { code: { type: "string" } } } },
  ];
  for (let i = 0; i < (options.extraTools ?? 0); i++) {
    tools.push({ name: `filler_${i}`, inputSchema: { type: "object", properties: { value: { type: "string", maxLength: 100 }, count: { type: "integer", minimum: 0 } }, required: ["value"] } });
  }
  return tools.filter((t) => !(options.without ?? []).includes(t.name));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function startDccDouble(initial: DoubleOptions = {}): Promise<DccDouble> {
  const scene = new Map<string, MeshObject>();
  const calls: Array<{ name: string; args: Record<string, unknown> }> = [];
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const state: { options: DoubleOptions } = { options: initial };

  const answer = (receipt: Record<string, unknown>, isError = false) => ({
    content: [{ type: "text" as const, text: JSON.stringify(receipt) }],
    structuredContent: receipt,
    isError,
  });

  const handle = async (name: string, args: Record<string, unknown>) => {
    const options = state.options;
    calls.push({ name, args });
    const delay = options.delays?.[name];
    if (delay !== undefined) await sleep(delay);
    if ((options.failing ?? []).includes(name)) return { content: [{ type: "text" as const, text: `${name} failed: scene is locked` }], isError: true };
    const lie = options.mode === "lie";
    const objectName = String(args["object_name"] ?? args["name"] ?? "");
    switch (name) {
      case "blender_mesh_ops__create_primitive": {
        const kind = String(args["primitive_type"]);
        const mesh = { ...(PRIMITIVES[kind] ?? PRIMITIVES.cube!) };
        if (!lie) scene.set(objectName, mesh);
        return answer({ object_name: objectName, primitive_type: kind, changed: !lie, vertex_count: mesh.vertices, face_count: mesh.faces });
      }
      case "blender_mesh_ops__bevel_edges": {
        const mesh = scene.get(objectName);
        if (mesh === undefined) return answer({ error: `no object ${objectName}` }, true);
        const edges = (args["edge_indices"] as number[]) ?? [];
        const segments = Number(args["segments"] ?? 1);
        if (!lie) {
          mesh.faces += edges.length * segments;
          mesh.vertices += edges.length * 2 * segments;
          mesh.edges += edges.length * 3 * segments;
        }
        return answer({ object_name: objectName, changed: !lie, beveled_edges: edges, face_count: mesh.faces });
      }
      case "blender_mesh_ops__get_poly_count": {
        const mesh = scene.get(objectName);
        if (mesh === undefined) return answer({ error: `no object ${objectName}` }, true);
        return answer({ object_name: objectName, vertex_count: mesh.vertices, edge_count: mesh.edges, face_count: mesh.faces, triangle_count: mesh.faces * 2, changed: false });
      }
      case "blender_mesh_ops__delete_object": {
        const existed = scene.delete(objectName);
        return answer({ object_name: objectName, changed: existed });
      }
      case "blender_scripting__execute_python":
        return answer({ ran: true, code_chars: String(args["code"]).length, changed: true });
      default:
        return answer({ value: args["value"] ?? null, changed: false });
    }
  };

  const newServer = (): Server => {
    const server = new Server({ name: "dcc-double", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolList(state.options) }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => handle(request.params.name, (request.params.arguments ?? {}) as Record<string, unknown>));
    return server;
  };

  const httpServer = http.createServer(async (req, res) => {
    const required = state.options.requireHeader;
    if (required !== undefined && req.headers[required[0].toLowerCase()] !== required[1]) {
      res.writeHead(401).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body: unknown = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
    const sessionId = req.headers["mcp-session-id"];
    let transport = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
    if (transport === undefined) {
      if (req.method !== "POST" || !isInitializeRequest(body)) {
        res.writeHead(typeof sessionId === "string" ? 404 : 400, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return;
      }
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          transports.set(id, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId !== undefined) transports.delete(created.sessionId);
      };
      await newServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => httpServer.listen(initial.port ?? 0, "127.0.0.1", resolve));
  const port = (httpServer.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    calls,
    scene,
    get options() {
      return state.options;
    },
    set options(next: DoubleOptions) {
      state.options = next;
    },
    async close() {
      for (const transport of transports.values()) await transport.close().catch(() => undefined);
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

/** A port that accepts TCP connections and never answers a byte: a hung DCC. */
export async function startHungPort(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
