/**
 * SessionManager through real initializes: the cap evicts the
 * least recently used idle session instead of refusing, a client's share
 * bounds what one client holds, the idle sweep spares a session with a
 * request in flight but not one that only holds a GET stream, and an evicted
 * or swept session's client gets 404.
 */
import http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { clientIdentity } from "../../../src/server/transport/sessions.js";
import { connectClient, INITIALIZE, MCP_HEADERS, rawInitialize, rpcError, startTestApp, type TestApp } from "./fixture.js";
import { until } from "../../helpers/until.js";

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ping = (sessionId: string) =>
  fetch(`${t!.url}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, "mcp-session-id": sessionId },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });

/** An initialize sent from another loopback address (127.0.0.x), i.e. another client. */
function initializeFrom(url: string, localAddress: string): Promise<{ status: number; sessionId: string | null }> {
  const target = new URL(`${url}/mcp`);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: target.hostname, port: target.port, path: target.pathname, method: "POST", localAddress, headers: MCP_HEADERS },
      (response) => {
        response.resume();
        response.on("end", () => {
          const id = response.headers["mcp-session-id"];
          resolve({ status: response.statusCode ?? 0, sessionId: typeof id === "string" ? id : null });
        });
      },
    );
    request.on("error", reject);
    request.end(JSON.stringify(INITIALIZE));
  });
}

describe("SessionManager", () => {
  it("300 initialize POSTs without DELETE: the cap evicts the least recently used idle session, and a new client connects and works", async () => {
    t = await startTestApp({ limits: { maxSessions: 32 } });
    const sessions = t.app.sessions!;
    const before = await connectClient(t.url);
    const beforeId = (before.transport as StreamableHTTPClientTransport).sessionId ?? "";
    await before.callTool({ name: "echo", arguments: {} });
    const statuses: number[] = [];
    const flood: string[] = [];
    for (let wave = 0; wave < 10; wave++) {
      const opened = await Promise.all(Array.from({ length: 30 }, () => rawInitialize(t!.url)));
      for (const o of opened) {
        statuses.push(o.status);
        if (o.sessionId !== null) flood.push(o.sessionId);
      }
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(sessions.size).toBeLessThanOrEqual(32);
    // The flood churned only abandoned handshakes: the client that used its session kept it.
    expect(sessions.get(beforeId)).toBeDefined();
    expect(((await before.callTool({ name: "echo", arguments: { a: 1 } })) as { content: Array<{ text: string }> }).content[0]?.text).toBe('{"a":1}');
    const late = await connectClient(t.url);
    expect(((await late.callTool({ name: "echo", arguments: { b: 2 } })) as { content: Array<{ text: string }> }).content[0]?.text).toBe('{"b":2}');
    // The oldest flood session was evicted: its client gets the 404 the MCP spec names.
    const evicted = await ping(flood[0]!);
    expect(evicted.status).toBe(404);
    expect((await rpcError(evicted)).code).toBe(-32001);
    expect(t.logLines().filter((l) => l.msg === "session evicted").length).toBeGreaterThanOrEqual(300 + 2 - 32);
    await before.close();
    await late.close();
  });

  it("sweeps an idle session holding a GET stream (its stream is closed), spares one with a request in flight", async () => {
    t = await startTestApp({ limits: { sessionIdleMs: 1000 } });
    const sessions = t.app.sessions!;
    const ids = await Promise.all([rawInitialize(t.url), rawInitialize(t.url), rawInitialize(t.url)]);
    const [idle, busy, streaming] = ids.map((r) => r.sessionId!) as [string, string, string];

    const call = fetch(`${t.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": busy },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "gate", arguments: {} } }),
    }).then((r) => r.text());
    const get = await fetch(`${t.url}/mcp`, { headers: { accept: "text/event-stream", "mcp-session-id": streaming } });
    expect(get.status).toBe(200);
    // Reading to the end only finishes when the server ends the stream.
    const streamEnded = get.text().then(() => "ended", () => "cut");
    await until(() => t!.gate.waiting === 1 && sessions.get(streaming)?.streams === 1);

    await pause(1100);
    // The periodic sweeper (every second here) may have run first: only the outcome is asserted.
    await sessions.sweep();
    expect(sessions.get(idle)).toBeUndefined();
    expect(sessions.get(streaming)).toBeUndefined();
    expect(sessions.get(busy)).toBeDefined();
    expect(await streamEnded).toBe("ended");
    for (const id of [idle, streaming]) {
      const gone = await ping(id);
      expect(gone.status).toBe(404);
      expect((await rpcError(gone)).code).toBe(-32001);
    }
    t.gate.open();
    expect(await call).toContain('"result"');
  });

  it("an SDK client's stream-holding session is evicted cleanly: the stream ends and the next call fails with 404", async () => {
    t = await startTestApp({ limits: { maxSessions: 4 } });
    const sessions = t.app.sessions!;
    const client = await connectClient(t.url);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId ?? "";
    await until(() => sessions.get(sessionId)?.streams === 1);
    await pause(5);
    await rawInitialize(t.url);
    // At this client's share (2 of 4): its SDK session, handshake only and least recently used, goes.
    expect((await rawInitialize(t.url)).status).toBe(200);
    expect(sessions.get(sessionId)).toBeUndefined();
    const failure = await client.callTool({ name: "echo", arguments: {} }).then(() => null, (error: unknown) => String(error));
    expect(failure).toMatch(/Session not found/);
    await client.close().catch(() => undefined);
  });

  it("evicts handshake-only sessions before used ones, least recently used first", async () => {
    // One client: its share (3 of 6) is the bound that evicts here.
    t = await startTestApp({ limits: { maxSessions: 6 } });
    const sessions = t.app.sessions!;
    const used = (await rawInitialize(t.url)).sessionId!;
    for (let i = 0; i < 2; i++) expect((await ping(used)).status).toBe(200);
    const first = (await rawInitialize(t.url)).sessionId!;
    await pause(5);
    const second = (await rawInitialize(t.url)).sessionId!;
    await rawInitialize(t.url);
    // `used` is the least recently used, but it made requests: the oldest handshake-only one goes.
    expect(sessions.get(first)).toBeUndefined();
    expect(sessions.get(second)).toBeDefined();
    expect(sessions.get(used)).toBeDefined();
  });

  it("one client cannot take the whole cap: past its share it evicts its own sessions, never another client's", async () => {
    t = await startTestApp({ limits: { maxSessions: 8 } });
    const sessions = t.app.sessions!;
    expect(sessions.maxPerClient).toBe(4);
    const other = await Promise.all([initializeFrom(t.url, "127.0.0.3"), initializeFrom(t.url, "127.0.0.3")]);
    for (let i = 0; i < 50; i++) expect((await initializeFrom(t.url, "127.0.0.2")).status).toBe(200);
    expect(sessions.heldBy("127.0.0.2")).toBe(4);
    for (const o of other) expect(sessions.get(o.sessionId!)).toBeDefined();
    // A third client still gets in, and so does the second one again.
    expect((await initializeFrom(t.url, "127.0.0.4")).status).toBe(200);
    expect((await initializeFrom(t.url, "127.0.0.3")).status).toBe(200);
    expect(sessions.heldBy("127.0.0.3")).toBe(3);
  });

  it("answers 503 only when every session it could evict has a request in flight", async () => {
    t = await startTestApp({ limits: { maxSessions: 2 } });
    const ids = [(await initializeFrom(t.url, "127.0.0.2")).sessionId!, (await initializeFrom(t.url, "127.0.0.3")).sessionId!];
    const calls = ids.map((id) =>
      fetch(`${t!.url}/mcp`, {
        method: "POST",
        headers: { ...MCP_HEADERS, "mcp-session-id": id },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "gate", arguments: {} } }),
      }).then((r) => r.text()),
    );
    await until(() => t!.gate.waiting === 2);
    const refused = await fetch(`${t.url}/mcp`, { method: "POST", headers: MCP_HEADERS, body: JSON.stringify(INITIALIZE) });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect((await rpcError(refused)).message).toMatch(/Too many live sessions \(max 2\): none can be evicted now/);
    // Its own share full of busy sessions: refused for that reason.
    const own = await initializeFrom(t.url, "127.0.0.2");
    expect(own.status).toBe(503);
    t.gate.open();
    await Promise.all(calls);
    expect((await rawInitialize(t.url)).status).toBe(200);
  });

  it("DELETE frees a slot, and DELETE twice answers 404 the second time", async () => {
    t = await startTestApp({ limits: { maxSessions: 2 } });
    const a = await rawInitialize(t.url);
    expect(a.status).toBe(200);
    expect(t.app.sessions!.heldBy("127.0.0.1")).toBe(1);
    const del = () => fetch(`${t!.url}/mcp`, { method: "DELETE", headers: { "mcp-session-id": a.sessionId! } });
    expect((await del()).status).toBe(200);
    expect(t.app.sessions!.size).toBe(0);
    expect(t.app.sessions!.heldBy("127.0.0.1")).toBe(0);
    const again = await del();
    expect(again.status).toBe(404);
    expect((await rpcError(again)).code).toBe(-32001);
  });

  it("an initialize that fails does not leak a pending slot or a client's share", async () => {
    t = await startTestApp({ limits: { maxSessions: 1 } });
    for (let i = 0; i < 5; i++) {
      const bad = await fetch(`${t.url}/mcp`, {
        method: "POST",
        headers: MCP_HEADERS,
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 42 } }),
      });
      expect(bad.status).toBeGreaterThanOrEqual(400);
      await bad.arrayBuffer();
    }
    await until(() => t!.app.sessions!.heldBy("127.0.0.1") === 0);
    expect((await rawInitialize(t.url)).status).toBe(200);
  });
});

describe("clientIdentity", () => {
  it("is the peer address; a bearer token counts only when the server checks tokens", () => {
    expect(clientIdentity("127.0.0.1", "Bearer a", false)).toBe(clientIdentity("127.0.0.1", "Bearer b", false));
    expect(clientIdentity("127.0.0.1", "Bearer a", true)).not.toBe(clientIdentity("127.0.0.1", "Bearer b", true));
    expect(clientIdentity("10.0.0.1", undefined, true)).toBe("10.0.0.1");
    // Only a digest prefix of the token is kept.
    expect(clientIdentity("10.0.0.1", "Bearer s3cret", true)).not.toContain("s3cret");
  });
});
