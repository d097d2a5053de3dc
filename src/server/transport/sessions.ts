/**
 * Stateful MCP sessions: one SDK server + transport per session, kept by
 * Mcp-Session-Id. Most clients never send DELETE, so sessions are swept once
 * idle, and the cap cannot be exhausted: at the cap (or at a client's share
 * of it) the least recently used idle session is evicted instead of the new
 * one being refused. Closed together at shutdown.
 */
import { createHash, randomUUID } from "node:crypto";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Logger } from "pino";

interface Session {
  readonly id: string;
  readonly endpoint: string;
  readonly server: Server;
  readonly transport: StreamableHTTPServerTransport;
  /** Who opened it (see clientIdentity): the key of its per-client share. */
  readonly client: string;
  /** The users-file user who initialized it (none without a users file): whose list changes it hears. */
  readonly user?: string;
  /** When a request on it last started or ended. */
  lastSeen: number;
  /** POST/DELETE requests being answered (capped per session). */
  inFlight: number;
  /** Open GET (SSE) streams: they do not keep a session alive without requests. */
  streams: number;
  /** POSTs after the initialize: 0 or 1 (the `initialized` notification) means the handshake only. */
  requests: number;
}

interface SessionManagerOptions {
  readonly maxSessions: number;
  readonly idleMs: number;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly onCountChange?: (count: number) => void;
}

/** Why no session could be made room for (every candidate has a request in flight). */
type Admission = { readonly ok: true } | { readonly ok: false; readonly message: string };

const ADMITTED: Admission = Object.freeze({ ok: true });

/**
 * The identity a per-client share is counted by: the peer address, plus the
 * bearer token when the server checks one (so users behind one proxy with
 * their own tokens get a share each). An unchecked Authorization header is
 * ignored: anyone could vary it to mint identities.
 */
export function clientIdentity(remoteAddress: string | undefined, authorization: string | undefined, tokenChecked: boolean): string {
  const address = remoteAddress ?? "unknown";
  if (!tokenChecked || authorization === undefined) return address;
  return `${address} ${createHash("sha256").update(authorization).digest("hex").slice(0, 16)}`;
}

export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  /** Sessions created but not yet initialized count against the cap too. */
  private pending = 0;
  /** Live + pending sessions per client identity. */
  private readonly held = new Map<string, number>();
  /** Pending (initialize in progress) per client identity. */
  private readonly pendingBy = new Map<string, number>();
  private readonly perClient: number;
  private readonly sweeper: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(private readonly options: SessionManagerOptions) {
    this.now = options.now ?? Date.now;
    this.perClient = Math.max(1, Math.ceil(options.maxSessions / 2));
    this.sweeper = setInterval(() => void this.sweep(), Math.max(1000, Math.min(60_000, options.idleMs / 4)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Sessions one client may hold. */
  get maxPerClient(): number {
    return this.perClient;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** Sessions (live and pending) held by `client`. */
  heldBy(client: string): number {
    return this.held.get(client) ?? 0;
  }

  /**
   * Makes room for one more session of `client`, evicting when it must:
   * the client's own least recently used idle session when it is at its
   * share, else any client's when the server is at its cap. Synchronous, so
   * the `open` that follows cannot be raced by another initialize.
   */
  admit(client: string): Admission {
    if (this.heldBy(client) >= this.perClient) {
      // While this client's own initializes are still in progress, a burst
      // of them may push out only its handshake-only sessions, never the
      // ones it uses.
      const victim = this.evictable((s) => s.client === client, (this.pendingBy.get(client) ?? 0) === 0);
      if (victim === undefined) return refusal(`Too many sessions for this client (max ${this.perClient})`);
      this.evict(victim, "client share");
    }
    if (this.sessions.size + this.pending >= this.options.maxSessions) {
      const victim = this.evictable(() => true, this.pending === 0);
      if (victim === undefined) return refusal(`Too many live sessions (max ${this.options.maxSessions})`);
      this.evict(victim, "cap");
    }
    return ADMITTED;
  }

  /** A transport that registers itself once the client's initialize succeeds. */
  open(endpoint: string, server: Server, client: string, user?: string): StreamableHTTPServerTransport {
    this.pending += 1;
    count(this.pendingBy, client, 1);
    count(this.held, client, 1);
    let settled = false;
    const settle = (initialized: boolean): void => {
      if (settled) return;
      settled = true;
      this.pending -= 1;
      count(this.pendingBy, client, -1);
      if (!initialized) count(this.held, client, -1);
    };
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        settle(true);
        this.sessions.set(id, { id, endpoint, server, transport, client, ...(user !== undefined ? { user } : {}), lastSeen: this.now(), inFlight: 0, streams: 0, requests: 0 });
        this.options.onCountChange?.(this.sessions.size);
        this.options.logger.debug({ sessionId: id, endpoint }, "session opened");
      },
      onsessionclosed: (id) => {
        this.forget(id);
      },
    });
    transport.onclose = () => {
      settle(false);
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

  /** Every live server on `endpoint`, or only `user`'s sessions there (for list_changed notifications). */
  serversOn(endpoint: string, user?: string): Server[] {
    return [...this.sessions.values()].filter((s) => s.endpoint === endpoint && (user === undefined || s.user === user)).map((s) => s.server);
  }

  /**
   * Closes sessions with no request for the idle TTL. An open GET stream does
   * not keep one alive: a client that left with its stream open (or whose
   * proxy keeps it open) would otherwise hold its slot forever.
   */
  async sweep(): Promise<number> {
    const cutoff = this.now() - this.options.idleMs;
    const idle = [...this.sessions.values()].filter((s) => s.lastSeen < cutoff && s.inFlight === 0);
    await Promise.all(idle.map((s) => this.close(s.id, "idle")));
    return idle.length;
  }

  async close(id: string, reason: string): Promise<void> {
    const session = this.sessions.get(id);
    if (session === undefined) return;
    this.forget(id);
    this.options.logger.debug({ sessionId: id, reason }, "session closed");
    // Closing the server closes its transport, which ends the session's open streams.
    await session.server.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id, "shutdown")));
  }

  /**
   * The session to evict among those `matching`: none with a request in
   * flight; sessions that never got past their handshake (abandoned
   * initializes, the usual leak) before used ones; least recently used first.
   */
  private evictable(matching: (session: Session) => boolean, usedToo: boolean): Session | undefined {
    let best: Session | undefined;
    for (const session of this.sessions.values()) {
      if (session.inFlight > 0 || !matching(session) || (!usedToo && rank(session) > 0)) continue;
      if (best === undefined || rank(session) < rank(best) || (rank(session) === rank(best) && session.lastSeen < best.lastSeen)) {
        best = session;
      }
    }
    return best;
  }

  private evict(session: Session, reason: "cap" | "client share"): void {
    this.options.logger.info(
      { sessionId: session.id, reason, idleMs: this.now() - session.lastSeen, streams: session.streams },
      "session evicted",
    );
    void this.close(session.id, `evicted (${reason})`);
  }

  private forget(id: string): void {
    const session = this.sessions.get(id);
    if (session === undefined) return;
    this.sessions.delete(id);
    count(this.held, session.client, -1);
    this.options.onCountChange?.(this.sessions.size);
  }
}

/** A per-key count that forgets keys at zero, so departed clients cost nothing. */
function count(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}

function refusal(limit: string): Admission {
  return { ok: false, message: `${limit}: none can be evicted now (requests in flight or initializes in progress); retry later` };
}

/** Handshake-only sessions go first. */
function rank(session: Session): number {
  return session.requests > 1 ? 1 : 0;
}
