/**
 * What the protocol-neutral providers (prompts, skills) answer: a result, or
 * the JSON-RPC error datum a leg sends as it is. No SDK types: each leg
 * turns a datum into its own error class (McpError on 1.x, ProtocolError on v2).
 */

/** JSON-RPC "Invalid params": the request named something we do not serve or sent bad arguments. */
export const INVALID_PARAMS = -32602;
/** JSON-RPC "Internal error": nothing the client can fix by changing the request. */
export const INTERNAL_ERROR = -32603;

export interface RpcErrorDatum {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export type Outcome<T> = { readonly ok: true; readonly result: T } | { readonly ok: false; readonly error: RpcErrorDatum };

export function success<T>(result: T): Outcome<T> {
  return { ok: true, result };
}

export function failure<T = never>(code: number, message: string, data?: unknown): Outcome<T> {
  return { ok: false, error: data === undefined ? { code, message } : { code, message, data } };
}

/** A client-supplied name for an error message: quoted, bounded, never a flood of bytes. */
export function quoted(text: string, max = 200): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

/** The catalog as the tools read it: the snapshot current at call time (null before the first load). */
export const NOT_READY_MESSAGE = "The recipe catalog is still loading; try again shortly";

/** Opaque page cursors: base64url of a tagged key, so a client cannot mistake them for an index. */
export function encodeCursor(tag: string, key: string): string {
  return Buffer.from(`${tag}:${key}`, "utf8").toString("base64url");
}

/** The key of a cursor made by `encodeCursor` with the same tag, or null when it is not one. */
export function decodeCursor(tag: string, cursor: unknown): string | null {
  if (typeof cursor !== "string" || cursor.length > 4096 || !/^[A-Za-z0-9_-]*$/.test(cursor)) return null;
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  return text.startsWith(`${tag}:`) ? text.slice(tag.length + 1) : null;
}

/** First index in sorted `keys` whose key sorts after `after` (code-unit order). */
export function indexAfter(keys: readonly string[], after: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (keys[mid]! <= after) low = mid + 1;
    else high = mid;
  }
  return low;
}
