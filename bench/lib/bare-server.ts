/**
 * The transport's own ceiling: fastify + the SDK's streamable HTTP transport,
 * stateful sessions, one tool answering a constant — the same hijack wiring
 * as recipe-server, with nothing behind it. Run as a child process; prints
 * its URL on stdout.
 */
import Fastify from "fastify";
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

const transports = new Map<string, StreamableHTTPServerTransport>();
const app = Fastify({ bodyLimit: 4 * 1024 * 1024 });

function makeServer(): Server {
  const server = new Server({ name: "bare", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: "constant", description: "returns a constant", inputSchema: { type: "object" } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async () => ({
    content: [{ type: "text", text: '{"success":true,"message":"constant"}' }],
  }));
  return server;
}

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
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          transports.set(id, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId !== undefined) transports.delete(created.sessionId);
      };
      await makeServer().connect(created);
      transport = created;
    }
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
  },
});

await app.listen({ port: 0, host: "127.0.0.1" });
const address = app.server.address();
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/mcp` })}\n`);
