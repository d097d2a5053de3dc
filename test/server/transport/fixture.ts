/**
 * A real HTTP app on 127.0.0.1:0 serving a tiny tool registry with
 * controllable tools (fast echo, a sleep that honours its abort signal, a
 * gate that waits until the test opens it), so limits, timeouts and drains
 * can be driven deterministically without the recipe catalog.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import pino, { type Logger } from "pino";
import { Writable } from "node:stream";
import { buildHttpApp, type HttpApp, type HttpLimits } from "../../../src/server/transport/http-app.js";
import type { GuardOptions } from "../../../src/server/transport/guard.js";
import { endpointServers } from "../../../src/server/protocol/endpoint.js";
import type { ToolCallObserver } from "../../../src/server/protocol/surface.js";
import type { ServerMetrics } from "../../../src/server/metrics.js";
import type { ToolCallOutcome, ToolRegistry } from "../../../src/server/tools/registry.js";

export const TEST_LIMITS: HttpLimits = {
  bodyLimitBytes: 64 * 1024,
  maxSessions: 8,
  sessionIdleMs: 60_000,
  maxBatch: 4,
  maxConcurrentPerSession: 4,
  requestTimeoutMs: 2_000,
  maxConnections: 256,
  maxToolArgumentBytes: 4096,
};

/** A latch tool calls wait on: `open()` releases every waiting call and every later one. */
export class Gate {
  waiting = 0;
  private opened = false;
  private release: Array<() => void> = [];
  wait(): Promise<void> {
    this.waiting += 1;
    if (this.opened) return Promise.resolve();
    return new Promise((resolve) => this.release.push(resolve));
  }
  open(): void {
    this.opened = true;
    for (const r of this.release.splice(0)) r();
  }
}

export interface TestApp {
  readonly app: HttpApp;
  readonly url: string;
  readonly gate: Gate;
  readonly logLines: () => Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  readonly limits?: Partial<HttpLimits>;
  readonly guard?: Partial<GuardOptions>;
  readonly stateless?: boolean;
  readonly toolTimeoutMs?: number;
  /** contextFor declared without a parameter (as the recipe tools'): no per-call signal, tools get one never aborted. */
  readonly signallessContext?: boolean;
  readonly metrics?: ServerMetrics;
  readonly onToolCall?: ToolCallObserver;
}

function ok(text: string): ToolCallOutcome {
  return { kind: "result", success: true, result: { content: [{ type: "text", text }], isError: false } };
}

const NEVER_ABORTED = new AbortController().signal;

function testRegistry(gate: Gate): ToolRegistry<{ signal: AbortSignal }> {
  const tools = {
    echo: async (args: Record<string, unknown>) => ok(JSON.stringify(args)),
    sleep: (args: Record<string, unknown>, context: { signal: AbortSignal }) =>
      new Promise<ToolCallOutcome>((resolve) => {
        const timer = setTimeout(() => resolve(ok("slept")), Number(args.ms ?? 0));
        context.signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
      }),
    gate: async () => {
      await gate.wait();
      return ok("opened");
    },
  } as const;
  type Name = keyof typeof tools;
  return {
    list: () =>
      Object.keys(tools).map((name) => ({
        name,
        title: name,
        description: name,
        inputSchema: { type: "object" },
        annotations: { title: name, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      })),
    has: (name) => name in tools,
    async call(name, args, context) {
      if (!(name in tools)) return { kind: "unknown_tool" };
      return tools[name as Name](args as Record<string, unknown>, context);
    },
  };
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split("\n")) if (line.trim() !== "") lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  const logger: Logger = pino({ level: "info" }, sink);
  const gate = new Gate();
  const registry = testRegistry(gate);
  const limits = { ...TEST_LIMITS, ...options.limits };
  const { createServer } = endpointServers({
    name: "test",
    version: "0.0.0",
    tools: {
      registry,
      contextFor: options.signallessContext === true ? () => ({ signal: NEVER_ABORTED }) : (call) => ({ signal: call.signal }),
      logger,
      ...(options.toolTimeoutMs !== undefined ? { timeoutMs: options.toolTimeoutMs } : {}),
      ...(options.onToolCall !== undefined ? { onToolCall: options.onToolCall } : {}),
    },
  });
  const metrics = options.metrics;
  const app = buildHttpApp({
    endpoints: [{ path: "/mcp", createServer }],
    guard: { bindHost: "127.0.0.1", bindIsLoopback: true, allowedOrigins: [], token: null, ...options.guard },
    stateless: options.stateless ?? false,
    limits,
    logger,
    readiness: () => ({ ready: true, body: {} }),
    ...(metrics !== undefined
      ? {
          metrics,
          onRequestDone: (event: Parameters<ServerMetrics["observeRequest"]>[0]) => metrics.observeRequest(event),
          onSessionCount: (count: number) => metrics.setSessions(count),
        }
      : {}),
  });
  const { url } = await app.listen(0, "127.0.0.1");
  return {
    app,
    url,
    gate,
    logLines: () => lines,
    async close() {
      gate.open();
      await app.close({ graceMs: 1000 });
    },
  };
}

export async function connectClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "http-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return client;
}

export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
} as const;

export const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
} as const;

/** POST an initialize with fetch; returns the session id (or null) and the status. */
export async function rawInitialize(url: string, headers: Record<string, string> = {}): Promise<{ status: number; sessionId: string | null }> {
  const response = await fetch(`${url}/mcp`, { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(INITIALIZE) });
  await response.arrayBuffer();
  return { status: response.status, sessionId: response.headers.get("mcp-session-id") };
}

export async function rpcError(response: Response): Promise<{ code: number; message: string }> {
  const body = (await response.json()) as { jsonrpc: string; error: { code: number; message: string }; id: unknown };
  if (body.jsonrpc !== "2.0" || body.error === undefined) throw new Error(`not a JSON-RPC error: ${JSON.stringify(body)}`);
  return body.error;
}
