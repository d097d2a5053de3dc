/**
 * A parse job, on either side of the thread. The calling thread hands a
 * parse worker a pack's text, or its path to read and key itself; for a
 * path, parsePackFile is the whole job (read bounded, keyed for the parse
 * cache, decoded, parsed), so on a cold load the calling thread neither
 * reads nor hashes nor copies the text, and a worker's failures come back
 * as the same data the calling thread would have produced. The pool and
 * the worker both import down to this file.
 *
 * A parsed pack as a worker posts it back: a structured clone builds an
 * object graph one property at a time, and a pack's twenty small summaries
 * cost about three times what JSON costs, on both threads (the worker
 * serialises, the calling thread deserialises). So summaries and
 * diagnostics travel as one JSON string, and the byte arrays as they are.
 * Every value in them is JSON data (strings, finite numbers, booleans, null).
 */
import type { Diagnostic } from "../../util/diagnostics.js";
import { decodeUtf8, type BoundedRead } from "../../util/read-bounded.js";
import { readInside } from "../../util/read-inside.js";
import { packCacheKey } from "./parse-cache.js";
import { parsePack, type EntrySummary, type PackRecord } from "./parsed-pack.js";
import { MAX_RECIPE_FILE_BYTES } from "./yaml-pack.js";

export type PackFileResult =
  | { readonly kind: "parsed"; readonly record: PackRecord; readonly key: string }
  | { readonly kind: "unreadable"; readonly read: Exclude<BoundedRead, { ok: true }> }
  | { readonly kind: "not_utf8" };

/**
 * `quietMs` (see read-bounded.ts QUIET_MS): a file modified more recently
 * comes back unreadable as "changing", for the caller to wait for
 * (readSettled) where waiting costs no worker; so does one written to
 * while it was read, whatever `quietMs`. `within`: the skill directory's
 * real path; the file is read only inside it (util/read-inside.ts).
 */
export function parsePackFile(within: string, absPath: string, file: string, fingerprint: string, quietMs = 0): PackFileResult {
  const read = readInside(within, absPath, MAX_RECIPE_FILE_BYTES, quietMs);
  if (!read.ok) return { kind: "unreadable", read };
  const text = decodeUtf8(read.bytes);
  if (text === null) return { kind: "not_utf8" };
  return { kind: "parsed", record: parsePack(text, file), key: packCacheKey(fingerprint, file, read.bytes) };
}

export interface PackRecordWire {
  readonly ok: boolean;
  /** JSON of [diagnostics, entries]. */
  readonly summaries: string;
  readonly body: Uint8Array;
  readonly bodyOffsets: Uint32Array;
  readonly text: Uint8Array;
}

export type PackFileResultWire =
  | Exclude<PackFileResult, { readonly kind: "parsed" }>
  | { readonly kind: "parsed"; readonly record: PackRecordWire; readonly key: string };

export function recordToWire(record: PackRecord): PackRecordWire {
  const { ok, diagnostics, entries, body, bodyOffsets, text } = record;
  return { ok, summaries: JSON.stringify([diagnostics, entries]), body, bodyOffsets, text };
}

export function recordFromWire(wire: PackRecordWire): PackRecord {
  const [diagnostics, entries] = JSON.parse(wire.summaries) as [Diagnostic[], EntrySummary[]];
  return { ok: wire.ok, diagnostics, entries, body: wire.body, bodyOffsets: wire.bodyOffsets, text: wire.text };
}

export function fileResultToWire(result: PackFileResult): PackFileResultWire {
  return result.kind === "parsed" ? { kind: "parsed", record: recordToWire(result.record), key: result.key } : result;
}

export function fileResultFromWire(wire: PackFileResultWire): PackFileResult {
  return wire.kind === "parsed" ? { kind: "parsed", record: recordFromWire(wire.record), key: wire.key } : wire;
}

/** What the calling thread hands a parse worker: a pack's text, or its path to read and key there. */
export type ParseRequest =
  | { readonly id: number; readonly kind: "text"; readonly text: string; readonly file: string }
  | { readonly id: number; readonly kind: "file"; readonly within: string; readonly path: string; readonly file: string; readonly fingerprint: string; readonly quietMs: number };

/** A worker's answer to request `id`: its wire value, or the message of the bug it hit. */
export interface ParseReply {
  readonly id: number;
  readonly value?: PackRecordWire | PackFileResultWire;
  readonly error?: string;
}
