/**
 * One PostgreSQL store connection: a pg Pool for queries, plus one dedicated
 * client that runs the migrations and then LISTENs for other replicas'
 * writes. The listening client is the health signal: while it is connected
 * the store is ready; when it drops, the store reconnects with backoff and,
 * once listening again, asks its subscribers to re-read everything (a NOTIFY
 * sent while nobody listened is gone, the tables are not).
 *
 * Failures are classified once, here: bad credentials, a missing database or
 * a schema newer than the code are "fatal" (retrying cannot help, the server
 * refuses to start with them); anything else is "down" and retried.
 */
import { createRequire } from "node:module";
import type pg from "pg";
import type { StoreStatus } from "../contract.js";
import { migrate } from "./pg-migrations.js";

export const NOTIFY_CHANNEL = "recipe_server_playbooks";

export interface PgLogger {
  info?(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error?(fields: Record<string, unknown>, message: string): void;
}

interface PgConnectionOptions {
  readonly url: string;
  /** The URL without its password, for messages. */
  readonly location: string;
  readonly logger?: PgLogger;
  /** First retry delay after a lost or failed connection; doubles up to 5 s. Default 250 ms. */
  readonly retryMs?: number;
  readonly connectTimeoutMs?: number;
}

export interface Notification {
  readonly dcc: string;
  readonly owner: string;
  readonly slug: string;
}

type State =
  | { readonly kind: "connecting" }
  | { readonly kind: "ready" }
  | { readonly kind: "down"; readonly problem: string }
  | { readonly kind: "fatal"; readonly problem: string };

/** SQLSTATEs retrying cannot fix: wrong password, no such role or database, no permission. */
const FATAL_CODES = new Set(["28P01", "28000", "3D000", "42501"]);
const MAX_RETRY_MS = 5000;

let pgModule: typeof pg | null = null;
/**
 * pg, loaded when the first PostgreSQL store is opened rather than at every
 * start: evaluating it builds a fetch Response (its Cloudflare check), which
 * makes Node load its whole fetch implementation, tens of ms of CPU before
 * a catalog can load, for the file store too. Required, not imported, so the
 * PgConnection constructor stays synchronous; the bundles leave it to
 * node_modules, where the package's dependencies are installed.
 */
function loadPg(): typeof pg {
  return (pgModule ??= createRequire(import.meta.url)("pg") as typeof pg);
}

export class PgConnection {
  readonly pool: pg.Pool;
  readonly location: string;
  private state: State = { kind: "connecting" };
  private listener: pg.Client | null = null;
  private readonly subscribers = new Set<(n: Notification | "all") => void>();
  private readonly logger: PgLogger | undefined;
  private readonly retryMs: number;
  private readonly connectTimeoutMs: number;
  private retryTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private closed = false;
  private connectedOnce = false;
  readonly firstAttempt: Promise<string | null>;

  constructor(private readonly options: PgConnectionOptions) {
    this.location = options.location;
    this.logger = options.logger;
    this.retryMs = options.retryMs ?? 250;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 3000;
    const { Pool } = loadPg();
    this.pool = new Pool({
      connectionString: options.url,
      max: 8,
      connectionTimeoutMillis: this.connectTimeoutMs,
      idleTimeoutMillis: 30_000,
    });
    // An idle pooled client whose server went away emits here; unhandled it would kill the process.
    this.pool.on("error", (error) => this.logger?.warn({ store: this.location, err: describe(error) }, "playbook store connection lost"));
    this.firstAttempt = this.connect();
  }

  status(): StoreStatus {
    const base = { kind: "postgres" as const, location: this.location };
    if (this.state.kind === "ready") return { ...base, ready: true };
    const problem = this.state.kind === "connecting" ? "connecting" : this.state.problem;
    return { ...base, ready: false, problem };
  }

  /** The message a private action answers while the store cannot be used. */
  notReadyMessage(): string {
    const status = this.status();
    return `the playbook store ${this.location} is not ready (${status.problem ?? "unreachable"}); try again shortly`;
  }

  isFatal(): boolean {
    return this.state.kind === "fatal";
  }

  subscribe(listener: (n: Notification | "all") => void): () => void {
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }

  /** One connection attempt; resolves with a fatal problem or null (connected, or down and retrying). */
  private async connect(): Promise<string | null> {
    this.retryTimer = null;
    if (this.closed) return null;
    const client = new (loadPg().Client)({ connectionString: this.options.url, connectionTimeoutMillis: this.connectTimeoutMs });
    client.on("error", () => undefined); // reported through "end" below
    try {
      await client.connect();
      const migrated = await migrate(client);
      if (!migrated.ok) {
        await client.end().catch(() => undefined);
        return this.fail({ kind: "fatal", problem: migrated.message });
      }
      if (migrated.applied > 0) this.logger?.info?.({ store: this.location, migrations: migrated.applied }, "playbook store schema migrated");
      client.on("notification", (message) => this.onNotification(message.payload));
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      const code = (error as { code?: unknown }).code;
      const problem = describe(error);
      return this.fail({ kind: typeof code === "string" && FATAL_CODES.has(code) ? "fatal" : "down", problem });
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return null;
    }
    client.on("end", () => {
      if (this.listener !== client || this.closed) return;
      this.listener = null;
      this.fail({ kind: "down", problem: "connection lost" });
    });
    this.listener = client;
    // Any failed attempt or lost connection before this one is a gap in what was notified.
    const afterGap = this.connectedOnce || this.state.kind !== "connecting";
    this.state = { kind: "ready" };
    this.failures = 0;
    this.connectedOnce = true;
    if (afterGap) {
      this.logger?.info?.({ store: this.location }, "playbook store connected; re-reading every playbook");
      // What was notified during the gap is lost: re-read from the tables.
      this.emit("all");
    }
    return null;
  }

  private fail(state: State & { problem: string }): string | null {
    const wasReady = this.state.kind === "ready";
    this.state = state;
    if (this.closed) return null;
    this.failures += 1;
    if (wasReady || this.failures === 1) {
      const log = state.kind === "fatal" ? (this.logger?.error ?? this.logger?.warn) : this.logger?.warn;
      log?.call(this.logger, { store: this.location, problem: state.problem }, "playbook store unavailable; private playbooks answer not_ready until it is back");
    }
    const delay = Math.min(MAX_RETRY_MS, this.retryMs * 2 ** Math.min(this.failures - 1, 8));
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref();
    return state.kind === "fatal" ? `the playbook store ${this.location} cannot be used: ${state.problem}` : null;
  }

  private onNotification(payload: string | undefined): void {
    if (payload === undefined) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      return; // someone else's NOTIFY on our channel
    }
    const n = parsed as Partial<Notification> | null;
    if (typeof n?.dcc !== "string" || typeof n.owner !== "string" || typeof n.slug !== "string") return;
    this.emit({ dcc: n.dcc, owner: n.owner, slug: n.slug });
  }

  private emit(n: Notification | "all"): void {
    for (const subscriber of this.subscribers) subscriber(n);
  }
}

/** A driver error as one line, never with the URL (which holds the password). */
export function describe(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown } | null;
  const message = typeof e?.message === "string" ? e.message : String(error);
  return typeof e?.code === "string" ? `${e.code}: ${message}` : message;
}

/** Errors that mean "the database is not there right now", as opposed to a bad statement. */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") {
    const message = (error as { message?: unknown } | null)?.message;
    // The pool's own timeout and a socket closed mid-query carry no code.
    return typeof message === "string" && /timeout|terminated|Connection|ECONN/i.test(message);
  }
  return code.startsWith("08") || code.startsWith("57P") || code.startsWith("53") || code.startsWith("E") || code === "42P01";
}
