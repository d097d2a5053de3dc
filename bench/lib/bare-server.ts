/**
 * An SDK line's own ceiling: fastify + that line's MCP server with nothing
 * behind it, wired as recipe-server wires that line (hijack, then the SDK),
 * answering each tool with a constant result. With a results file the
 * constants are byte-identical to what recipe-server answered for the
 * bench's calls, so the two sides write the same bytes and only the work
 * behind them differs.
 *
 *   node bare-server.mjs legacy|modern [results.json]
 *
 * legacy: SDK 1.32.2 low-level Server + StreamableHTTPServerTransport, stateful sessions.
 * modern: the v2 SDK's createMcpHandler (legacy: 'reject'), one v2 Server per request.
 *
 * bench/server.ts bundles this file into a directory holding a clean install
 * of that line's packages (the SDK's declared dependencies at their newest
 * matching versions), never the project's node_modules: each mode imports
 * only its own line, so each bundle resolves against its own install.
 * Prints its URL on stdout as a JSON line.
 */
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import Fastify from "fastify";

type Result = { content: Array<{ type: "text"; text: string }>; [key: string]: unknown };

const mode = process.argv[2] === "modern" ? "modern" : "legacy";
const constants: Record<string, Result> =
  process.argv[3] !== undefined
    ? (JSON.parse(readFileSync(process.argv[3], "utf8")) as Record<string, Result>)
    : { constant: { content: [{ type: "text", text: '{"success":true,"message":"constant"}' }] } };
const fallback = Object.values(constants)[0]!;
const tools = Object.keys(constants).map((name) => ({ name, description: "returns a constant", inputSchema: { type: "object" as const } }));
const answer = (name: string): Result => constants[name] ?? fallback;

const app = Fastify({ bodyLimit: 4 * 1024 * 1024 });

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

// An orderly exit on SIGTERM, so that a `--cpu-prof` run writes its profile.
process.once("SIGTERM", () => void app.close().then(() => process.exit(0)));
await app.listen({ port: 0, host: "127.0.0.1" });
const address = app.server.address();
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/mcp`, mode })}\n`);
