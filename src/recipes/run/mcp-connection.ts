/**
 * The DCC's MCP endpoint through the SDKs' own clients, whichever revision
 * it speaks: 2025-11-25 through SDK 1.32.2 (what today's adapters, dcc-mcp-maya,
 * dcc-mcp-blender …, speak; session-2025.ts), and 2026-07-28 through the v2
 * client (session-2026.ts) when the endpoint refuses the 2025 revision. The
 * revision that answered is tried first on the next connection. The only
 * module of the run engine that touches the network. Connects lazily, pings
 * before each run unless the DCC answered within `answeredRecentlyMs` (a DCC
 * that restarted lost our session: the connection is dropped and made
 * again), caches tools/list per connection (cleared on
 * notifications/tools/list_changed), and bounds every exchange so a DCC that
 * accepts the connection but never answers is `unavailable` within the
 * connect bound.
 */
import type { Bounds, DccSession, SessionOpened, SessionTarget } from "./dcc-session.js";
import { openSession2025 } from "./session-2025.js";
import type { DccCallOutcome, DccConnection, DccOpenOutcome, DccReachability, DccTool } from "./types.js";

interface McpEndpoint {
  readonly url: string;
  /** Sent with every request (a bearer token); never logged or echoed. */
  readonly headers: Readonly<Record<string, string>>;
}

interface Live {
  readonly session: DccSession;
  tools: ReadonlyMap<string, DccTool> | null;
  /** When the DCC last answered on this session (performance.now()). */
  answeredAt: number;
}

/** A DCC listing more pages than this is refused: preflight must stay short. */
const MAX_TOOL_PAGES = 50;

export class McpDccConnection implements DccConnection {
  private live: Live | null = null;
  private state: DccReachability = "unknown";
  /** The endpoint refused 2025-11-25 last time: open with 2026-07-28 first. */
  private modernFirst = false;
  /** A failed connect is tried once more only with at least this much of the bound left. */
  private readonly retryFloorMs = 100;

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

  async open(options: Bounds & { readonly answeredRecentlyMs?: number }): Promise<DccOpenOutcome> {
    let deadline = performance.now() + options.timeoutMs;
    const left = (): Bounds => ({ timeoutMs: Math.max(1, Math.floor(deadline - performance.now())), ...(options.signal ? { signal: options.signal } : {}) });
    const restart = (): void => {
      deadline = performance.now() + options.timeoutMs;
    };
    try {
      let live = this.live;
      if (live !== null && performance.now() - live.answeredAt >= (options.answeredRecentlyMs ?? 0)) {
        try {
          await live.session.ping(left());
          live.answeredAt = performance.now();
        } catch (error) {
          if (options.signal?.aborted === true) throw error;
          // The DCC restarted (our session is gone) or the link broke: one fresh connection within what is left.
          await this.drop(live);
          live = null;
        }
      }
      live ??= await this.connect(left, restart);
      if (live.tools === null) {
        live.tools = await this.listTools(live.session, left);
        live.answeredAt = performance.now();
      }
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
      const result = await live.session.callTool(tool, args, options);
      live.answeredAt = performance.now();
      return { kind: "result", result };
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
  private async connect(left: () => Bounds, restart: () => void): Promise<Live> {
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
    const order = this.modernFirst ? [openModern, openLegacy] : [openLegacy, openModern];
    let opened: SessionOpened;
    try {
      opened = await order[0]!(target, left);
    } catch (error) {
      // A link that broke at once (a pooled socket the restarted DCC closed) gets one more try; a DCC that never answered used up the bound.
      if (left().signal?.aborted === true || left().timeoutMs < this.retryFloorMs) throw error;
      opened = await order[0]!(target, left);
    }
    if (!opened.ok) {
      // The DCC answered (it refused one revision): the other revision's session gets the whole bound again, counted from its first request.
      let restarted = false;
      const fresh = (): Bounds => {
        if (!restarted) restart();
        restarted = true;
        return left();
      };
      opened = await order[1]!(target, fresh);
    }
    if (!opened.ok) throw new Error(`the endpoint refused both protocol revisions (last: ${opened.revisionRefused})`);
    this.modernFirst = opened.session.revision === MODERN;
    live = { session: opened.session, tools: null, answeredAt: performance.now() };
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
async function openModern(target: SessionTarget, left: () => Bounds): Promise<SessionOpened> {
  const { openSession2026 } = await import("./session-2026.js");
  // Loading the client is this process's work, not the DCC's: the bound is read after it.
  return openSession2026(target, left());
}

function openLegacy(target: SessionTarget, left: () => Bounds): Promise<SessionOpened> {
  return openSession2025(target, left());
}

/** A one-line reason naming the endpoint, never its headers. */
function describe(error: unknown, url: string): string {
  const message = error instanceof Error ? error.message : String(error);
  // Both SDK lines say "Request timed out" (1.32.2 as McpError -32001, the v2 client as SdkError REQUEST_TIMEOUT).
  if (/Request timed out/i.test(message)) return `${url} did not answer in time`;
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return `${url}: ${message.split("\n")[0]!.slice(0, 200)}${cause.slice(0, 120)}`;
}
