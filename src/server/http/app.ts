/**
 * The HTTP surface (SPEC §8): fastify serving MCP streamable HTTP at each
 * endpoint, plus /healthz and /readyz. Knows MCP servers and transports, not
 * recipes: endpoints hand it a factory for a ready-made SDK `Server`.
 */
import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Server as ModernServer } from "@modelcontextprotocol/server";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Logger } from "pino";
import { installMessageChecks } from "./argument-limits.js";
import { createRequestGuard, type GuardOptions } from "./guard.js";
import { JSONRPC, jsonRpcErrorBody, type JsonRpcCode } from "./jsonrpc.js";
import { createModernLeg, type ModernLeg } from "./modern-leg.js";
import { answerFrameworkError, installRefusals } from "./refusals.js";
import { clientIdentity, SessionManager } from "./sessions.js";

export interface McpEndpoint {
  readonly path: string;
  /** A 1.32.2 server for one 2025-era session (or one stateless 2025 request). */
  createServer(): Server;
  /** A v2 server for one 2026-07-28 request; without it the endpoint speaks the 2025 revisions only. */
  createModernServer?(): ModernServer;
}

/** What a reload changed on an endpoint, for the list_changed notifications of both eras. */
export interface ListChange {
  readonly resources?: boolean;
  readonly prompts?: boolean;
}

export interface HttpLimits {
  readonly bodyLimitBytes: number;
  readonly maxSessions: number;
  readonly sessionIdleMs: number;
  readonly maxBatch: number;
  readonly maxConcurrentPerSession: number;
  readonly requestTimeoutMs: number;
}

export interface HttpAppOptions {
  readonly endpoints: readonly McpEndpoint[];
  readonly guard: GuardOptions;
  readonly stateless: boolean;
  readonly limits: HttpLimits;
  readonly logger: Logger;
  readonly readiness: () => { ready: boolean; body: Record<string, unknown> };
  /** Extra routes (metrics …) registered before listen. */
  readonly extend?: (app: FastifyInstance) => void;
  readonly onRequestDone?: (event: { route: string; method: string; status: number; ms: number }) => void;
  readonly onSessionCount?: (count: number) => void;
  /** Serves `GET /metrics` (behind the same guard as every route but /healthz). */
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

const JSON_CONTENT = /^application\/json\s*(;.*)?$/i;
/** Upper bound on how long a shutdown waits for requests in flight. */
const MAX_GRACE_MS = 10_000;

export function buildHttpApp(options: HttpAppOptions): HttpApp {
  const { limits, logger } = options;
  const fastify = Fastify({
    // pino's Logger is a FastifyBaseLogger; its wider type only trips generics.
    loggerInstance: logger as FastifyBaseLogger,
    // One log line per request comes from our onResponse hook instead.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: limits.bodyLimitBytes,
    forceCloseConnections: true,
    // Receive side of the request timeout: a client that trickles its headers
    // or body (slowloris) gets 408 and its socket closed. Node checks
    // connections on an interval, so shorten it to match short timeouts.
    requestTimeout: limits.requestTimeoutMs,
    http: {
      headersTimeout: Math.min(60_000, limits.requestTimeoutMs),
      connectionsCheckingInterval: Math.max(250, Math.min(30_000, Math.floor(limits.requestTimeoutMs / 4))),
      // The guard answers a missing Host (Node's own 400 has an empty body).
      requireHostHeader: false,
    },
    return503OnClosing: true,
    // Random ids correlate log lines across restarts; a client-sent id is not trusted.
    genReqId: () => randomUUID(),
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
  });
  let draining = false;
  let inFlight = 0;
  const idleWaiters = new Set<() => void>();
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
  installMessageChecks(fastify, options.endpoints.map((endpoint) => endpoint.path));
  installRefusals(fastify, options.endpoints.map((endpoint) => endpoint.path), options.stateless);

  // Only JSON bodies reach the MCP handler; fastify's text/plain default would
  // hand the SDK a string.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(JSON_CONTENT, { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") {
      done(Object.assign(new Error("Parse error: empty request body"), { statusCode: 400, rpcCode: JSONRPC.parseError }), undefined);
      return;
    }
    try {
      // JSON.parse keeps "__proto__" as an own data property; nothing here
      // merges bodies with Object.assign, so no reviver is needed.
      done(null, JSON.parse(text));
    } catch {
      done(
        Object.assign(new Error("Parse error: invalid JSON"), {
          statusCode: 400,
          rpcCode: JSONRPC.parseError,
        }),
        undefined,
      );
    }
  });

  // Callback-style hooks: they run on every request, and an async hook costs
  // a promise and a microtask turn for each.
  const settleRequest = (): void => {
    inFlight -= 1;
    if (inFlight === 0) for (const wake of idleWaiters) wake();
  };
  fastify.addHook("onRequest", (request, reply, done) => {
    // GET streams stay open for a session's life; everything else is a request
    // a shutdown should let finish.
    if (request.method !== "GET") {
      inFlight += 1;
      reply.raw.once("close", settleRequest);
    }
    if (draining) {
      // Answered here: fastify skips the route when a hook sends and does not call done.
      reply
        .code(503)
        .headers({ connection: "close", "retry-after": "1", "content-type": "application/json" })
        .send(jsonRpcErrorBody(JSONRPC.overloaded, "Server is shutting down"));
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
      const headers: Record<string, string> =
        verdict.status === 401 ? { "www-authenticate": 'Bearer realm="recipe-server"' } : {};
      reply
        .code(verdict.status)
        .headers({ ...headers, "content-type": "application/json" })
        .send(jsonRpcErrorBody(verdict.code, verdict.message));
      return;
    }
    if (verdict.user !== undefined) callers.set(request.raw, callerAuth(verdict.user));
    done();
  });

  fastify.addHook("onResponse", (request, reply, done) => {
    const ms = Math.round(reply.elapsedTime * 100) / 100;
    const status = reply.raw.statusCode;
    // request.log already carries reqId.
    request.log.info({ method: request.method, url: pathOf(request.url), status, ms }, "request");
    options.onRequestDone?.({ route: request.routeOptions.url ?? "unknown", method: request.method, status, ms });
    done();
  });

  fastify.setErrorHandler(async (error: Error & { statusCode?: number; code?: string; rpcCode?: JsonRpcCode }, request, reply) => {
    const mapped = mapError(error, limits.bodyLimitBytes);
    if (mapped.status >= 500) request.log.error({ err: error }, "request failed");
    await reply.code(mapped.status).header("content-type", "application/json").send(jsonRpcErrorBody(mapped.code, mapped.message));
  });
  fastify.setNotFoundHandler(async (request, reply) => {
    await reply
      .code(404)
      .header("content-type", "application/json")
      .send(jsonRpcErrorBody(JSONRPC.methodNotFound, `Not found: ${request.method} ${pathOf(request.url).slice(0, 200)}`));
  });

  fastify.get("/healthz", async () => ({ status: "ok" }));
  fastify.get("/readyz", async (_request, reply) => {
    const { ready, body } = options.readiness();
    await reply.code(ready ? 200 : 503).send({ ready, ...body, sessions: sessions?.size ?? 0 });
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
        await reply.code(403).header("content-type", "application/json").send(jsonRpcErrorBody(JSONRPC.forbidden, "Forbidden: MCP endpoints need a user's token from the users file"));
        return;
      }
      if (request.method === "POST") {
        const batchProblem = checkBatch(request.body, limits.maxBatch);
        if (batchProblem !== null) {
          await reply.code(400).header("content-type", "application/json").send(jsonRpcErrorBody(JSONRPC.invalidRequest, batchProblem));
          return;
        }
      }
      if (modern?.claims(request) === true) {
        hijack(reply);
        await modern.serve(request, reply.raw, auth);
        return;
      }
      await (options.stateless ? handleStateless(endpoint, request, reply) : handleStateful(endpoint, request, reply));
    };
    fastify.route({ method: ["GET", "POST", "DELETE"], url: endpoint.path, handler });
  }

  options.extend?.(fastify);

  fastify.addHook("preClose", async () => {
    await Promise.all([sessions?.closeAll(), ...[...modernLegs.values()].map((leg) => leg.close())]);
  });

  async function handleStateless(endpoint: McpEndpoint, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (request.method !== "POST") {
      await reply
        .code(405)
        .headers({ allow: "POST", "content-type": "application/json" })
        .send(jsonRpcErrorBody(JSONRPC.serverError, "Method not allowed: this server is stateless (POST only)"));
      return;
    }
    const server = endpoint.createServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    attachAuth(request);
    hijack(reply);
    reply.raw.on("close", () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  }

  async function handleStateful(endpoint: McpEndpoint, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const manager = sessions as SessionManager;
    const header = request.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = manager.get(sessionId);
      if (session === undefined || session.endpoint !== endpoint.path) {
        await reply
          .code(404)
          .header("content-type", "application/json")
          .send(jsonRpcErrorBody(JSONRPC.sessionNotFound, "Session not found: initialize a new session"));
        return;
      }
      if (request.method !== "GET" && session.inFlight >= limits.maxConcurrentPerSession) {
        await reply
          .code(429)
          .headers({ "retry-after": "1", "content-type": "application/json" })
          .send(jsonRpcErrorBody(JSONRPC.overloaded, `Too many concurrent requests on this session (max ${limits.maxConcurrentPerSession})`));
        return;
      }
      const owner = sessionUsers.get(session.transport);
      if (owner !== undefined && owner !== callers.get(request.raw)?.clientId) {
        // Identity is fixed at initialize: another user's token cannot borrow the session.
        await reply
          .code(403)
          .header("content-type", "application/json")
          .send(jsonRpcErrorBody(JSONRPC.forbidden, "Forbidden: this session belongs to another user"));
        return;
      }
      attachAuth(request);
      // A GET is the session's notification stream: one per session (the SDK
      // answers 409 to a second), so it is not counted against the cap.
      const isStream = request.method === "GET";
      if (isStream) session.streams += 1;
      else {
        session.inFlight += 1;
        session.requests += 1;
      }
      manager.touch(session);
      hijack(reply);
      reply.raw.on("close", () => {
        if (isStream) session.streams -= 1;
        else session.inFlight -= 1;
        manager.touch(session);
      });
      await session.transport.handleRequest(request.raw, reply.raw, request.body);
      return;
    }
    if (request.method === "POST" && isInitialize(request.body)) {
      const client = clientIdentity(request.socket.remoteAddress, request.headers.authorization, options.guard.token !== null);
      const admission = manager.admit(client);
      if (!admission.ok) {
        await reply
          .code(503)
          .headers({ "retry-after": "5", "content-type": "application/json" })
          .send(jsonRpcErrorBody(JSONRPC.overloaded, admission.message));
        return;
      }
      const server = endpoint.createServer();
      const transport = manager.open(endpoint.path, server, client);
      const user = callers.get(request.raw)?.clientId;
      if (user !== undefined) sessionUsers.set(transport, user);
      attachAuth(request);
      await server.connect(transport);
      hijack(reply);
      reply.raw.on("close", () => manager.abandon(transport, server));
      await transport.handleRequest(request.raw, reply.raw, request.body);
      return;
    }
    await reply
      .code(400)
      .header("content-type", "application/json")
      .send(jsonRpcErrorBody(JSONRPC.invalidRequest, "Bad Request: no valid Mcp-Session-Id header; send initialize first"));
  }

  /** The 1.32.2 transport hands `req.auth` to handlers as `extra.authInfo`. */
  function attachAuth(request: FastifyRequest): void {
    const auth = callers.get(request.raw);
    if (auth !== undefined) (request.raw as { auth?: AuthInfo }).auth = auth;
  }

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
        if (change.resources === true) modern?.notify.resourcesChanged();
        if (change.prompts === true) modern?.notify.promptsChanged();
        for (const server of sessions?.serversOn(path) ?? []) {
          // A session without an open GET stream cannot receive it, and a server
          // that declares no prompts refuses to send that one: neither is an error.
          if (change.resources === true) server.sendResourceListChanged().catch(ignore);
          if (change.prompts === true) server.sendPromptListChanged().catch(ignore);
        }
      }
    },
    inFlight: () => inFlight,
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
        await waitForIdle(graceMs);
        if (inFlight > 0) logger.warn({ inFlight, graceMs }, "shutdown grace elapsed with requests in flight");
      }
      await fastify.close();
    },
  };

  function waitForIdle(timeoutMs: number): Promise<void> {
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
  }
}

/**
 * Errors before a request exists (slow or malformed request line/headers):
 * fastify's default body is not JSON-RPC shaped. The socket is closed after.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [status, code, message] =
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, JSONRPC.invalidRequest, "Request timeout: the request was not received in time"]
      : error.code === "HPE_HEADER_OVERFLOW"
        ? [431, JSONRPC.invalidRequest, "Request headers too large"]
        : [400, JSONRPC.invalidRequest, "Bad Request: malformed HTTP request"];
  if (socket.writable) {
    const body = jsonRpcErrorBody(code, message);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** The caller as the SDKs carry it: the user id as `clientId`, never the token. */
function callerAuth(user: string): AuthInfo {
  return { token: "", clientId: user, scopes: [] };
}

/** After hijack fastify no longer writes; headers its hooks set must be copied. */
function hijack(reply: FastifyReply): void {
  const headers = reply.getHeaders();
  reply.hijack();
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !reply.raw.headersSent) reply.raw.setHeader(name, value as string | number | string[]);
  }
  reply.raw.on("error", ignore);
}

/** Socket errors after hijack (a client gone mid-answer) are the client's business. */
function ignore(): void {}

/** The path of a request URL, without its query. */
function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

function isInitialize(body: unknown): boolean {
  if (Array.isArray(body)) return body.some((message) => isInitializeRequest(message));
  return isInitializeRequest(body);
}

function checkBatch(body: unknown, maxBatch: number): string | null {
  if (!Array.isArray(body)) return null;
  if (body.length === 0) return "Invalid Request: empty batch";
  if (body.length > maxBatch) return `Invalid Request: batch of ${body.length} messages exceeds the limit of ${maxBatch}`;
  return null;
}

function mapError(
  error: Error & { statusCode?: number; code?: string; rpcCode?: JsonRpcCode },
  bodyLimit: number,
): { status: number; code: JsonRpcCode; message: string } {
  if (error.rpcCode !== undefined) return { status: error.statusCode ?? 400, code: error.rpcCode, message: error.message };
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return { status: 413, code: JSONRPC.invalidRequest, message: `Request body exceeds the limit of ${bodyLimit} bytes` };
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return { status: 415, code: JSONRPC.invalidRequest, message: "Unsupported Media Type: Content-Type must be application/json" };
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return { status: 400, code: JSONRPC.parseError, message: "Parse error: invalid JSON" };
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return { status: 400, code: JSONRPC.invalidRequest, message: "Invalid Content-Length" };
    default: {
      const status = error.statusCode !== undefined && error.statusCode >= 400 ? error.statusCode : 500;
      return status >= 500
        ? { status, code: JSONRPC.internalError, message: "Internal error" }
        : { status, code: JSONRPC.invalidRequest, message: error.message };
    }
  }
}
