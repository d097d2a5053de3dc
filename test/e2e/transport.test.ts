/**
 * Streamable HTTP behaviour the daemon owes every client: both session modes,
 * DNS-rebinding refusal, and JSON-RPC shaped errors for malformed requests.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, connect, EXAMPLE_SKILLS, startServer, type RunningServer } from "./harness.js";

const ACCEPT = "application/json, text/event-stream";
const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: ACCEPT, ...headers }, body });
}

async function rpcError(response: Response): Promise<{ code: number; message: string }> {
  const parsed = (await response.json()) as { jsonrpc: string; error: { code: number; message: string } };
  expect(parsed.jsonrpc).toBe("2.0");
  return parsed.error;
}

describe("stateful mode", () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer({ skillsPaths: [EXAMPLE_SKILLS] });
  });
  afterAll(async () => running?.stop());

  it("keeps a session per client and forgets it on DELETE", async () => {
    const a = await connect(running.url);
    const b = await connect(running.url);
    expect((await call(a, "recipes__list")).success).toBe(true);
    expect(running.server.http.sessions?.size).toBe(2);
    await (a.transport as StreamableHTTPClientTransport).terminateSession();
    await a.close();
    expect(running.server.http.sessions?.size).toBe(1);
    expect((await call(b, "recipes__list")).success).toBe(true);
    await b.close();
  });

  it("answers an unknown session id with 404 and a JSON-RPC error", async () => {
    const response = await post(`${running.url}/mcp`, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }), {
      "mcp-session-id": "not-a-session",
    });
    expect(response.status).toBe(404);
    expect((await rpcError(response)).code).toBe(-32001);
  });

  it("refuses a non-initialize POST without a session", async () => {
    const response = await post(`${running.url}/mcp`, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
    expect(response.status).toBe(400);
    expect((await rpcError(response)).message).toMatch(/session/i);
  });

  it("does not let a session of one endpoint be used on another", async () => {
    const init = await post(`${running.url}/mcp`, JSON.stringify(INIT));
    const sessionId = init.headers.get("mcp-session-id");
    expect(sessionId).toBeTruthy();
    await init.body?.cancel();
    const cross = await post(`${running.url}/mcp/houdini`, JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }), {
      "mcp-session-id": sessionId!,
    });
    expect(cross.status).toBe(404);
  });

  // A handler that answers synchronously reaches the SDK as a value; its answer
  // is then written with the headers, Content-Length and all. Awaits on the
  // way (they once were on every call) made the SDK's adapter send the headers
  // alone and stream the body chunked: two more writes per call. The adapter
  // (@hono/node-server 2.x, responseViaResponseObject) waits two microtask
  // turns for the first chunk: if an upgrade changes that, this test says so.
  // Lexical search only: a hybrid search awaits its query embedding.
  it("regression: tool answers written in one piece: every read-only recipe tool answers with a Content-Length, not chunked", async () => {
    const init = await post(`${running.url}/mcp`, JSON.stringify(INIT));
    const session = { "mcp-session-id": init.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": "2025-06-18" };
    await init.body?.cancel();
    await (await post(`${running.url}/mcp`, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), session)).body?.cancel();
    let id = 10;
    const callRaw = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const response = await post(`${running.url}/mcp`, JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name, arguments: args } }), session);
      const text = await response.text();
      expect(response.status, name).toBe(200);
      expect(response.headers.get("transfer-encoding"), name).toBeNull();
      expect(Number(response.headers.get("content-length")), name).toBe(Buffer.byteLength(text));
      const data = text.split("\n").find((line) => line.startsWith("data: "));
      const message = JSON.parse(data!.slice("data: ".length)) as { result: { structuredContent: Record<string, unknown> } };
      return message.result.structuredContent;
    };
    const listed = (await callRaw("recipes__search", { query: "", limit: 50 })).context as { recipes: Array<{ skill: string; name: string; format: string }> };
    const yaml = listed.recipes.find((r) => r.format === "yaml")!;
    const markdown = listed.recipes.find((r) => r.format === "markdown")!;
    expect(yaml && markdown).toBeTruthy();
    expect((await callRaw("recipes__search", { query: "bevel smoke", limit: 5 })).success).toBe(true);
    expect((await callRaw("recipes__list", {})).success).toBe(true);
    expect((await callRaw("recipes__get", { skill: yaml.skill, anchor: yaml.name })).success).toBe(true);
    expect((await callRaw("recipes__get", { skill: markdown.skill, anchor: markdown.name })).success).toBe(true);
    expect((await callRaw("recipes__get", { skill: yaml.skill, anchor: "no such recipe" })).error).toBe("not_found");
    expect((await callRaw("recipes__validate", { skill: yaml.skill, recipe: yaml.name, inputs: {} })).success).toBe(true);
    expect((await callRaw("recipes__apply", { skill: yaml.skill, recipe: yaml.name, inputs: {} })).revision).toBeGreaterThan(0);
    expect((await callRaw("recipe", { action: "search", query: "bevel" })).success).toBe(true);
    expect((await callRaw("recipe", { action: "get", recipeId: `${yaml.skill}/${yaml.name}` })).success).toBe(true);
    expect((await callRaw("recipes__get", { skill: 7 })).error).toBe("invalid_input");
  });
});

describe("stateless mode", () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--stateless"] });
  });
  afterAll(async () => running?.stop());

  it("serves every POST on its own, with no session kept", async () => {
    const client = await connect(running.url);
    const answer = await call(client, "recipes__search", { query: "smoke" });
    expect(answer.success).toBe(true);
    expect(running.server.http.sessions).toBeNull();
    await client.close();
    const raw = await post(`${running.url}/mcp`, JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }));
    expect(raw.status).toBe(200);
    const body = (await raw.json()) as { result: { tools: unknown[] } };
    expect(body.result.tools.length).toBeGreaterThanOrEqual(5);
  });

  it("answers GET and DELETE with 405", async () => {
    const get = await fetch(`${running.url}/mcp`, { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const del = await fetch(`${running.url}/mcp`, { method: "DELETE" });
    expect(del.status).toBe(405);
  });
});

describe("DNS rebinding and malformed requests", () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--allowed-origin", "https://studio.example"] });
  });
  afterAll(async () => running?.stop());

  it("refuses a foreign Origin with 403 and accepts loopback and allowed origins", async () => {
    const foreign = await post(`${running.url}/mcp`, JSON.stringify(INIT), { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect((await rpcError(foreign)).message).toMatch(/Origin/);
    for (const origin of [`http://localhost:${running.port}`, "https://studio.example", "http://127.0.0.1"]) {
      const allowed = await post(`${running.url}/mcp`, JSON.stringify(INIT), { origin });
      expect(allowed.status).toBe(200);
      await allowed.body?.cancel();
    }
  });

  it("refuses a rebinding Host header with 403", async () => {
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: "127.0.0.1", port: running.port, path: "/mcp", method: "POST", headers: { host: `evil.example:${running.port}`, "content-type": "application/json", accept: ACCEPT } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(INIT));
    });
    expect(status).toBe(403);
  });

  it.each([
    ["invalid JSON", "{not json", "application/json", 400, -32700],
    ["an empty body", "", "application/json", 400, -32700],
    ["a wrong content type", "hello", "text/plain", 415, -32600],
    ["an empty batch", "[]", "application/json", 400, -32600],
  ])("answers %s with a JSON-RPC error", async (_name, body, type, status, code) => {
    const response = await post(`${running.url}/mcp`, body, { "content-type": type });
    expect(response.status).toBe(status);
    expect((await rpcError(response)).code).toBe(code);
  });

  it("answers unknown paths with a JSON-RPC shaped 404", async () => {
    const response = await fetch(`${running.url}/nope`);
    expect(response.status).toBe(404);
    await rpcError(response);
  });

  it("/readyz answers ready alone; /status the counts and diagnostics, with no absolute host path", async () => {
    const probe = await fetch(`${running.url}/readyz`);
    expect(probe.status).toBe(200);
    expect(await probe.json()).toEqual({ ready: true });
    const response = await fetch(`${running.url}/status`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { ready: boolean; dccs: Array<{ recipes: number; diagnostics: { errors: number } }> };
    expect(body.ready).toBe(true);
    expect(body.dccs[0]!.recipes).toBeGreaterThan(0);
    expect(body.dccs[0]!.diagnostics.errors).toBe(0);
    const text = JSON.stringify(body);
    expect(text).not.toContain(running.tmp);
    expect(text).not.toContain(EXAMPLE_SKILLS);
    expect(text).not.toMatch(/"\/(tmp|home|work|var|srv)\//);
  });

  it("keeps serving after all of that", async () => {
    const client = await connect(running.url);
    expect((await call(client, "recipes__list")).success).toBe(true);
    await client.close();
  });
});
