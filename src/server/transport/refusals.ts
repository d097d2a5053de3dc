/**
 * The one refusal table: the JSON-RPC error codes the server answers with on
 * both protocol eras, the body shape of every HTTP-level refusal, and the
 * answers to what goes wrong before a request reaches an MCP handler
 * (malformed requests before fastify has one, fastify's own errors, and the
 * refusals Node or fastify would otherwise answer in their own shape: an
 * empty body, fastify's `{error, code, statusCode}`, a dropped socket).
 * Codes the MCP specification defines carry the spec's names.
 */
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

export const JSONRPC = {
  // JSON-RPC 2.0 (§5.1).
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,

  // Defined by MCP.
  /**
   * "Resource not found" (2025-11-25 server/resources). The 2026-07-28
   * revision answers a missing resource with -32602 and `data.uri` instead;
   * the v2 SDK maps this code to that on the 2026 leg.
   */
  RESOURCE_NOT_FOUND: -32002,
  /** A request needs a client capability its `_meta` did not declare (2026-07-28). */
  MISSING_REQUIRED_CLIENT_CAPABILITY: -32021,
  /** The protocol version a request names is not served here (2026-07-28). */
  UNSUPPORTED_PROTOCOL_VERSION: -32022,

  // Implementation-defined server errors (-32000 … -32099), on HTTP refusals only.
  serverError: -32000,
  sessionNotFound: -32001,
  /**
   * HTTP 401 bodies. The same number as RESOURCE_NOT_FOUND: this code was
   * given out before that one was taken into the table, clients match it, and
   * the two never meet (one is an HTTP 401 before any MCP handling, the other
   * a resources/read answer), so it stays; the HTTP status tells them apart.
   */
  unauthorized: -32002,
  forbidden: -32003,
  overloaded: -32004,
} as const;

export type JsonRpcCode = (typeof JSONRPC)[keyof typeof JSONRPC];

export function jsonRpcErrorBody(code: JsonRpcCode, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
}

export const REQUEST_TIMEOUT_MESSAGE = "Request timeout: the request was not received in time";

/**
 * Errors before a request exists (slow or malformed request line/headers):
 * fastify's default body is not JSON-RPC shaped. The socket is closed after.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [status, code, message] =
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, JSONRPC.invalidRequest, REQUEST_TIMEOUT_MESSAGE]
      : error.code === "HPE_HEADER_OVERFLOW"
        ? [431, JSONRPC.invalidRequest, "Request headers too large"]
        : [400, JSONRPC.invalidRequest, "Bad Request: malformed HTTP request"];
  // A timed-out client has nothing unread (the slow request was read as it
  // came): it goes at once, so silent sockets never hold a connection slot.
  if (!socket.writable || error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    if (socket.writable) socket.write(rawJsonRpcError(status, code, message));
    socket.destroy(error);
    return;
  }
  // Ended, not destroyed: destroying a socket whose peer is still sending (an
  // oversized header arrives in pieces) makes the kernel answer with a reset,
  // which discards the answer not yet read. The rest of the request is read
  // and dropped for a short, bounded while, then the socket goes.
  socket.end(rawJsonRpcError(status, code, message));
  socket.on("data", ignoreData);
  socket.resume();
  setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS).unref();
}

/** How long a socket answered by answerClientError may go on sending before it is closed. */
const CLIENT_ERROR_LINGER_MS = 1_000;
const ignoreData = (): void => undefined;

/** A whole HTTP/1.1 answer for a socket fastify does not own; the connection closes after it. */
export function rawJsonRpcError(status: number, code: JsonRpcCode, message: string, headers = ""): string {
  const body = jsonRpcErrorBody(code, message);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${headers}Connection: close\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** A JSON-RPC error body as the reply, with `status`. */
export function sendJsonRpcError(reply: FastifyReply, status: number, code: JsonRpcCode, message: string, headers: Record<string, string> = {}): FastifyReply {
  return reply.code(status).headers({ ...headers, "content-type": "application/json" }).send(jsonRpcErrorBody(code, message));
}

export function mapError(
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

/** Fastify's `frameworkErrors`: a URL that does not decode (`/mcp%zz`), a failing route constraint. */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const message = error.code === "FST_ERR_BAD_URL" ? "Bad Request: the URL is not valid" : "Bad Request";
  void sendJsonRpcError(reply, 400, JSONRPC.invalidRequest, message);
}

const MCP_METHODS = "GET, POST, DELETE";
/** Methods no MCP endpoint serves; fastify would answer them 404 as if the path did not exist. */
const OTHER_METHODS = ["PUT", "PATCH", "OPTIONS"] as const;

export function installRefusals(fastify: FastifyInstance, mcpPaths: readonly string[], stateless: boolean): void {
  const allow = stateless ? "POST" : MCP_METHODS;
  for (const url of mcpPaths) {
    fastify.route({
      method: [...OTHER_METHODS],
      url,
      handler: async (request, reply) => {
        await sendJsonRpcError(reply, 405, JSONRPC.serverError, `Method not allowed: ${request.method} (allowed: ${allow})`, { allow });
      },
    });
  }
  // Node answers an Expect other than 100-continue with an empty 417 unless told otherwise.
  fastify.server.on("checkExpectation", (_request, response) => {
    const body = jsonRpcErrorBody(JSONRPC.invalidRequest, "Expectation Failed: only Expect: 100-continue is supported");
    response.writeHead(417, { connection: "close", "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    response.end(body);
  });
  // Node drops a CONNECT's socket without a word when nothing listens for it.
  fastify.server.on("connect", (_request, socket: Duplex) => {
    socket.end(rawJsonRpcError(405, JSONRPC.serverError, "Method not allowed: CONNECT", `Allow: ${allow}\r\n`));
  });
}
