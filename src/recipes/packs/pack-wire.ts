/**
 * A parsed pack as a parse worker posts it back. A structured clone builds
 * an object graph one property at a time: a pack's twenty small summaries
 * cost about three times what JSON costs, on both threads (the worker
 * serialises, the calling thread deserialises). So summaries and
 * diagnostics travel as one JSON string, and the byte arrays as they are.
 * Every value in them is JSON data (strings, finite numbers, booleans, null).
 * The requests a worker is handed are defined here too, so the pool and
 * the worker both import down to this file.
 */
import type { PackFileResult } from "./pack-file.js";
import type { EntrySummary, PackRecord } from "./parsed-pack.js";
import type { Diagnostic } from "../../util/diagnostics.js";

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
