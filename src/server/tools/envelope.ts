import type { ToolErrorCode } from "./errors.js";

/** The dcc-mcp-core result envelope; `revision` is our extra (SPEC §10). */
export interface Envelope {
  readonly success: boolean;
  readonly message: string;
  readonly error?: ToolErrorCode;
  readonly context?: unknown;
  readonly revision?: number;
}

export function ok(message: string, context: unknown, revision?: number): Envelope {
  return revision === undefined ? { success: true, message, context } : { success: true, message, context, revision };
}

export function fail(error: ToolErrorCode, message: string, context?: unknown, revision?: number): Envelope {
  const envelope: { -readonly [K in keyof Envelope]: Envelope[K] } = { success: false, message, error };
  if (context !== undefined) envelope.context = context;
  if (revision !== undefined) envelope.revision = revision;
  return envelope;
}

/**
 * A copy of `envelope` stamped with `revision`. Built field by field: a
 * spread of envelopes of several shapes takes V8's slow generic copy, and
 * this runs on every call.
 */
export function withRevision(envelope: Envelope, revision: number): Envelope {
  const stamped: { -readonly [K in keyof Envelope]: Envelope[K] } = { success: envelope.success, message: envelope.message };
  if (envelope.error !== undefined) stamped.error = envelope.error;
  if ("context" in envelope) stamped.context = envelope.context;
  stamped.revision = revision;
  return stamped;
}
