/**
 * Hostile HTTP against the real daemon: every misuse gets its JSON-RPC shaped
 * status, and a well-behaved SDK client keeps being served throughout.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, connect, EXAMPLE_SKILLS, startServer, type RunningServer } from "./harness.js";
import { until } from "../helpers/until.js";

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "hostile", version: "1" } },
});

let running: RunningServer;
let polite: Client;

/** The well-behaved client must be answered after every hostile step. */
async function stillServing(): Promise<void> {
  const answer = await call(polite, "recipes__list", {});
  expect(answer.success).toBe(true);
}

async function post(body: string | Uint8Array, headers: Record<string, string> = MCP_HEADERS, path = "/mcp"): Promise<Response> {
  return fetch(`${running.url}${path}`, { method: "POST", headers, body });
}

async function expectRpcError(response: Response, status: number, code: number, message?: RegExp): Promise<void> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  const body = (await response.json()) as { jsonrpc: string; error: { code: number; message: string }; id: unknown };
  expect(body.jsonrpc).toBe("2.0");
  expect(body.id).toBeNull();
  expect(body.error.code).toBe(code);
  if (message) expect(body.error.message).toMatch(message);
}

beforeAll(async () => {
  running = await startServer({
    skillsPaths: [EXAMPLE_SKILLS],
    args: ["--max-sessions", "64", "--session-idle-ms", "5000", "--max-batch", "4", "--max-tool-argument-bytes", "2048"],
  });
  polite = await connect(running.url);
  await stillServing();
});

afterAll(async () => {
  await polite?.close();
  await running?.stop();
});

describe("hostile bodies", () => {
  it("malformed and empty JSON → 400 -32700", async () => {
    for (const body of ["{", '{"jsonrpc":"2.0",', "\u0000\u0001", "[1,2", "nul", " "]) {
      await expectRpcError(await post(body), 400, -32700, /Parse error/);
    }
    await stillServing();
  });

  it("wrong or missing content types → 415 -32600", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx", "text/json"]) {
      await expectRpcError(await post(INITIALIZE, { ...MCP_HEADERS, "content-type": type }), 415, -32600, /Content-Type/);
    }
    const bare = await fetch(`${running.url}/mcp`, { method: "POST", body: new Blob([INITIALIZE]) });
    await expectRpcError(bare, 415, -32600);
    await stillServing();
  });

  it("a 10 MiB body → 413 -32600, with and without Content-Length", async () => {
    const big = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(10 * 1024 * 1024)}"}}`;
    await expectRpcError(await post(big), 413, -32600, /exceeds the limit of 4194304 bytes/);
    // Chunked: no Content-Length up front, the limit trips while streaming.
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        const chunk = new TextEncoder().encode("x".repeat(1024 * 1024));
        for (let i = 0; i < 10; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const streamed = await fetch(`${running.url}/mcp`, {
      method: "POST",
      headers: MCP_HEADERS,
      body: chunks,
      duplex: "half",
    } as RequestInit & { duplex: "half" });
    await expectRpcError(streamed, 413, -32600);
    await stillServing();
  });

  it("batches over the cap and empty batches → 400 -32600", async () => {
    const ping = { jsonrpc: "2.0", method: "ping" };
    const five = JSON.stringify(Array.from({ length: 5 }, (_, i) => ({ ...ping, id: i })));
    await expectRpcError(await post(five), 400, -32600, /batch of 5 messages exceeds the limit of 4/);
    await expectRpcError(await post("[]"), 400, -32600, /empty batch/);
    await stillServing();
  });

  it("tool arguments over the byte cap → JSON-RPC -32602 on the session, which keeps working", async () => {
    const failure = await polite
      .callTool({ name: "recipes__search", arguments: { query: "x".repeat(4096) } })
      .then(() => null, (error: unknown) => error as { code?: number; message?: string });
    expect(failure?.code).toBe(-32602);
    expect(failure?.message).toMatch(/exceed 2048 bytes/);
    await stillServing();
  });
  it("tool arguments nested 5,000 deep, not an object, or with a constructor key → -32602 with our message on the daemon", async () => {
    const opened = await post(INITIALIZE);
    await opened.arrayBuffer();
    const headers = { ...MCP_HEADERS, "mcp-session-id": opened.headers.get("mcp-session-id") ?? "" };
    const deep = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`;
    for (const [args, reason] of [
      [deep, /tool arguments nest deeper than 128 levels/],
      ['"x"', /tool arguments must be an object/],
      ['{"constructor":1}', /"constructor" is not allowed/],
    ] as const) {
      const response = await post(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"recipes__search","arguments":${args}}}`, headers);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { id: unknown; error: { code: number; message: string } };
      expect(body.id).toBe(7);
      expect(body.error.code).toBe(-32602);
      expect(body.error.message).toMatch(reason);
    }
    await fetch(`${running.url}/mcp`, { method: "DELETE", headers: { "mcp-session-id": headers["mcp-session-id"] } });
    await stillServing();
  });
});

describe("hostile sessions", () => {
  it("unknown, malformed and foreign session ids → 404 -32001", async () => {
    for (const id of ["00000000-0000-0000-0000-000000000000", "nope", "x".repeat(4000), "../../etc/passwd"]) {
      const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
      await expectRpcError(await post(ping, { ...MCP_HEADERS, "mcp-session-id": id }), 404, -32001);
      const get = await fetch(`${running.url}/mcp`, { headers: { accept: "text/event-stream", "mcp-session-id": id } });
      await expectRpcError(get, 404, -32001);
    }
    await stillServing();
  });

  it("requests without a session that are not initialize → 400 -32600", async () => {
    await expectRpcError(await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })), 400, -32600);
    await expectRpcError(await fetch(`${running.url}/mcp`, { headers: { accept: "text/event-stream" } }), 400, -32600);
    await expectRpcError(await fetch(`${running.url}/nowhere`), 404, -32601);
    await stillServing();
  });

  it("DELETE twice: 200, then 404 -32001", async () => {
    const opened = await post(INITIALIZE);
    expect(opened.status).toBe(200);
    await opened.arrayBuffer();
    const id = opened.headers.get("mcp-session-id") ?? "";
    expect(id).not.toBe("");
    const first = await fetch(`${running.url}/mcp`, { method: "DELETE", headers: { "mcp-session-id": id } });
    expect(first.status).toBe(200);
    await expectRpcError(await fetch(`${running.url}/mcp`, { method: "DELETE", headers: { "mcp-session-id": id } }), 404, -32001);
    await stillServing();
  });

  it("1,000 sessions opened and abandoned: every initialize is admitted by evicting abandoned ones, the polite session is kept, the sweep frees the rest", async () => {
    const statuses: number[] = [];
    for (let wave = 0; wave < 10; wave++) {
      const batch = await Promise.all(
        Array.from({ length: 100 }, async () => {
          const response = await post(INITIALIZE);
          await response.arrayBuffer();
          return response.status;
        }),
      );
      statuses.push(...batch);
      await stillServing();
    }
    // Never locked out: the cap (64) evicts handshake-only sessions, least recently used first.
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const sessions = running.server.http.sessions!;
    expect(sessions.size).toBeLessThanOrEqual(64);
    const fresh = await connect(running.url);
    expect((await call(fresh, "recipes__list", {})).success).toBe(true);
    await fresh.close();
    // Abandoned sessions expire (idle 5 s, swept every 1.25 s); the polite one stays because it is used.
    await until(
      async () => {
        await stillServing();
        return sessions.size <= 1;
      },
      { timeoutMs: 30_000, stepMs: 200 },
    );
    expect(sessions.size).toBe(1);
    await stillServing();
  }, 90_000);
});

describe("spoofed Origin and Host", () => {
  it("foreign Origin or Host → 403 -32003; loopback names on any port pass", async () => {
    for (const origin of ["https://evil.example", "null", "http://127.0.0.1.evil.example"]) {
      await expectRpcError(await post(INITIALIZE, { ...MCP_HEADERS, origin }), 403, -32003, /Origin/);
    }
    // fetch refuses to set Host; a raw request does.
    const http = await import("node:http");
    const url = new URL(running.url);
    for (const host of ["evil.example", "evil.example:80", "attacker.localhost.example"]) {
      const status = await new Promise<number>((resolve, reject) => {
        const request = http.request(
          { host: url.hostname, port: url.port, path: "/mcp", method: "POST", headers: { ...MCP_HEADERS, host } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on("error", reject);
        request.end(INITIALIZE);
      });
      expect(status).toBe(403);
    }
    const ok = await post(INITIALIZE, { ...MCP_HEADERS, origin: "http://localhost:1234" });
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
    await stillServing();
  });
});

describe("requests Node would answer in its own shape", () => {
  it("regression: HTTP/1.1 without Host → JSON-RPC 400 (was an empty body); a URL that does not decode → JSON-RPC 400", async () => {
    const net = await import("node:net");
    const port = Number(new URL(running.url).port);
    const exchange = (payload: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, "127.0.0.1", () => socket.write(payload));
        let received = "";
        socket.on("data", (d: Buffer) => {
          received += d.toString();
          if (received.includes('"id":null}')) socket.end();
        });
        socket.on("close", () => resolve(received));
        socket.on("error", reject);
      });
    const noHost = await exchange('POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
    expect(noHost).toMatch(/^HTTP\/1\.1 400 /);
    expect(noHost).toContain('{"jsonrpc":"2.0","error":{"code":-32600,"message":"Bad Request: an HTTP/1.1 request needs a Host header"},"id":null}');
    const badUrl = await exchange("GET /mcp%zz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    expect(badUrl).toMatch(/^HTTP\/1\.1 400 /);
    expect(badUrl).toContain('"code":-32600');
    await stillServing();
  });
});

describe("slowloris", () => {
  it("half-sent headers and trickled bodies get 408 and are dropped while a polite client is served", async () => {
    const net = await import("node:net");
    const slow = await startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--request-timeout-ms", "1500"] });
    try {
      const port = Number(new URL(slow.url).port);
      const open = (payload: string) =>
        new Promise<{ closed: Promise<string> }>((resolve, reject) => {
          const socket = net.connect(port, "127.0.0.1", () => {
            socket.write(payload);
            let received = "";
            socket.on("data", (d: Buffer) => (received += d.toString()));
            // Wrapped: resolving with a bare promise would wait for the close.
            resolve({ closed: new Promise((done) => socket.on("close", () => done(received))) });
          });
          socket.on("error", reject);
        });
      const sockets = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          open(
            i % 2 === 0
              ? "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl"
              : "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n[",
          ),
        ),
      );
      const client = await connect(slow.url);
      expect((await call(client, "recipes__list", {})).success).toBe(true);
      for (const answer of await Promise.all(sockets.map((s) => s.closed))) {
        expect(answer).toMatch(/^HTTP\/1\.1 408 /);
        expect(answer).toContain('"code":-32600');
      }
      expect((await call(client, "recipes__list", {})).success).toBe(true);
      await client.close();
    } finally {
      await slow.stop();
    }
    await stillServing();
  });
});

describe("stateless mode", () => {
  it("GET and DELETE → 405 with Allow: POST; a POST stands alone", async () => {
    const stateless = await startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--stateless"] });
    try {
      for (const method of ["GET", "DELETE"]) {
        const response = await fetch(`${stateless.url}/mcp`, { method, headers: { accept: "text/event-stream" } });
        expect(response.headers.get("allow")).toBe("POST");
        await expectRpcError(response, 405, -32000, /stateless/);
      }
      const list = await fetch(`${stateless.url}/mcp`, {
        method: "POST",
        headers: MCP_HEADERS,
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(list.status).toBe(200);
      const body = (await list.json()) as { result: { tools: Array<{ name: string }> } };
      expect(body.result.tools.map((t) => t.name)).toContain("recipes__search");
      await expectRpcError(
        await fetch(`${stateless.url}/mcp`, { method: "POST", headers: MCP_HEADERS, body: "{oops" }),
        400,
        -32700,
      );
    } finally {
      await stateless.stop();
    }
    await stillServing();
  });
});
