/**
 * The one table of JSON-RPC error codes the server answers with, on both
 * protocol eras, and the body shape of every HTTP-level refusal. Codes the
 * MCP specification defines carry the spec's names.
 */

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
