/**
 * JSON-RPC shaped answers to what goes wrong at the HTTP layer (app.ts):
 * malformed requests before fastify has one, and fastify's own errors.
 */
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyReply } from "fastify";
import { JSONRPC, jsonRpcErrorBody, type JsonRpcCode } from "./jsonrpc.js";

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
  if (socket.writable) socket.write(rawJsonRpcError(status, code, message));
  socket.destroy(error);
}

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
