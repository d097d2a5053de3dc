/**
 * The HTTP app under load and misuse, with controllable tools: tool-call
 * timeouts, per-session fairness under a flood, graceful drain, slowloris
 * sockets, log lines, and /metrics.
 */
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createServerMetrics } from "../../../src/server/metrics.js";
import { connectClient, MCP_HEADERS, rawInitialize, rpcError, startTestApp, type TestApp } from "./fixture.js";
import { until } from "../../helpers/until.js";

let running: TestApp[] = [];
afterEach(async () => {
  await Promise.all(running.map((t) => t.close()));
  running = [];
});

async function start(options: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  const app = await startTestApp(options);
  running.push(app);
  return app;
}

function text(result: unknown): string {
  return (result as { content: Array<{ text: string }> }).content[0]?.text ?? "";
}

describe("tool-call timeout", () => {
  it("answers a JSON-RPC internal error when a handler outlives the limit, and the session keeps working", async () => {
    const events: Array<{ tool: string; success: boolean; error?: string }> = [];
    const t = await start({ toolTimeoutMs: 200, onToolCall: (e) => events.push(e) });
    const client = await connectClient(t.url);
    const failure = await client.callTool({ name: "sleep", arguments: { ms: 60_000 } }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(McpError);
    expect((failure as McpError).code).toBe(-32603);
    expect((failure as McpError).message).toMatch(/time limit of 200 ms/);
    expect(events).toContainEqual(expect.objectContaining({ tool: "sleep", success: false, error: "timeout" }));
    expect(text(await client.callTool({ name: "echo", arguments: { a: 1 } }))).toBe('{"a":1}');
    await client.close();
  });

  it("times out a call whose context takes no signal (no per-call signal is made) the same way", async () => {
    const events: Array<{ tool: string; success: boolean; error?: string }> = [];
    const t = await start({ toolTimeoutMs: 200, signallessContext: true, onToolCall: (e) => events.push(e) });
    const client = await connectClient(t.url);
    // Nothing aborts this sleep: only the timeout can answer before it ends.
    const failure = await client.callTool({ name: "sleep", arguments: { ms: 2_000 } }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(McpError);
    expect((failure as McpError).code).toBe(-32603);
    expect(events).toContainEqual(expect.objectContaining({ tool: "sleep", success: false, error: "timeout" }));
    expect(text(await client.callTool({ name: "sleep", arguments: { ms: 10 } }))).toBe("slept");
    await client.close();
  });

  it("does not time out a call that finishes in time", async () => {
    const t = await start({ toolTimeoutMs: 5_000 });
    const client = await connectClient(t.url);
    expect(text(await client.callTool({ name: "sleep", arguments: { ms: 10 } }))).toBe("slept");
    await client.close();
  });
});

describe("one session flooding does not starve another", () => {
  it("caps the flooding session with 429 while a second session is answered", async () => {
    const t = await start({ limits: { maxConcurrentPerSession: 4 } });
    const flooder = await connectClient(t.url);
    const polite = await connectClient(t.url);
    let refused = 0;
    const flood = Array.from({ length: 40 }, () =>
      flooder.callTool({ name: "gate", arguments: {} }).then(
        (r) => text(r),
        (error: unknown) => {
          refused += 1;
          return String(error);
        },
      ),
    );
    // Every flood request has reached the server: 4 parked on the gate, 36 refused.
    await until(() => refused === 36);
    expect(t.gate.waiting).toBe(4);
    for (let i = 0; i < 5; i++) {
      expect(text(await polite.callTool({ name: "echo", arguments: { i } }))).toBe(`{"i":${i}}`);
    }
    t.gate.open();
    const results = await Promise.all(flood);
    expect(results.filter((r) => r === "opened")).toHaveLength(4);
    for (const r of results.filter((r) => r !== "opened")) expect(r).toMatch(/Too many concurrent requests on this session \(max 4\)/);
    await flooder.close();
    await polite.close();
  });

  it("does not count the session's GET stream against the concurrency cap", async () => {
    const t = await start({ limits: { maxConcurrentPerSession: 1 } });
    // The SDK client opens the GET stream right after initialize.
    const client = await connectClient(t.url);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId ?? "";
    await until(() => t.app.sessions?.get(sessionId)?.streams === 1);
    expect(text(await client.callTool({ name: "echo", arguments: {} }))).toBe("{}");
    await client.close();
  });
});

describe("graceful close", () => {
  it("lets an in-flight call finish, refuses new connections, then closes", async () => {
    const t = await startTestApp();
    const client = await connectClient(t.url);
    const pending = client.callTool({ name: "gate", arguments: {} });
    await until(() => t.gate.waiting === 1);
    expect(t.app.inFlight()).toBe(1);
    let closed = false;
    const closing = t.app.close({ graceMs: 10_000 }).then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(false);
    await expect(fetch(`${t.url}/healthz`)).rejects.toThrow();
    t.gate.open();
    expect(text(await pending)).toBe("opened");
    await closing;
    expect(closed).toBe(true);
    await client.close().catch(() => undefined);
  });

  it("stops waiting after the grace period when a call never finishes", async () => {
    const t = await startTestApp();
    const { sessionId } = await rawInitialize(t.url);
    const pending = fetch(`${t.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": sessionId ?? "" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "gate", arguments: {} } }),
    })
      .then((r) => r.text())
      .then(
        (body) => (body.includes('"result"') ? "answered" : "cut"),
        () => "cut",
      );
    await until(() => t.gate.waiting === 1);
    await t.app.close({ graceMs: 200 });
    expect(await pending).toBe("cut");
    expect(t.logLines().some((l) => l.msg === "shutdown grace elapsed with requests in flight")).toBe(true);
    t.gate.open();
  });
});

describe("slowloris", () => {
  function slowSocket(port: number, payload: string): Promise<{ closed: Promise<string> }> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.write(payload);
        let received = "";
        socket.on("data", (d: Buffer) => (received += d.toString()));
        resolve({ closed: new Promise((done) => socket.on("close", () => done(received))) });
      });
      socket.on("error", reject);
    });
  }

  it("answers 408 and drops half-sent headers and trickled bodies while serving others", async () => {
    const t = await start({ limits: { requestTimeoutMs: 1_000 } });
    const port = Number(new URL(t.url).port);
    const halfHeaders = await slowSocket(port, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n");
    const halfBody = await slowSocket(
      port,
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"jsonrpc\":",
    );
    const client = await connectClient(t.url);
    expect(text(await client.callTool({ name: "echo", arguments: { x: 1 } }))).toBe('{"x":1}');
    const [headersAnswer, bodyAnswer] = await Promise.all([halfHeaders.closed, halfBody.closed]);
    for (const answer of [headersAnswer, bodyAnswer]) {
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as { error: { code: number; message: string } };
      expect(body.error).toEqual({ code: -32600, message: "Request timeout: the request was not received in time" });
    }
    expect(text(await client.callTool({ name: "echo", arguments: { x: 2 } }))).toBe('{"x":2}');
    await client.close();
  });
});

describe("malformed HTTP", () => {
  async function rawExchange(port: number, payload: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1", () => socket.end(payload));
      let received = "";
      socket.on("data", (d: Buffer) => (received += d.toString()));
      socket.on("close", () => resolve(received));
      socket.on("error", reject);
    });
  }

  it("answers a garbage request line and oversized headers with JSON-RPC bodies, then keeps serving", async () => {
    const t = await start();
    const port = Number(new URL(t.url).port);
    const garbage = await rawExchange(port, "BLAH\x00 / HTTP/9.9\r\n\r\n");
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(garbage).toContain('"code":-32600');
    const huge = await rawExchange(port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(64 * 1024)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(huge).toContain('"code":-32600');
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  });
});

describe("logs", () => {
  it("writes one request line with a reqId and one tool-call line without argument values", async () => {
    const t = await start();
    const client = await connectClient(t.url);
    await client.callTool({ name: "echo", arguments: { secret: "SECRET-ARGUMENT-VALUE" } });
    await client.close();
    await until(() => t.logLines().some((l) => l.msg === "tool call"));
    const toolLine = t.logLines().find((l) => l.msg === "tool call");
    expect(toolLine).toMatchObject({ tool: "echo", success: true, level: 30 });
    expect(typeof toolLine?.ms).toBe("number");
    expect(typeof toolLine?.callId).toBe("string");
    const requestLines = t.logLines().filter((l) => l.msg === "request");
    expect(requestLines.length).toBeGreaterThan(0);
    for (const line of requestLines) expect(line.reqId).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(requestLines.map((l) => l.reqId)).size).toBe(requestLines.length);
    expect(JSON.stringify(t.logLines())).not.toContain("SECRET-ARGUMENT-VALUE");
  });
});

describe("/metrics", () => {
  it("serves this app's registry in Prometheus text format", async () => {
    const metrics = createServerMetrics({ catalogs: () => [], processMetrics: false });
    const t = await start({ metrics, onToolCall: (e) => metrics.observeToolCall(e) });
    const client = await connectClient(t.url);
    await client.callTool({ name: "echo", arguments: {} });
    const response = await fetch(`${t.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const body = await response.text();
    expect(body).toMatch(/^recipe_server_tool_calls_total\{tool="echo",outcome="success",error=""\} 1$/m);
    expect(body).toMatch(/^recipe_server_sessions 1$/m);
    expect(body).toMatch(/^recipe_server_http_requests_total\{route="\/mcp",method="POST",status="200"\} \d+$/m);
    await client.close();
  });

  it("is absent when no metrics are configured", async () => {
    const t = await start();
    expect((await fetch(`${t.url}/metrics`)).status).toBe(404);
  });
});

describe("sessions over raw HTTP", () => {
  it("at the session cap an initialize evicts the least recently used idle session instead of answering 503", async () => {
    const t = await start({ limits: { maxSessions: 3 } });
    const first = await rawInitialize(t.url);
    for (let i = 0; i < 3; i++) expect((await rawInitialize(t.url)).status).toBe(200);
    expect(t.app.sessions?.size).toBeLessThanOrEqual(3);
    const gone = await fetch(`${t.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": first.sessionId ?? "" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(gone.status).toBe(404);
    expect((await rpcError(gone)).code).toBe(-32001);
  });
});
