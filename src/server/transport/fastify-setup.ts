/**
 * The fastify instance every endpoint is served from: timeouts, JSON-only
 * bodies, and JSON-RPC shaped answers for fastify's own errors and 404s;
 * and the small facts about one request and its reply the legs share.
 */
import { randomUUID } from "node:crypto";
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from "fastify";
import type { Logger } from "pino";
import type { HttpLimits } from "../../config/types.js";
import { answerClientError, answerFrameworkError, JSONRPC, mapError, sendJsonRpcError, type JsonRpcCode } from "./refusals.js";

const JSON_CONTENT = /^application\/json\s*(;.*)?$/i;

export function createFastify(limits: HttpLimits, logger: Logger): FastifyInstance {
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

  // Only JSON bodies reach the MCP handler; fastify's text/plain default would
  // hand the SDK a string.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(JSON_CONTENT, { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    const parseError = (what: string): Error => Object.assign(new Error(`Parse error: ${what}`), { statusCode: 400, rpcCode: JSONRPC.parseError });
    if (text.trim() === "") return done(parseError("empty request body"), undefined);
    try {
      // JSON.parse keeps "__proto__" as an own data property; nothing here
      // merges bodies with Object.assign, so no reviver is needed.
      done(null, JSON.parse(text));
    } catch {
      done(parseError("invalid JSON"), undefined);
    }
  });

  fastify.setErrorHandler(async (error: Error & { statusCode?: number; code?: string; rpcCode?: JsonRpcCode }, request, reply) => {
    const mapped = mapError(error, limits.bodyLimitBytes);
    if (mapped.status >= 500) request.log.error({ err: error }, "request failed");
    await sendJsonRpcError(reply, mapped.status, mapped.code, mapped.message);
  });
  fastify.setNotFoundHandler(async (request, reply) => {
    await sendJsonRpcError(reply, 404, JSONRPC.methodNotFound, `Not found: ${request.method} ${pathOf(request.url).slice(0, 200)}`);
  });
  return fastify;
}

/** After hijack fastify no longer writes; headers its hooks set must be copied. */
export function hijack(reply: FastifyReply): void {
  const headers = reply.getHeaders();
  reply.hijack();
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !reply.raw.headersSent) reply.raw.setHeader(name, value as string | number | string[]);
  }
  reply.raw.on("error", ignore);
}

/** Socket errors after hijack (a client gone mid-answer) are the client's business. */
export function ignore(): void {}

/** The path of a request URL, without its query. */
export function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}
