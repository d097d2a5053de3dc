/**
 * The DCC's MCP endpoint through the SDKs' own clients, whichever revision
 * it speaks: 2025-11-25 through SDK 1.32.2 (what today's adapters, dcc-mcp-maya,
 * dcc-mcp-blender …, speak; session-2025.ts), and 2026-07-28 through the v2
 * client (session-2026.ts) when the endpoint refuses the 2025 revision. The
 * revision that answered is tried first on the next connection. The only
 * module of the run engine that touches the network. Connects lazily, pings
 * before each run (a DCC that restarted lost our session: the connection is
 * dropped and made again), caches tools/list per connection (cleared on
 * notifications/tools/list_changed), and bounds every exchange so a DCC that
 * accepts the connection but never answers is `unavailable` within the
 * connect bound.
 */
import type { Bounds, DccSession, SessionOpened, SessionTarget } from "./dcc-session.js";
import { openSession2025 } from "./session-2025.js";
import type { DccCallOutcome, DccConnection, DccOpenOutcome, DccReachability, DccTool } from "./types.js";

export interface McpEndpoint {
  readonly url: string;
  /** Sent with every request (a bearer token); never logged or echoed. */
  readonly headers: Readonly<Record<string, string>>;
}

interface Live {
  readonly session: DccSession;
  tools: ReadonlyMap<string, DccTool> | null;
}

/** A DCC listing more pages than this is refused: preflight must stay short. */
const MAX_TOOL_PAGES = 50;

export class McpDccConnection implements DccConnection {
  private live: Live | null = null;
  private state: DccReachability = "unknown";
  /** The endpoint refused 2025-11-25 last time: open with 2026-07-28 first. */
  private modernFirst = false;

  constructor(
    readonly dcc: string,
    private readonly endpoint: McpEndpoint,
    private readonly clientInfo: { readonly name: string; readonly version: string },
  ) {}

  reachability(): DccReachability {
    return this.state;
  }

  /** The protocol revision of the live session (null: none). */
  revision(): string | null {
    return this.live?.session.revision ?? null;
  }

  async open(options: Bounds): Promise<DccOpenOutcome> {
    const deadline = performance.now() + options.timeoutMs;
    const left = (): Bounds => ({ timeoutMs: Math.max(1, Math.floor(deadline - performance.now())), ...(options.signal ? { signal: options.signal } : {}) });
    try {
      let live = this.live;
      if (live !== null) {
        try {
          await live.session.ping(left());
        } catch (error) {
          if (options.signal?.aborted === true) throw error;
          // The DCC restarted (our session is gone) or the link broke: one fresh connection within what is left.
          await this.drop(live);
          live = null;
        }
      }
      live ??= await this.connect(left);
      live.tools ??= await this.listTools(live.session, left);
      this.state = "answering";
      return { ok: true, tools: live.tools };
    } catch (error) {
      if (this.live !== null) await this.drop(this.live);
      this.state = "unavailable";
      return { ok: false, message: describe(error, this.endpoint.url) };
    }
  }

  async call(tool: string, args: Record<string, unknown>, options: Bounds): Promise<DccCallOutcome> {
    const live = this.live;
    if (live === null) return { kind: "error", reason: "unavailable", message: "not connected" };
    try {
      return { kind: "result", result: await live.session.callTool(tool, args, options) };
    } catch (error) {
      if (options.signal?.aborted === true) return { kind: "error", reason: "cancelled", message: "cancelled by the caller" };
      const failure = live.session.classify(error);
      if (failure.kind === "timeout") return { kind: "error", reason: "timeout", message: `no answer within ${options.timeoutMs} ms` };
      if (failure.kind === "refused") return { kind: "error", reason: "protocol", message: `the DCC refused the call (${failure.code}): ${failure.message.slice(0, 300)}` };
      await this.drop(live);
      this.state = "unavailable";
      return { kind: "error", reason: "unavailable", message: describe(error, this.endpoint.url) };
    }
  }

  async close(): Promise<void> {
    if (this.live !== null) await this.drop(this.live);
  }

  /** A session in the revision that answered last (2025 first), else the other when the endpoint refuses it. */
  private async connect(left: () => Bounds): Promise<Live> {
    let live: Live | null = null;
    const target: SessionTarget = {
      url: this.endpoint.url,
      headers: this.endpoint.headers,
      clientInfo: this.clientInfo,
      onToolsChanged: () => {
        if (live !== null) live.tools = null;
      },
      onClosed: () => {
        if (live !== null && this.live === live) this.live = null;
      },
    };
    const order = this.modernFirst ? [openModern, openSession2025] : [openSession2025, openModern];
    let opened: SessionOpened = await order[0]!(target, left());
    if (!opened.ok) opened = await order[1]!(target, left());
    if (!opened.ok) throw new Error(`the endpoint refused both protocol revisions (last: ${opened.revisionRefused})`);
    this.modernFirst = opened.session.revision === MODERN;
    live = { session: opened.session, tools: null };
    this.live = live;
    return live;
  }

  private async listTools(session: DccSession, left: () => Bounds): Promise<ReadonlyMap<string, DccTool>> {
    const tools = new Map<string, DccTool>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const listed = await session.listTools(cursor, left());
      for (const tool of listed.tools) tools.set(tool.name, tool);
      cursor = listed.nextCursor;
      if (cursor === undefined) return tools;
    }
    throw new Error(`tools/list has more than ${MAX_TOOL_PAGES} pages`);
  }

  private async drop(live: Live): Promise<void> {
    if (this.live === live) this.live = null;
    await live.session.close();
  }
}

const MODERN = "2026-07-28";

/**
 * The 2026-07-28 session, loaded on first use: most endpoints speak 2025,
 * and the v2 client stays out of a daemon that never meets one that does not.
 */
async function openModern(target: SessionTarget, bounds: Bounds): Promise<SessionOpened> {
  const { openSession2026 } = await import("./session-2026.js");
  return openSession2026(target, bounds);
}

/** A one-line reason naming the endpoint, never its headers. */
function describe(error: unknown, url: string): string {
  const message = error instanceof Error ? error.message : String(error);
  // Both SDK lines say "Request timed out" (1.32.2 as McpError -32001, the v2 client as SdkError REQUEST_TIMEOUT).
  if (/Request timed out/i.test(message)) return `${url} did not answer in time`;
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return `${url}: ${message.split("\n")[0]!.slice(0, 200)}${cause.slice(0, 120)}`;
}
