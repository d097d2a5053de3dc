/**
 * The 2026-07-28 leg on the wire, with raw HTTP: discover, cache hints, the
 * header checks and JSON-RPC errors the revision names, and the project's own
 * guard, token, body and batch limits in front of it (the v2 handler checks
 * none of those). Also: --stateless leaves the 2026 leg as it is, and a
 * shutdown ends open subscriptions/listen streams.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLE_SKILLS, startServer, type RunningServer } from "./harness.js";

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
let nextId = 1;

function request(method: string, params: Record<string, unknown> = {}): Record<string, unknown> {
  return { jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: ENVELOPE } };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const method = !Array.isArray(body) && typeof body === "object" && body !== null ? (body as { method?: string }).method : undefined;
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      ...(method !== undefined ? { "mcp-method": method } : {}),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function answer(response: Response): Promise<{ result?: Record<string, any>; error?: { code: number; message: string; data?: unknown } }> {
  return (await response.json()) as { result?: Record<string, any>; error?: { code: number; message: string } };
}

describe("the 2026-07-28 leg, stateful daemon", () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer({ skillsPaths: [EXAMPLE_SKILLS] });
  });
  afterAll(async () => running?.stop());

  it("server/discover names 2026-07-28, the capabilities and the server, with no session", async () => {
    const response = await post(`${running.url}/mcp`, request("server/discover"));
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    const { result } = await answer(response);
    expect(result!.supportedVersions).toEqual(["2026-07-28"]);
    expect(result!.capabilities).toMatchObject({ tools: {}, resources: { listChanged: true } });
    expect(result!._meta["io.modelcontextprotocol/serverInfo"].name).toBe("recipe-server-maya");
    expect(running.server.http.sessions?.size).toBe(0);
  });

  it("cache hints: the tool list is long-lived and public, the recipe lists short and private", async () => {
    const tools = (await answer(await post(`${running.url}/mcp`, request("tools/list")))).result!;
    expect(tools.ttlMs).toBeGreaterThanOrEqual(3_600_000);
    expect(tools.cacheScope).toBe("public");
    expect(tools.tools[0].inputSchema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    const resources = (await answer(await post(`${running.url}/mcp/maya`, request("resources/list")))).result!;
    expect(resources.resources.length).toBeGreaterThan(0);
    expect(resources.ttlMs).toBeLessThanOrEqual(10_000);
    expect(resources.cacheScope).toBe("private");
  });

  it("header/body disagreements are 400 -32020; an unsupported revision is 400 -32022 naming the supported one", async () => {
    const missing = await post(`${running.url}/mcp`, request("tools/list"), { "mcp-method": "" });
    expect(missing.status).toBe(400);
    expect((await answer(missing)).error!.code).toBe(-32020);
    const wrongName = await post(`${running.url}/mcp`, request("tools/call", { name: "recipes__list", arguments: {} }), { "mcp-name": "recipe" });
    expect(wrongName.status).toBe(400);
    expect((await answer(wrongName)).error!.code).toBe(-32020);
    const future = { ...request("tools/list"), params: { _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } } };
    const unsupported = await post(`${running.url}/mcp`, future, { "mcp-protocol-version": "2099-01-01" });
    expect(unsupported.status).toBe(400);
    const error = (await answer(unsupported)).error!;
    expect(error.code).toBe(-32022);
    expect(error.data).toMatchObject({ supported: ["2026-07-28"] });
  });

  it("unknown methods and the methods the revision removed are 404 -32601; an envelope-less request under a 2026 header is -32602", async () => {
    for (const method of ["no/such", "initialize", "ping", "logging/setLevel", "resources/subscribe"]) {
      const response = await post(`${running.url}/mcp`, request(method));
      expect(response.status, method).toBe(404);
      expect((await answer(response)).error!.code, method).toBe(-32601);
    }
    const bare = await post(`${running.url}/mcp`, { jsonrpc: "2.0", id: 99, method: "tools/list" }, { "mcp-method": "tools/list" });
    expect(bare.status).toBe(400);
    expect((await answer(bare)).error!.code).toBe(-32602);
  });

  it("tools/call answers from the registry: one write with a Content-Length; bad arguments an isError result; no tool -32602", async () => {
    const ok = await post(`${running.url}/mcp`, request("tools/call", { name: "recipes__search", arguments: { query: "smoke" } }), { "mcp-name": "recipes__search" });
    const text = await ok.text();
    expect(ok.status).toBe(200);
    expect(Number(ok.headers.get("content-length"))).toBe(Buffer.byteLength(text));
    const result = (JSON.parse(text) as { result: { isError: boolean; structuredContent: { success: boolean } } }).result;
    expect(result.isError).toBe(false);
    expect(result.structuredContent.success).toBe(true);
    const bad = await answer(await post(`${running.url}/mcp`, request("tools/call", { name: "recipes__get", arguments: { skill: 7 } }), { "mcp-name": "recipes__get" }));
    expect(bad.result!.isError).toBe(true);
    expect(bad.result!.structuredContent.error).toBe("invalid_input");
    const unknown = await answer(await post(`${running.url}/mcp`, request("tools/call", { name: "nope", arguments: {} }), { "mcp-name": "nope" }));
    expect(unknown.error!.code).toBe(-32602);
  });

  it("the guard stands in front: foreign Origin or Host 403, oversized body 413, batch over the cap 400", async () => {
    const origin = await post(`${running.url}/mcp`, request("tools/list"), { origin: "http://evil.example" });
    expect(origin.status).toBe(403);
    expect((await answer(origin)).error!.code).toBe(-32003);
    const huge = request("tools/call", { name: "recipes__search", arguments: { query: "x".repeat(5 * 1024 * 1024) } });
    const big = await post(`${running.url}/mcp`, huge, { "mcp-name": "recipes__search" });
    expect(big.status).toBe(413);
    await big.body?.cancel();
    const batch = Array.from({ length: 40 }, () => request("tools/list"));
    const tooMany = await post(`${running.url}/mcp`, batch);
    expect(tooMany.status).toBe(400);
    expect((await answer(tooMany)).error!.message).toMatch(/batch of 40 messages exceeds the limit/);
  });

  it("tool arguments over the argument cap are -32602, as on the 2025 leg", async () => {
    const huge = request("tools/call", { name: "recipes__search", arguments: { query: "x".repeat(1024 * 1024 + 10) } });
    const response = await answer(await post(`${running.url}/mcp`, huge, { "mcp-name": "recipes__search" }));
    expect(response.error!.code).toBe(-32602);
    expect(response.error!.message).toMatch(/exceed/);
  });
});

describe("with a bearer token", () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer({ skillsPaths: [EXAMPLE_SKILLS], env: { RECIPE_SERVER_TOKEN: "s3cret-token-value" } });
  });
  afterAll(async () => running?.stop());

  it("2026 requests without the token are 401; with it they are served", async () => {
    const refused = await post(`${running.url}/mcp`, request("server/discover"));
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
    await refused.body?.cancel();
    const served = await post(`${running.url}/mcp`, request("server/discover"), { authorization: "Bearer s3cret-token-value" });
    expect(served.status).toBe(200);
    await served.body?.cancel();
  });
});

describe("--stateless", () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--stateless"] });
  });
  afterAll(async () => running?.stop());

  it("changes the 2025 leg only: a pinned 2026 client connects, calls, and can still listen", async () => {
    const client = new Client({ name: "e2e", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
    try {
      const result = (await client.callTool({ name: "recipes__list", arguments: {} })) as { isError: boolean };
      expect(result.isError).toBe(false);
      const subscription = await client.listen({ resourcesListChanged: true });
      expect(subscription.honoredFilter.resourcesListChanged).toBe(true);
      await subscription.close();
    } finally {
      await client.close();
    }
  });
});

describe("shutdown", () => {
  it("ends open subscriptions/listen streams instead of waiting out the grace period", async () => {
    const running = await startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--request-timeout-ms", "60000"] });
    const client = new Client({ name: "e2e", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
    const subscription = await client.listen({ resourcesListChanged: true });
    // A grace far past the test's own time limit: a stream left open would hold this close
    // until the test fails, whatever the machine's speed (no clock is read).
    await running.server.http.close({ graceMs: 600_000 });
    expect(["graceful", "remote"]).toContain(await subscription.closed);
    await client.close();
    await running.stop();
  });
});
