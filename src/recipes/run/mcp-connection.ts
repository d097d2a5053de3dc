/**
 * The DCC's MCP endpoint through the SDK's own client (1.32.2,
 * StreamableHTTPClientTransport, protocol 2025-11-25 with the SDK's
 * fallback to older 2025 revisions): what today's adapters (dcc-mcp-maya,
 * dcc-mcp-blender …) speak. The only module of the run engine that touches
 * the network. Connects lazily, pings before each run (a DCC that restarted
 * lost our session: the connection is dropped and made again), caches
 * tools/list per connection (cleared on notifications/tools/list_changed),
 * and bounds every exchange so a DCC that accepts the connection but never
 * answers is `unavailable` within the connect bound.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { DccCallOutcome, DccConnection, DccOpenOutcome, DccReachability, DccTool } from "./types.js";

export interface McpEndpoint {
  readonly url: string;
  /** Sent with every request (a bearer token); never logged or echoed. */
  readonly headers: Readonly<Record<string, string>>;
}

interface Live {
  readonly client: Client;
  tools: ReadonlyMap<string, DccTool> | null;
}

/** A DCC listing more pages than this is refused: preflight must stay short. */
const MAX_TOOL_PAGES = 50;

export class McpDccConnection implements DccConnection {
  private live: Live | null = null;
  private state: DccReachability = "unknown";

  constructor(
    readonly dcc: string,
    private readonly endpoint: McpEndpoint,
    private readonly clientInfo: { readonly name: string; readonly version: string },
  ) {}

  reachability(): DccReachability {
    return this.state;
  }

  async open(options: { readonly timeoutMs: number; readonly signal?: AbortSignal }): Promise<DccOpenOutcome> {
    const deadline = performance.now() + options.timeoutMs;
    const left = (): number => Math.max(1, Math.floor(deadline - performance.now()));
    const signal = options.signal;
    try {
      let live = this.live;
      if (live !== null) {
        try {
          await live.client.ping({ timeout: left(), ...(signal ? { signal } : {}) });
        } catch (error) {
          if (signal?.aborted === true) throw error;
          // The DCC restarted (our session is gone) or the link broke: one fresh connection within what is left.
          await this.drop(live);
          live = null;
        }
      }
      live ??= await this.connect(left(), signal);
      live.tools ??= await this.listTools(live.client, left, signal);
      this.state = "answering";
      return { ok: true, tools: live.tools };
    } catch (error) {
      if (this.live !== null) await this.drop(this.live);
      this.state = "unavailable";
      return { ok: false, message: describe(error, this.endpoint.url) };
    }
  }

  async call(tool: string, args: Record<string, unknown>, options: { readonly timeoutMs: number; readonly signal?: AbortSignal }): Promise<DccCallOutcome> {
    const live = this.live;
    if (live === null) return { kind: "error", reason: "unavailable", message: "not connected" };
    try {
      const result = await live.client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: options.timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
      return {
        kind: "result",
        result: { isError: result.isError === true, content, ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}) },
      };
    } catch (error) {
      if (options.signal?.aborted === true) return { kind: "error", reason: "cancelled", message: "cancelled by the caller" };
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        return { kind: "error", reason: "timeout", message: `no answer within ${options.timeoutMs} ms` };
      }
      if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) {
        return { kind: "error", reason: "protocol", message: `the DCC refused the call (${error.code}): ${error.message.slice(0, 300)}` };
      }
      await this.drop(live);
      this.state = "unavailable";
      return { kind: "error", reason: "unavailable", message: describe(error, this.endpoint.url) };
    }
  }

  async close(): Promise<void> {
    if (this.live !== null) await this.drop(this.live);
  }

  private async connect(timeoutMs: number, signal: AbortSignal | undefined): Promise<Live> {
    const transport = new StreamableHTTPClientTransport(new URL(this.endpoint.url), {
      requestInit: { headers: { ...this.endpoint.headers } },
      // No reconnection loop of the GET stream behind the engine's back: the next run reconnects.
      reconnectionOptions: { maxReconnectionDelay: 30_000, initialReconnectionDelay: 1_000, reconnectionDelayGrowFactor: 1.5, maxRetries: 0 },
    });
    const client = new Client({ name: this.clientInfo.name, version: this.clientInfo.version }, { capabilities: {} });
    const live: Live = { client, tools: null };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      live.tools = null;
    });
    client.onclose = () => {
      if (this.live === live) this.live = null;
    };
    try {
      await client.connect(transport, { timeout: timeoutMs, ...(signal ? { signal } : {}) });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    this.live = live;
    return live;
  }

  private async listTools(client: Client, left: () => number, signal: AbortSignal | undefined): Promise<ReadonlyMap<string, DccTool>> {
    const tools = new Map<string, DccTool>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const listed = await client.listTools(cursor !== undefined ? { cursor } : {}, { timeout: left(), ...(signal ? { signal } : {}) });
      for (const tool of listed.tools) tools.set(tool.name, { name: tool.name, inputSchema: tool.inputSchema });
      cursor = listed.nextCursor;
      if (cursor === undefined) return tools;
    }
    throw new Error(`tools/list has more than ${MAX_TOOL_PAGES} pages`);
  }

  private async drop(live: Live): Promise<void> {
    if (this.live === live) this.live = null;
    await live.client.close().catch(() => undefined);
  }
}

/** A one-line reason naming the endpoint, never its headers. */
function describe(error: unknown, url: string): string {
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return `${url} did not answer in time`;
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return `${url}: ${message.split("\n")[0]!.slice(0, 200)}${cause.slice(0, 120)}`;
}
