/** JSON-RPC shaped HTTP errors: every refusal a client gets parses as JSON-RPC. */
import type { ServerResponse } from "node:http";

export const JSONRPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** Implementation-defined server errors (-32000 … -32099). */
  serverError: -32000,
  sessionNotFound: -32001,
  unauthorized: -32002,
  forbidden: -32003,
  overloaded: -32004,
} as const;

export function jsonRpcErrorBody(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
}

/** For raw responses (after hijack, or outside fastify's reply). */
export function writeJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = jsonRpcErrorBody(code, message);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers });
  res.end(body);
}
