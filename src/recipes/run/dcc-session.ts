/**
 * One live MCP session with a DCC's endpoint, whichever protocol revision it
 * speaks: what mcp-connection.ts needs of an SDK client, so the connection's
 * bounds, tool cache and reconnection are written once for both SDK lines
 * (session-2025.ts: SDK 1.32.2; session-2026.ts: the v2 client, 2026-07-28).
 */
import type { DccTool, DccToolResult } from "./types.js";

export interface Bounds {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** How a failed exchange ended, in the connection's terms. */
export type SessionFailure =
  | { readonly kind: "timeout" }
  /** The DCC answered with a JSON-RPC error: it is there, and refused this. */
  | { readonly kind: "refused"; readonly code: number; readonly message: string }
  /** The link broke (closed, reset, HTTP failure): reconnect. */
  | { readonly kind: "broken" };

export interface DccSession {
  /** The protocol revision the endpoint speaks on this session. */
  readonly revision: string;
  ping(bounds: Bounds): Promise<void>;
  listTools(cursor: string | undefined, bounds: Bounds): Promise<{ readonly tools: readonly DccTool[]; readonly nextCursor?: string }>;
  callTool(name: string, args: Record<string, unknown>, bounds: Bounds): Promise<DccToolResult>;
  /** What an error thrown by this session's exchanges means. */
  classify(error: unknown): SessionFailure;
  close(): Promise<void>;
}

export interface SessionTarget {
  readonly url: string;
  /** Sent with every request (a bearer token); never logged or echoed. */
  readonly headers: Readonly<Record<string, string>>;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** The DCC said its tool list changed. */
  readonly onToolsChanged: () => void;
  /** The session ended (the DCC went away, or close()). */
  readonly onClosed: () => void;
}

/** Opening a session: a session, or "not this revision" (the endpoint refused it; try the other), thrown errors otherwise. */
export type SessionOpened = { readonly ok: true; readonly session: DccSession } | { readonly ok: false; readonly revisionRefused: string };

/** Bounds as both SDK clients take them in their request options. */
export function requestOptions(bounds: Bounds): { timeout: number; signal?: AbortSignal } {
  return { timeout: bounds.timeoutMs, ...(bounds.signal ? { signal: bounds.signal } : {}) };
}

/** A tools/list page of either SDK client, as the session hands it on. */
export function listedTools(listed: { readonly tools: readonly DccTool[]; readonly nextCursor?: string }): { readonly tools: readonly DccTool[]; readonly nextCursor?: string } {
  return { tools: listed.tools.map((t) => ({ name: t.name, inputSchema: t.inputSchema })), ...(listed.nextCursor !== undefined ? { nextCursor: listed.nextCursor } : {}) };
}

/** A tools/call result in the engine's shape. */
export function toolResultOf(result: Readonly<Record<string, unknown>>): DccToolResult {
  // `result.content` etc. are read as unknown: the engine keeps only these three fields, whatever else the answer carries.
  const content = Array.isArray(result["content"]) ? (result["content"] as unknown[]) : [];
  return { isError: result["isError"] === true, content, ...(result["structuredContent"] !== undefined ? { structuredContent: result["structuredContent"] } : {}) };
}
