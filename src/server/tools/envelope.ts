import type { ToolErrorCode } from "../../util/error-codes.js";

/** The dcc-mcp-core result envelope; `revision` is our extra (docs/skill-packs.md). */
export interface Envelope {
  readonly success: boolean;
  readonly message: string;
  readonly error?: ToolErrorCode;
  readonly context?: unknown;
  readonly revision?: number;
}

/*
 * Envelopes are built with their keys in sorted order (context, error,
 * message, revision, success): the registry serializes a sorted copy, and
 * keys already in order spare it a sort on every call. Order is not meaning:
 * the text is sorted either way.
 */

/** An envelope while its fields are added in order. */
type Building = { -readonly [K in keyof Envelope]?: Envelope[K] };

export function ok(message: string, context: unknown, revision?: number): Envelope {
  return revision === undefined ? { context, message, success: true } : { context, message, revision, success: true };
}

export function fail(error: ToolErrorCode, message: string, context?: unknown, revision?: number): Envelope {
  const envelope: Building = context === undefined ? { error, message } : { context, error, message };
  if (revision !== undefined) envelope.revision = revision;
  envelope.success = false;
  return envelope as Envelope;
}

/**
 * A copy of `envelope` stamped with `revision`. Built field by field: a
 * spread of envelopes of several shapes takes V8's slow generic copy, and
 * this runs on every call.
 */
export function withRevision(envelope: Envelope, revision: number): Envelope {
  const stamped: Building = {};
  if ("context" in envelope) stamped.context = envelope.context;
  if (envelope.error !== undefined) stamped.error = envelope.error;
  stamped.message = envelope.message;
  stamped.revision = revision;
  stamped.success = envelope.success;
  return stamped as Envelope;
}
