/**
 * The 2026-07-28 leg of an endpoint: requests whose body claims the
 * per-request `_meta` envelope are answered statelessly by the v2 SDK's
 * `createMcpHandler` (strict: `legacy: 'reject'`), which owns
 * server/discover, the header checks, cache hints and subscriptions/listen.
 * Everything in front of it (guard, body and batch limits, content type)
 * stays in app.ts: the v2 handler validates none of it.
 */
import type { ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/server";
import {
  classifyInboundRequest,
  createMcpHandler,
  type McpHttpHandler,
  type Server as ModernServer,
  type ServerNotifier,
} from "@modelcontextprotocol/server";
import { JSONRPC, jsonRpcErrorBody } from "./refusals.js";

interface ModernLegOptions {
  /**
   * A fresh v2 server per request (the handler connects each to one
   * exchange); `user`: the caller the users file named; `method`: the one
   * method that request calls, when it is one request (a server made for it
   * needs that method's handler only).
   */
  readonly createServer: (user?: string, method?: string) => ModernServer;
  /** The same bound fastify applies; bodies arrive parsed, so this only keeps the SDK's own reads in line. */
  readonly maxBodyBytes: number;
  readonly onerror?: (error: Error) => void;
}

export interface ModernRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: unknown;
}

export interface ModernLeg {
  /** Does this request belong to the 2026 leg? The SDK's own classification (what `isLegacyRequest` runs), from the parsed body. */
  claims(request: ModernRequest): boolean;
  /** Answers one request on `res` (already hijacked from fastify). */
  /** `authInfo`: the caller the guard identified (users file), handed to handlers as `ctx.http.authInfo`. */
  serve(request: ModernRequest, res: ServerResponse, authInfo?: AuthInfo): Promise<void>;
  /** Tells every open subscriptions/listen stream. */
  readonly notify: ServerNotifier;
  /** Tells the streams `user` opened (users file); `undefined`: every stream, as `notify`. */
  notifyFor(user: string | undefined): ServerNotifier;
  /** Streams open now (subscriptions/listen, or a call answered over SSE). */
  openStreams(): number;
  /** Ends every open subscriptions/listen stream (a shutdown starting: they never end by themselves). */
  endListenStreams(): void;
  /** Tears the handler down: in-flight exchanges aborted. */
  close(): Promise<void>;
}

export function createModernLeg(options: ModernLegOptions): ModernLeg {
  // The method of each request being served, found by the web Request the handler hands its factory.
  const methods = new WeakMap<Request, string>();
  const makeHandler = (): McpHttpHandler =>
    createMcpHandler((context) => options.createServer(context.authInfo?.clientId, methods.get(context.requestInfo as Request)), {
      legacy: "reject",
      maxRequestBodySize: options.maxBodyBytes,
      ...(options.onerror !== undefined ? { onerror: options.onerror } : {}),
    });
  const shared = makeHandler();
  // A handler's bus reaches every listen stream it serves, and the SDK gives
  // a stream's listener no way to tell whose it is: with a users file each
  // user's requests go to a handler of their own (made on first use), so
  // one user's playbook change is published on that user's streams only.
  const byUser = new Map<string, McpHttpHandler>();
  const handlerFor = (user: string | undefined): McpHttpHandler => {
    if (user === undefined) return shared;
    let own = byUser.get(user);
    if (own === undefined) {
      own = makeHandler();
      byUser.set(user, own);
    }
    return own;
  };
  const everyone = fanOut(() => [shared, ...byUser.values()]);
  const streams = new Set<AbortController>();
  const listening = new Set<AbortController>();

  return {
    claims(request) {
      // Only a POST can carry the envelope; GET and DELETE are 2025 session operations.
      if (request.method !== "POST") return false;
      const known = plainClaim(request);
      if (known !== undefined) return known;
      const outcome = classifyInboundRequest({
        httpMethod: "POST",
        ...headerField("protocolVersionHeader", request.headers["mcp-protocol-version"]),
        ...headerField("mcpMethodHeader", request.headers["mcp-method"]),
        ...headerField("mcpNameHeader", request.headers["mcp-name"]),
        body: request.body,
      });
      return outcome.kind !== "legacy";
    },
    async serve(request, res, authInfo) {
      // The disconnect controller is made only when something listens to it (a
      // listen stream, an answer streamed over SSE): a plain JSON answer is one
      // write that needs none.
      const disconnect = new Disconnect(res);
      const listen = isListen(request.body);
      const abort = listen ? disconnect.controller() : null;
      if (abort !== null) listening.add(abort);
      try {
        // Only a listen stream hands the SDK the disconnect signal (its listener
        // must go when the client does); a Request bound to a signal costs
        // ~40 µs more to make, and every other answer is one JSON write whose
        // stream, if any, writeResponse itself cancels on disconnect.
        const web = toWebRequest(request, abort?.signal);
        const method = methodOf(request.body);
        if (method !== undefined) methods.set(web, method);
        const response = await handlerFor(authInfo?.clientId).fetch(web, {
          parsedBody: request.body,
          ...(authInfo !== undefined ? { authInfo } : {}),
        });
        await writeResponse(response, res, disconnect, streams);
      } catch (error) {
        // The handler answers every refusal itself; a throw is a bug or a handler torn down at shutdown.
        options.onerror?.(error instanceof Error ? error : new Error(String(error)));
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" }).end(jsonRpcErrorBody(JSONRPC.internalError, "Internal error"));
        else res.end();
      } finally {
        disconnect.finish();
        if (abort !== null) listening.delete(abort);
      }
    },
    notify: everyone,
    notifyFor: (user) => (user === undefined ? everyone : byUser.get(user)?.notify ?? NOBODY),
    openStreams: () => streams.size,
    endListenStreams() {
      for (const stream of listening) stream.abort();
    },
    async close() {
      for (const stream of streams) stream.abort();
      await Promise.all([shared, ...byUser.values()].map((handler) => handler.close()));
    },
  };
}

/** The envelope key of the 2026-07-28 per-request `_meta` (the SDK's PROTOCOL_VERSION_META_KEY). */
const ENVELOPE_CLAIM = "io.modelcontextprotocol/protocolVersion";
/** The first revision the v2 SDK serves per request (its FIRST_MODERN_PROTOCOL_VERSION). */
const FIRST_MODERN_VERSION = "2026-07-28";
const JSON_RPC_MEMBERS: ReadonlySet<string> = new Set(["jsonrpc", "id", "method", "params"]);

/**
 * classifyInboundRequest's answer for the two shapes nearly every request
 * has, without its schema parses (three zod parses, two of them failing, per
 * request); undefined for anything else, which the SDK then classifies.
 * - One message whose params carry the envelope claim (`_meta` holding the
 *   protocol version key), other than initialize: the SDK answers it on the
 *   2026 leg, as a request or as one of its refusals; never legacy.
 * - One well-formed request or notification with no `_meta` at all and no
 *   2026 protocol version header: legacy, whatever its method.
 */
function plainClaim(request: ModernRequest): boolean | undefined {
  const body = request.body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const message = body as Record<string, unknown>;
  const params = message["params"];
  const method = message["method"];
  if (typeof method !== "string") return undefined;
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) return undefined;
  const meta = (params as Record<string, unknown> | undefined)?.["_meta"];
  if (meta !== undefined) {
    return method !== "initialize" && typeof meta === "object" && meta !== null && !Array.isArray(meta) && ENVELOPE_CLAIM in meta ? true : undefined;
  }
  const header = request.headers["mcp-protocol-version"];
  if (header !== undefined && (typeof header !== "string" || header.trim() >= FIRST_MODERN_VERSION)) return undefined;
  if (message["jsonrpc"] !== "2.0") return undefined;
  const id = message["id"];
  if (id !== undefined && typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  for (const key in message) if (!JSON_RPC_MEMBERS.has(key)) return undefined;
  return false;
}

/** One notifier publishing on every handler `handlers()` names at the time of the call. */
function fanOut(handlers: () => Iterable<McpHttpHandler>): ServerNotifier {
  const each = (send: (notify: ServerNotifier) => void) => (): void => {
    for (const handler of handlers()) send(handler.notify);
  };
  return {
    toolsChanged: each((notify) => notify.toolsChanged()),
    promptsChanged: each((notify) => notify.promptsChanged()),
    resourcesChanged: each((notify) => notify.resourcesChanged()),
    resourceUpdated: (uri) => {
      for (const handler of handlers()) handler.notify.resourceUpdated(uri);
    },
  };
}

/** A user with no handler yet has no stream open: nobody to tell. */
const NOBODY = fanOut(() => []);

/** The method of a body that is one message. */
function methodOf(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const method = (body as { method?: unknown }).method;
  return typeof method === "string" ? method : undefined;
}

function isListen(body: unknown): boolean {
  return typeof body === "object" && body !== null && (body as { method?: unknown }).method === "subscriptions/listen";
}

function headerField<K extends string>(key: K, value: string | string[] | undefined): Partial<Record<K, string>> {
  const single = Array.isArray(value) ? value[0] : value;
  return single === undefined ? {} : ({ [key]: single } as Record<K, string>);
}

/**
 * Headers the v2 handler reads on this leg: the content type, what the client
 * accepts, and the MCP headers (`MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name`, `Mcp-Param-*`). Host, Origin and the token were checked by the
 * guard and the handlers read none of them, so the rest (user agent,
 * encodings, connection) is not copied: each header a web `Headers` takes is
 * validated and normalized, a few thousand instructions apiece.
 */
function forwarded(name: string): boolean {
  return name === "content-type" || name === "accept" || name.startsWith("mcp-");
}

/**
 * A body-less web Request: the body is already parsed (fastify read and
 * bounded it) and goes to the handler as `parsedBody`, so nothing re-reads
 * or re-serializes it.
 */
function toWebRequest(request: ModernRequest, signal: AbortSignal | undefined): Request {
  const headers = new Headers();
  for (const name in request.headers) {
    if (!forwarded(name)) continue;
    const value = request.headers[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  // A fixed origin: the handler reads nothing from the URL, and a Host the
  // guard let through on a public bind need not make a valid URL.
  return new Request(`http://localhost${request.url}`, signal === undefined ? { method: request.method, headers } : { method: request.method, headers, signal });
}

/**
 * The client going away while a request is served: an AbortController made
 * on first need (aborted at once if the client is gone by then), aborted on
 * the reply's close until the request is finished.
 */
class Disconnect {
  private abort: AbortController | null = null;
  private gone = false;
  private finished = false;

  constructor(res: ServerResponse) {
    res.once("close", () => {
      if (this.finished) return;
      this.gone = true;
      this.abort?.abort();
    });
  }

  controller(): AbortController {
    if (this.abort === null) {
      this.abort = new AbortController();
      if (this.gone) this.abort.abort();
    }
    return this.abort;
  }

  finish(): void {
    this.finished = true;
  }
}

async function writeResponse(response: Response, res: ServerResponse, disconnect: Disconnect, streams: Set<AbortController>): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (response.body === null) {
    res.writeHead(response.status, headers).end();
    return;
  }
  if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    // One write with a Content-Length, as the 2025 leg answers.
    const body = Buffer.from(await response.arrayBuffer());
    headers["content-length"] = String(body.length);
    res.writeHead(response.status, headers).end(body);
    return;
  }
  const abort = disconnect.controller();
  streams.add(abort);
  res.writeHead(response.status, headers);
  res.flushHeaders();
  const reader = response.body.getReader();
  const stop = (): void => void reader.cancel().catch(() => undefined);
  abort.signal.addEventListener("abort", stop, { once: true });
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done || abort.signal.aborted) break;
      if (!res.write(chunk.value)) await drained(res, abort.signal);
    }
  } catch {
    // The stream failed or was cancelled: end the response either way.
  } finally {
    streams.delete(abort);
    abort.signal.removeEventListener("abort", stop);
    res.end();
  }
}

function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    res.once("drain", done);
    signal.addEventListener("abort", done, { once: true });
  });
}
