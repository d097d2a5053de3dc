/**
 * Stateful MCP sessions: one SDK server + transport per session, kept by
 * Mcp-Session-Id. Sessions are capped, swept when idle (most clients never
 * send DELETE), and closed together at shutdown.
 */
import { randomUUID } from "node:crypto";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Logger } from "pino";

export interface Session {
  readonly id: string;
  readonly endpoint: string;
  readonly server: Server;
  readonly transport: StreamableHTTPServerTransport;
  lastSeen: number;
  /** POST/DELETE requests being answered (capped per session). */
  inFlight: number;
  /** Open GET (SSE) streams: not capped, but keep the session from idling out. */
  streams: number;
}

export interface SessionManagerOptions {
  readonly maxSessions: number;
  readonly idleMs: number;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly onCountChange?: (count: number) => void;
}

export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  /** Sessions created but not yet initialized count against the cap too. */
  private pending = 0;
  private readonly sweeper: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(private readonly options: SessionManagerOptions) {
    this.now = options.now ?? Date.now;
    this.sweeper = setInterval(() => void this.sweep(), Math.max(1000, Math.min(60_000, options.idleMs / 4)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** Room for one more session? */
  hasCapacity(): boolean {
    return this.sessions.size + this.pending < this.options.maxSessions;
  }

  /** A transport that registers itself once the client's initialize succeeds. */
  open(endpoint: string, server: Server): StreamableHTTPServerTransport {
    this.pending += 1;
    let settled = false;
    const settle = (): void => {
      if (!settled) {
        settled = true;
        this.pending -= 1;
      }
    };
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        settle();
        this.sessions.set(id, { id, endpoint, server, transport, lastSeen: this.now(), inFlight: 0, streams: 0 });
        this.options.onCountChange?.(this.sessions.size);
        this.options.logger.debug({ sessionId: id, endpoint }, "session opened");
      },
      onsessionclosed: (id) => {
        this.forget(id);
      },
    });
    transport.onclose = () => {
      settle();
      if (transport.sessionId !== undefined) this.forget(transport.sessionId);
    };
    return transport;
  }

  /** Called when a request that never initialized a session ends. */
  abandon(transport: StreamableHTTPServerTransport, server: Server): void {
    if (transport.sessionId !== undefined && this.sessions.has(transport.sessionId)) return;
    void server.close().catch(() => undefined);
  }

  touch(session: Session): void {
    session.lastSeen = this.now();
  }

  /** Every live server on `endpoint` (for list_changed notifications). */
  serversOn(endpoint: string): Server[] {
    return [...this.sessions.values()].filter((s) => s.endpoint === endpoint).map((s) => s.server);
  }

  async sweep(): Promise<number> {
    const cutoff = this.now() - this.options.idleMs;
    const idle = [...this.sessions.values()].filter((s) => s.lastSeen < cutoff && s.inFlight === 0 && s.streams === 0);
    await Promise.all(idle.map((s) => this.close(s.id, "idle")));
    return idle.length;
  }

  async close(id: string, reason: string): Promise<void> {
    const session = this.sessions.get(id);
    if (session === undefined) return;
    this.forget(id);
    this.options.logger.debug({ sessionId: id, reason }, "session closed");
    await session.server.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id, "shutdown")));
  }

  private forget(id: string): void {
    if (this.sessions.delete(id)) this.options.onCountChange?.(this.sessions.size);
  }
}
