/**
 * The era decision of modern-leg.ts (classification from the parsed body and
 * three headers) against the SDK's own `isLegacyRequest` on a full web
 * Request: the two must agree on every shape of request a client can send.
 * And notifyFor(): with a users file, one user's list change reaches that
 * user's subscriptions/listen streams only (the v2 client, over real HTTP).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { isLegacyRequest, Server } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { createModernLeg, type ModernLeg, type ModernRequest } from "../../../src/server/transport/modern-leg.js";

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

const CASES: Array<[string, ModernRequest]> = [
  ["initialize", post({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } })],
  ["2025 tools/list in a session", post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": "abc", "mcp-protocol-version": "2025-11-25" })],
  ["2025 notification", post({ jsonrpc: "2.0", method: "notifications/initialized" })],
  ["2025 batch", post([{ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", id: 2, method: "tools/list" }])],
  ["posted response", post({ jsonrpc: "2.0", id: 9, result: {} })],
  ["2026 server/discover", post({ jsonrpc: "2.0", id: 3, method: "server/discover", params: { _meta: ENVELOPE } }, modern("server/discover"))],
  ["2026 tools/call", post({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "x", arguments: {}, _meta: ENVELOPE } }, { ...modern("tools/call"), "mcp-name": "x" })],
  ["2026 claim without headers", post({ jsonrpc: "2.0", id: 5, method: "tools/list", params: { _meta: ENVELOPE } })],
  ["2026 header without the envelope", post({ jsonrpc: "2.0", id: 6, method: "tools/list" }, modern("tools/list"))],
  ["unknown revision claimed", post({ jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } } })],
  ["2026 notification", post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, _meta: ENVELOPE } }, modern("notifications/cancelled"))],
  // Shapes at the edges of the two shortcuts claims() takes before asking the SDK.
  ["2025 tools/call with a progress token", post({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "x", arguments: {}, _meta: { progressToken: 1 } } }, { "mcp-protocol-version": "2025-11-25" })],
  ["2025 request with an extra member", post({ jsonrpc: "2.0", id: 10, method: "tools/list", extra: 1 })],
  ["2025 request with id null", post({ jsonrpc: "2.0", id: null, method: "tools/list" })],
  ["2025 request with a fractional id", post({ jsonrpc: "2.0", id: 1.5, method: "tools/list" })],
  ["2025 request with params null", post({ jsonrpc: "2.0", id: 11, method: "tools/list", params: null })],
  ["2025 request without jsonrpc", post({ id: 12, method: "tools/list" })],
  ["a padded 2025 header", post({ jsonrpc: "2.0", id: 13, method: "tools/list" }, { "mcp-protocol-version": " 2025-11-25 " })],
  ["a padded 2026 header without the envelope", post({ jsonrpc: "2.0", id: 14, method: "tools/list" }, { "mcp-protocol-version": " 2026-07-28" })],
  ["initialize claiming 2026", post({ jsonrpc: "2.0", id: 15, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" }, _meta: ENVELOPE } })],
  ["initialize claiming 2025 in the envelope", post({ jsonrpc: "2.0", id: 16, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" }, _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2025-11-25" } } })],
  ["a claim naming 2025", post({ jsonrpc: "2.0", id: 17, method: "tools/list", params: { _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2025-11-25" } } })],
  ["a malformed claim", post({ jsonrpc: "2.0", id: 18, method: "tools/list", params: { _meta: { "io.modelcontextprotocol/protocolVersion": 7 } } })],
  ["a 2026 notification without id and a malformed envelope", post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { _meta: { "io.modelcontextprotocol/protocolVersion": null } } })],
  ["_meta not an object", post({ jsonrpc: "2.0", id: 19, method: "tools/list", params: { _meta: 5 } })],
  ["GET stream", { method: "GET", url: "/mcp", headers: { host: "127.0.0.1", accept: "text/event-stream" }, body: undefined }],
  ["DELETE", { method: "DELETE", url: "/mcp", headers: { host: "127.0.0.1", "mcp-session-id": "abc" }, body: undefined }],
];

function modern(method: string): Record<string, string> {
  return { "mcp-protocol-version": "2026-07-28", "mcp-method": method };
}

function post(body: unknown, headers: Record<string, string> = {}): ModernRequest {
  return { method: "POST", url: "/mcp", headers: { host: "127.0.0.1", "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body };
}

function webRequest(request: ModernRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(name, value);
  return new Request(`http://127.0.0.1${request.url}`, {
    method: request.method,
    headers,
    ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
  });
}

describe("modern-leg claims()", () => {
  const leg = createModernLeg({ createServer: () => new Server({ name: "t", version: "1" }), maxBodyBytes: 4 * 1024 * 1024 });

  for (const [label, request] of CASES) {
    it(`agrees with isLegacyRequest: ${label}`, async () => {
      const legacy = await isLegacyRequest(webRequest(request));
      expect(leg.claims(request)).toBe(!legacy);
    });
  }

  it("both kinds are in the table (the table can fail either way)", async () => {
    const verdicts = await Promise.all(CASES.map(([, request]) => isLegacyRequest(webRequest(request))));
    expect(verdicts).toContain(true);
    expect(verdicts).toContain(false);
  });
});

describe("modern-leg notifyFor()", () => {
  // A bare node:http server in front of the leg (no fastify): the token names the caller, as the guard would.
  async function serveLeg(): Promise<{ leg: ModernLeg; url: string; users: Set<string | undefined>; close(): Promise<void> }> {
    const users = new Set<string | undefined>();
    const leg = createModernLeg({
      createServer: (user) => {
        users.add(user);
        return new Server({ name: "t", version: "1" }, { capabilities: { resources: { listChanged: true }, prompts: { listChanged: true } } });
      },
      maxBodyBytes: 1024 * 1024,
    });
    const server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      req.on("end", () => {
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
        const auth = token === undefined ? undefined : { token: "", clientId: token, scopes: [] };
        void leg.serve({ method: req.method ?? "POST", url: req.url ?? "/", headers: req.headers, body: body === "" ? undefined : JSON.parse(body) }, res, auth);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return {
      leg,
      url: `http://127.0.0.1:${port}/mcp`,
      users,
      async close() {
        leg.endListenStreams();
        await leg.close();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      },
    };
  }

  async function listener(url: string, user: string | null): Promise<{ log: string[]; close(): Promise<void> }> {
    const log: string[] = [];
    const client = new Client({ name: "t", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), user === null ? {} : { requestInit: { headers: { authorization: `Bearer ${user}` } } }));
    client.setNotificationHandler("notifications/resources/list_changed", () => void log.push("r"));
    client.setNotificationHandler("notifications/prompts/list_changed", () => void log.push("p"));
    const subscription = await client.listen({ resourcesListChanged: true, promptsListChanged: true });
    return { log, close: async () => (await subscription.close(), await client.close()) };
  }

  it("one user's notice reaches that user's listen streams only; notify and notifyFor(undefined) reach every stream", async () => {
    const t = await serveLeg();
    const [alice, alice2, bob, anonymous] = await Promise.all([listener(t.url, "alice"), listener(t.url, "alice"), listener(t.url, "bob"), listener(t.url, null)]);
    try {
      expect([...t.users].sort()).toEqual(["alice", "bob", undefined]);
      t.leg.notifyFor("alice").resourcesChanged();
      t.leg.notifyFor("carol").resourcesChanged(); // nobody of that name is listening: a no-op
      // The marker, on every stream after the notices above: once a stream has it, it has all it was sent before.
      t.leg.notify.promptsChanged();
      await expect.poll(() => [alice, alice2, bob, anonymous].every(({ log }) => log.includes("p")), { timeout: 10_000 }).toBe(true);
      expect([alice.log, alice2.log, bob.log, anonymous.log]).toEqual([["r", "p"], ["r", "p"], ["p"], ["p"]]);
      t.leg.notifyFor(undefined).resourcesChanged();
      await expect.poll(() => [alice, alice2, bob, anonymous].map(({ log }) => log.join("")), { timeout: 10_000 }).toEqual(["rpr", "rpr", "pr", "pr"]);
    } finally {
      await Promise.all([alice, alice2, bob, anonymous].map((l) => l.close()));
      await t.close();
    }
  });
});
