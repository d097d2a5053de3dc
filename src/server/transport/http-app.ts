/**
 * The HTTP surface (docs/protocol.md): fastify serving MCP streamable HTTP at
 * each endpoint, plus /healthz, /readyz, /status and /metrics (who may ask
 * which: guard.ts). Knows MCP servers and transports, not recipes: endpoints
 * hand it a factory for a ready-made SDK `Server`.
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Server as ModernServer } from "@modelcontextprotocol/server";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import type { HttpLimits } from "../../config/types.js";
import { checkBatch, messageChecks } from "./argument-limits.js";
import { installConnectionGuard } from "./connections.js";
import { createFastify, hijack, ignore, pathOf } from "./fastify-setup.js";
import { createRequestGuard, type GuardOptions } from "./guard.js";
import { handleStateful, handleStateless, type LegacyEndpoint } from "./legacy-leg.js";
import { createModernLeg, type ModernLeg } from "./modern-leg.js";
import { installRefusals, JSONRPC, sendJsonRpcError } from "./refusals.js";
import { SessionManager } from "./sessions.js";

export type { HttpLimits };

/** What the HTTP surface serves at one path: MCP servers made per session or request, for either era. */
export interface McpEndpoint extends LegacyEndpoint {
  /** A v2 server for one 2026-07-28 request (`user` as above); without it the endpoint speaks the 2025 revisions only. */
  createModernServer?(user?: string, method?: string): ModernServer;
}

/** What a reload changed on an endpoint, for the list_changed notifications of both eras. */
interface ListChange {
  readonly resources?: boolean;
  readonly prompts?: boolean;
  /**
   * Whose lists changed (users file: one user's playbooks): only that user's
   * sessions and listen streams are told. Absent: everyone's (public recipes).
   */
  readonly user?: string;
}

interface HttpAppOptions {
  readonly endpoints: readonly McpEndpoint[];
  readonly guard: GuardOptions;
  readonly stateless: boolean;
  readonly limits: HttpLimits;
  readonly logger: Logger;
  /**
   * Ready or not, for /readyz (that alone), and the details /status adds
   * (the operator's): no absolute host path in them, the answer leaves the host.
   */
  readonly readiness: () => { ready: boolean; body: Record<string, unknown> };
  /**
   * Extra routes (the catalog page) registered before listen; `userOf` names
   * the users-file user a request's token authenticated (null: the operator's
   * token, or no token).
   */
  readonly extend?: (app: FastifyInstance, userOf: (request: FastifyRequest) => string | null) => void;
  readonly onRequestDone?: (event: { route: string; method: string; status: number; ms: number }) => void;
  readonly onSessionCount?: (count: number) => void;
  /** Serves `GET /metrics` (the operator's, as /status). */
  readonly metrics?: { readonly contentType: string; render(): Promise<string> };
}

export interface HttpApp {
  readonly fastify: FastifyInstance;
  /** null in stateless mode. */
  readonly sessions: SessionManager | null;
  listen(port: number, host: string): Promise<{ port: number; url: string }>;
  /**
   * Tells the clients of `paths` that lists changed: 2025 sessions on their
   * GET stream, 2026 clients on their subscriptions/listen streams.
   */
  announce(paths: readonly string[], change: ListChange): void;
  /** Requests (other than GET streams) being received or answered right now. */
  inFlight(): number;
  /**
   * Graceful close: refuse new requests (503), wait up to `graceMs` for the
   * requests in flight, then close every session (ending SSE streams) and
   * the listener. Default grace: min(requestTimeoutMs, 10 s).
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** Upper bound on how long a shutdown waits for requests in flight. */
const MAX_GRACE_MS = 10_000;

export function buildHttpApp(options: HttpAppOptions): HttpApp {
  const { limits, logger } = options;
  const fastify = createFastify(limits, logger);
  installConnectionGuard(fastify.server, {
    maxConnections: limits.maxConnections,
    quietMs: limits.requestTimeoutMs,
    // Node closes idle kept-alive connections itself at this; the guard is the backstop.
    keepAliveMs: fastify.server.keepAliveTimeout + 1000,
    onRefused: (reason) => logger.debug({ reason }, reason === "cap" ? "connection refused: --max-connections reached" : "quiet connection closed"),
  });
  let draining = false;
  const drain = createDrain();
  const sessions = options.stateless
    ? null
    : new SessionManager({
        maxSessions: limits.maxSessions,
        idleMs: limits.sessionIdleMs,
        logger,
        ...(options.onSessionCount ? { onCountChange: options.onSessionCount } : {}),
      });
  const guard = createRequestGuard(options.guard);
  const withUsers = options.guard.users !== undefined;
  /** The user a request's token named (users file only). */
  const callers = new WeakMap<object, AuthInfo>();
  /** The user a 2025 session was initialized by: its identity for the session's life. */
  const sessionUsers = new WeakMap<object, string>();
  const checkMessages = messageChecks(limits.maxToolArgumentBytes);
  installRefusals(fastify, options.endpoints.map((endpoint) => endpoint.path), options.stateless);

  // Callback-style hooks: they run on every request, and an async hook costs
  // a promise and a microtask turn for each.
  fastify.addHook("onRequest", (request, reply, done) => {
    drain.track(request, reply);
    if (draining) {
      // Answered here: fastify skips the route when a hook sends and does not call done.
      void sendJsonRpcError(reply, 503, JSONRPC.overloaded, "Server is shutting down", { connection: "close", "retry-after": "1" });
      return;
    }
    const origin = request.headers.origin;
    const verdict = guard.check(
      {
        host: request.headers.host,
        origin: typeof origin === "string" ? origin : undefined,
        authorization: request.headers.authorization,
        httpVersion: request.raw.httpVersion,
        rawHeaders: request.raw.rawHeaders,
      },
      pathOf(request.url),
    );
    if (!verdict.ok) {
      const headers: Record<string, string> = verdict.status === 401 ? { "www-authenticate": 'Bearer realm="recipe-server"' } : {};
      void sendJsonRpcError(reply, verdict.status, verdict.code, verdict.message, headers);
      return;
    }
    if (verdict.user !== undefined) callers.set(request.raw, callerAuth(verdict.user));
    done();
  });

  fastify.addHook("onResponse", (request, reply, done) => {
    const ms = Math.round(reply.elapsedTime * 100) / 100;
    const status = reply.raw.statusCode;
    // request.log already carries reqId. A tools/call answered has its own line at
    // info (tool, outcome, ms: protocol/surface.ts): its request line is debug, so a call is one line.
    const line = { method: request.method, url: pathOf(request.url), status, ms };
    if (status < 400 && isToolCall(request.body)) request.log.debug(line, "request");
    else request.log.info(line, "request");
    options.onRequestDone?.({ route: request.routeOptions.url ?? "unknown", method: request.method, status, ms });
    done();
  });

  fastify.get("/healthz", async () => ({ status: "ok" }));
  fastify.get("/readyz", async (_request, reply) => {
    const { ready } = options.readiness();
    await reply.code(ready ? 200 : 503).send({ ready });
  });
  fastify.get("/status", async (_request, reply) => {
    const { ready, body } = options.readiness();
    await reply.send({ ready, ...body, sessions: sessions?.size ?? 0 });
  });

  const metrics = options.metrics;
  if (metrics !== undefined) {
    fastify.get("/metrics", async (_request, reply) => {
      const text = await metrics.render();
      await reply.header("content-type", metrics.contentType).send(text);
    });
  }

  const modernLegs = new Map<string, ModernLeg>();
  for (const endpoint of options.endpoints) {
    const createModern = endpoint.createModernServer?.bind(endpoint);
    const modern = createModern === undefined ? null : createModernLeg({
      createServer: createModern,
      maxBodyBytes: limits.bodyLimitBytes,
      // Refusals are answered to the client; the log only needs them when debugging.
      onerror: (error) => logger.debug({ err: error, endpoint: endpoint.path }, "2026-07-28 request refused or failed"),
    });
    if (modern !== null) modernLegs.set(endpoint.path, modern);
    const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const auth = callers.get(request.raw);
      if (withUsers && auth === undefined) {
        // The operator's --token opens probes, metrics and the page; recipes are per user.
        await sendJsonRpcError(reply, 403, JSONRPC.forbidden, "Forbidden: MCP endpoints need a user's token from the users file");
        return;
      }
      if (request.method === "POST") {
        const batchProblem = checkBatch(request.body, limits.maxBatch);
        if (batchProblem !== null) {
          await sendJsonRpcError(reply, 400, JSONRPC.invalidRequest, batchProblem);
          return;
        }
      }
      if (modern?.claims(request) === true) {
        hijack(reply);
        await modern.serve(request, reply.raw, auth);
        return;
      }
      await (options.stateless
        ? handleStateless(endpoint, request, reply, callers)
        : handleStateful({ sessions: sessions as SessionManager, limits, options, callers, sessionUsers }, endpoint, request, reply));
    };
    fastify.route({ method: ["GET", "POST", "DELETE"], url: endpoint.path, preHandler: checkMessages, handler });
  }

  options.extend?.(fastify, (request) => callers.get(request.raw)?.clientId ?? null);

  fastify.addHook("preClose", async () => {
    await Promise.all([sessions?.closeAll(), ...[...modernLegs.values()].map((leg) => leg.close())]);
  });

  return {
    fastify,
    sessions,
    async listen(port, host) {
      await fastify.listen({ port, host });
      const address = fastify.server.address();
      const actualPort = typeof address === "object" && address !== null ? address.port : port;
      const shownHost = host.includes(":") ? `[${host}]` : host;
      return { port: actualPort, url: `http://${shownHost}:${actualPort}` };
    },
    announce(paths, change) {
      for (const path of paths) {
        const modern = modernLegs.get(path);
        if (change.resources === true) modern?.notifyFor(change.user).resourcesChanged();
        if (change.prompts === true) modern?.notifyFor(change.user).promptsChanged();
        for (const server of sessions?.serversOn(path, change.user) ?? []) {
          // A session without an open GET stream cannot receive it, and a server
          // that declares no prompts refuses to send that one: neither is an error.
          if (change.resources === true) server.sendResourceListChanged().catch(ignore);
          if (change.prompts === true) server.sendPromptListChanged().catch(ignore);
        }
      }
    },
    inFlight: drain.inFlight,
    async close(closeOptions = {}) {
      const graceMs = closeOptions.graceMs ?? Math.min(limits.requestTimeoutMs, MAX_GRACE_MS);
      if (!draining) {
        draining = true;
        // Stop accepting connections now; fastify.close() below tolerates the
        // listener being closed already.
        if (fastify.server.listening) fastify.server.close();
        fastify.server.closeIdleConnections();
        // A subscriptions/listen stream is a POST that never ends by itself.
        for (const leg of modernLegs.values()) leg.endListenStreams();
        await drain.idle(graceMs);
        if (drain.inFlight() > 0) logger.warn({ inFlight: drain.inFlight(), graceMs }, "shutdown grace elapsed with requests in flight");
      }
      await fastify.close();
    },
  };
}

/**
 * Requests in flight, for a graceful close: GET streams stay open for a
 * session's life, every other request is one a shutdown lets finish.
 */
export function createDrain() {
  let inFlight = 0;
  const idleWaiters = new Set<() => void>();
  // One shared listener: a closure per request would cost an allocation on every call.
  const settle = (): void => {
    inFlight -= 1;
    if (inFlight === 0) for (const wake of idleWaiters) wake();
  };
  return {
    /** Counts the request until its reply closes. */
    track(request: FastifyRequest, reply: FastifyReply): void {
      if (request.method === "GET") return;
      inFlight += 1;
      reply.raw.once("close", settle);
    },
    inFlight: (): number => inFlight,
    /** Resolves when nothing is in flight, or after `timeoutMs`. */
    idle(timeoutMs: number): Promise<void> {
      if (inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          idleWaiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        idleWaiters.add(done);
      });
    },
  };
}

/** The caller as the SDKs carry it: the user id as `clientId`, never the token. */
function callerAuth(user: string): AuthInfo {
  return { token: "", clientId: user, scopes: [] };
}

/** A body that is one tools/call request (a batch is logged as a request, whatever it holds). */
function isToolCall(body: unknown): boolean {
  return typeof body === "object" && body !== null && (body as { method?: unknown }).method === "tools/call";
}
