/**
 * What every handler of the surface table (surface.ts) answers: a result, or
 * the JSON-RPC error datum an era sends as it is. No SDK types: each era's
 * installer turns a datum into its own error class, once (McpError on 1.x,
 * ProtocolError on v2).
 */

/** JSON-RPC "Invalid params": the request named something we do not serve or sent bad arguments. */
export const INVALID_PARAMS = -32602;
/** JSON-RPC "Internal error": nothing the client can fix by changing the request. */
export const INTERNAL_ERROR = -32603;

interface RpcErrorDatum {
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

/** How much of a client-supplied name (tool, prompt, URI) an answer may echo. */
const ECHO_PREFIX = 64;

/**
 * A client-supplied name for an error message: quoted, and never more than
 * its first ECHO_PREFIX characters (the message then says so), so a huge
 * name is never reflected back.
 */
export function quoted(text: string): string {
  if (text.length <= ECHO_PREFIX) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, ECHO_PREFIX))}… (the first ${ECHO_PREFIX} of ${text.length} characters)`;
}

/**
 * A URI for the `data.uri` of a resource miss, which the 2026-07-28 revision
 * defines so that a client can match the miss to what it asked: bounded
 * (500 characters), never the flood a hostile request may send.
 */
export function echoed(uri: string): string {
  return uri.length <= DATA_URI_PREFIX ? uri : uri.slice(0, DATA_URI_PREFIX);
}

const DATA_URI_PREFIX = 500;

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
