/**
 * The bare server's MCP route, as recipe-server wires each SDK line (hijack,
 * then the SDK), answering each tool with a constant result: shared by the
 * bare server process of bench:server (bench/lib/bare-server.ts, bundled
 * against a clean install of its line) and bench/inject-profile.ts (in
 * process, against the project's own packages). Each mode imports only its
 * own line, so a bundle resolves against its own install.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";

export type BareResult = { content: Array<{ type: "text"; text: string }>; [key: string]: unknown };

export async function routeBare(app: FastifyInstance, mode: "legacy" | "modern", constants: Record<string, BareResult>): Promise<void> {
  const fallback = Object.values(constants)[0]!;
  const tools = Object.keys(constants).map((name) => ({ name, description: "returns a constant", inputSchema: { type: "object" as const } }));
  const answer = (name: string): BareResult => constants[name] ?? fallback;
  if (mode === "legacy") {
    const { Server } = await import("@modelcontextprotocol/sdk/server/index.js");
    const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
    const { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest } = await import("@modelcontextprotocol/sdk/types.js");
    const transports = new Map<string, InstanceType<typeof StreamableHTTPServerTransport>>();
    app.route({
      method: ["GET", "POST", "DELETE"],
      url: "/mcp",
      handler: async (request, reply) => {
        const sessionId = request.headers["mcp-session-id"] as string | undefined;
        let transport = sessionId !== undefined ? transports.get(sessionId) : undefined;
        if (transport === undefined) {
          if (request.method !== "POST" || !isInitializeRequest(request.body)) {
            await reply.code(400).send({ jsonrpc: "2.0", error: { code: -32000, message: "no session" }, id: null });
            return;
          }
          const created = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id: string) => {
              transports.set(id, created);
            },
          });
          created.onclose = () => {
            if (created.sessionId !== undefined) transports.delete(created.sessionId);
          };
          const server = new Server({ name: "bare", version: "1.0.0" }, { capabilities: { tools: {} } });
          server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
          server.setRequestHandler(CallToolRequestSchema, (request) => answer(request.params.name));
          await server.connect(created);
          transport = created;
        }
        reply.hijack();
        await transport.handleRequest(request.raw, reply.raw, request.body);
      },
    });
  } else {
    const { createMcpHandler, Server } = await import("@modelcontextprotocol/server");
    const makeServer = () => {
      const server = new Server({ name: "bare", version: "1.0.0" }, { capabilities: { tools: {} } });
      server.setRequestHandler("tools/list", () => ({ tools }));
      server.setRequestHandler("tools/call", (request) => answer(request.params.name));
      return server;
    };
    const handler = createMcpHandler(makeServer, { legacy: "reject" });
    app.route({
      method: ["POST"],
      url: "/mcp",
      handler: async (request, reply) => {
        reply.hijack();
        const headers = new Headers();
        for (const [name, value] of Object.entries(request.headers)) {
          if (typeof value === "string" && name !== "content-length") headers.set(name, value);
        }
        const response = await handler.fetch(new Request(`http://${request.headers.host}${request.url}`, { method: "POST", headers }), {
          parsedBody: request.body,
        });
        const body = Buffer.from(await response.arrayBuffer());
        const out: Record<string, string> = { "content-length": String(body.length) };
        response.headers.forEach((value, name) => {
          out[name] = value;
        });
        reply.raw.writeHead(response.status, out).end(body);
      },
    });
  }
}
