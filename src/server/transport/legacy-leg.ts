/**
 * The 2025-era leg of an MCP endpoint: the SDK 1.32.2 streamable HTTP
 * transport, one transport per request when stateless, else a session per
 * initialize held by the SessionManager.
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { FastifyReply, FastifyRequest } from "fastify";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { HttpLimits } from "../../config/types.js";
import { hijack } from "./fastify-setup.js";
import type { GuardOptions } from "./guard.js";
import { JSONRPC, sendJsonRpcError } from "./refusals.js";
import { clientIdentity, type SessionManager } from "./sessions.js";

/** What this leg serves at one path (an McpEndpoint, http-app.ts). */
export interface LegacyEndpoint {
  readonly path: string;
  /**
   * A 1.32.2 server for one 2025-era session (or one stateless 2025 request);
   * `user`: who the users file says opened it (its handlers see the caller per request as `authInfo`).
   */
  createServer(user?: string): Server;
}

/** What a stateful request needs of the app around it. */
interface LegacyContext {
  readonly sessions: SessionManager;
  readonly limits: HttpLimits;
  readonly options: { readonly guard: GuardOptions };
  /** The user each request's token named (users file only). */
  readonly callers: Callers;
  /** The user a session was initialized by: its identity for the session's life. */
  readonly sessionUsers: WeakMap<object, string>;
}

type Callers = WeakMap<object, AuthInfo>;

export async function handleStateless(endpoint: LegacyEndpoint, request: FastifyRequest, reply: FastifyReply, callers: Callers): Promise<void> {
  if (request.method !== "POST") {
    await sendJsonRpcError(reply, 405, JSONRPC.serverError, "Method not allowed: this server is stateless (POST only)", { allow: "POST" });
    return;
  }
  const server = endpoint.createServer(callers.get(request.raw)?.clientId);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  attachAuth(callers, request);
  hijack(reply);
  reply.raw.on("close", () => {
    void transport.close().catch(() => undefined);
    void server.close().catch(() => undefined);
  });
  await server.connect(transport);
  await transport.handleRequest(request.raw, reply.raw, request.body);
}


export async function handleStateful(context: LegacyContext, endpoint: LegacyEndpoint, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { limits, options } = context;
  const manager = context.sessions;
  const header = request.headers["mcp-session-id"];
  const sessionId = Array.isArray(header) ? header[0] : header;
  if (sessionId !== undefined) {
    const session = manager.get(sessionId);
    if (session === undefined || session.endpoint !== endpoint.path) {
      await sendJsonRpcError(reply, 404, JSONRPC.sessionNotFound, "Session not found: initialize a new session");
      return;
    }
    if (request.method !== "GET" && session.inFlight >= limits.maxConcurrentPerSession) {
      await sendJsonRpcError(reply, 429, JSONRPC.overloaded, `Too many concurrent requests on this session (max ${limits.maxConcurrentPerSession})`, { "retry-after": "1" });
      return;
    }
    const owner = context.sessionUsers.get(session.transport);
    if (owner !== undefined && owner !== context.callers.get(request.raw)?.clientId) {
      // Identity is fixed at initialize: another user's token cannot borrow the session.
      await sendJsonRpcError(reply, 403, JSONRPC.forbidden, "Forbidden: this session belongs to another user");
      return;
    }
    attachAuth(context.callers, request);
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
      await sendJsonRpcError(reply, 503, JSONRPC.overloaded, admission.message, { "retry-after": "5" });
      return;
    }
    const user = context.callers.get(request.raw)?.clientId;
    const server = endpoint.createServer(user);
    const transport = manager.open(endpoint.path, server, client, user);
    if (user !== undefined) context.sessionUsers.set(transport, user);
    attachAuth(context.callers, request);
    await server.connect(transport);
    hijack(reply);
    reply.raw.on("close", () => manager.abandon(transport, server));
    await transport.handleRequest(request.raw, reply.raw, request.body);
    return;
  }
  await sendJsonRpcError(reply, 400, JSONRPC.invalidRequest, "Bad Request: no valid Mcp-Session-Id header; send initialize first");
}

/** The 1.32.2 transport hands `req.auth` to handlers as `extra.authInfo`. */
function attachAuth(callers: Callers, request: FastifyRequest): void {
  const auth = callers.get(request.raw);
  if (auth !== undefined) (request.raw as { auth?: AuthInfo }).auth = auth;
}

function isInitialize(body: unknown): boolean {
  if (Array.isArray(body)) return body.some((message) => isInitializeRequest(message));
  return isInitializeRequest(body);
}
