/**
 * SessionManager through real initializes: the cap, the idle sweep that
 * spares sessions with a request in flight or an open GET stream, and the
 * 404 a swept session's client gets.
 */
import { afterEach, describe, expect, it } from "vitest";
import { MCP_HEADERS, rawInitialize, rpcError, startTestApp, type TestApp } from "./fixture.js";

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("SessionManager", () => {
  it("sweeps idle sessions but spares one with a request in flight or an open stream", async () => {
    t = await startTestApp({ limits: { sessionIdleMs: 1000 } });
    const sessions = t.app.sessions!;
    const ids = await Promise.all([rawInitialize(t.url), rawInitialize(t.url), rawInitialize(t.url)]);
    const [idle, busy, streaming] = ids.map((r) => r.sessionId!) as [string, string, string];
    expect(sessions.size).toBe(3);

    // busy: a tools/call parked on the gate; streaming: an open GET stream.
    const call = fetch(`${t.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": busy },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "gate", arguments: {} } }),
    }).then((r) => r.text());
    const stream = new AbortController();
    const get = await fetch(`${t.url}/mcp`, {
      headers: { accept: "text/event-stream", "mcp-session-id": streaming },
      signal: stream.signal,
    });
    expect(get.status).toBe(200);
    while (t.gate.waiting < 1) await pause(10);
    expect(sessions.get(busy)?.inFlight).toBe(1);
    expect(sessions.get(streaming)?.streams).toBe(1);

    await pause(1100);
    expect(await sessions.sweep()).toBe(1);
    expect(sessions.get(idle)).toBeUndefined();
    expect(sessions.get(busy)).toBeDefined();
    expect(sessions.get(streaming)).toBeDefined();

    const gone = await fetch(`${t.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": idle },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(gone.status).toBe(404);
    expect((await rpcError(gone)).code).toBe(-32001);

    t.gate.open();
    expect(await call).toContain('"result"');
    stream.abort();
    while (sessions.get(streaming)?.streams !== 0) await pause(10);
    await pause(1100);
    expect(await sessions.sweep()).toBe(2);
    expect(sessions.size).toBe(0);
  });

  it("frees capacity when sessions are deleted, and DELETE twice answers 404 the second time", async () => {
    t = await startTestApp({ limits: { maxSessions: 2 } });
    const a = await rawInitialize(t.url);
    const b = await rawInitialize(t.url);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect((await rawInitialize(t.url)).status).toBe(503);
    const del = () => fetch(`${t!.url}/mcp`, { method: "DELETE", headers: { "mcp-session-id": a.sessionId! } });
    expect((await del()).status).toBe(200);
    const again = await del();
    expect(again.status).toBe(404);
    expect((await rpcError(again)).code).toBe(-32001);
    expect((await rawInitialize(t.url)).status).toBe(200);
  });

  it("an initialize that fails does not leak a pending slot", async () => {
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
    expect((await rawInitialize(t.url)).status).toBe(200);
  });
});
