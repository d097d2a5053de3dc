/**
 * The parse cache's file format (parse-cache.ts): a header line naming the
 * format version and the code fingerprint, then frames of
 * [key length u32][value length u32][digest][key][value], a value being
 * one PackRecord laid out flat (see encodeFrame). Frames are encoded
 * straight into the writer's one reusable chunk, and a record read back
 * keeps views into the file's bytes: neither way allocates per entry
 * outside the JS heap. (v8.serialize did: 20,000 records' buffers of
 * native memory, ~28 MB that the process kept after its first write.)
 */
import { crc32 } from "node:zlib";
import type { PackRecord } from "./parsed-pack.js";

/** Any version of the format starts so; the version and the code fingerprint follow. */
const FAMILY = "recipe-server parse cache ";
const MAGIC = `${FAMILY}5\n`;
/**
 * Per-entry digest length (CRC-32): a damaged entry is a miss, not a wrong
 * recipe. It guards against damage (a torn or bit-flipped file), not against
 * whoever can write the state directory, who could write any digest; a
 * restart checks every entry it serves (~25 MB at 20,000 recipes), where
 * sha256 cost three to four times the CRC.
 */
const DIGEST_BYTES = 4;
/** A frame's fixed part: key and value lengths, then the value's digest. */
export const FRAME_HEAD = 8 + DIGEST_BYTES;
/** A value's fixed part, five u32: ok (0/1), the byte length of the summaries, the offsets count, the body's and the text's byte lengths. */
const VALUE_HEAD = 20;

/** The first line of a cache written by the build with this fingerprint. */
export function fileHeader(fingerprint: string): string {
  return MAGIC + fingerprint + "\n";
}

/** One entry, ready to encode: its summaries (diagnostics and entry summaries) as JSON, and its frame's byte length. */
export interface PendingFrame {
  readonly key: string;
  readonly record: PackRecord;
  readonly summaries: string;
  readonly length: number;
}

export function pendingFrame(key: string, record: PackRecord): PendingFrame {
  const summaries = JSON.stringify([record.diagnostics, record.entries]);
  const length = FRAME_HEAD + Buffer.byteLength(key) + VALUE_HEAD + Buffer.byteLength(summaries) + 4 * record.bodyOffsets.length + record.body.length + record.text.length;
  return { key, record, summaries, length };
}

/** Writes the frame into `target` at `at` (frame.length bytes free there); returns the offset after it. */
export function encodeFrame(target: Buffer, at: number, frame: PendingFrame): number {
  const { record } = frame;
  const keyStart = at + FRAME_HEAD;
  const valueStart = keyStart + target.write(frame.key, keyStart);
  let p = valueStart + VALUE_HEAD;
  const summaries = target.write(frame.summaries, p);
  p += summaries;
  for (const offset of record.bodyOffsets) p = target.writeUInt32LE(offset, p);
  target.set(record.body, p);
  p += record.body.length;
  target.set(record.text, p);
  p += record.text.length;
  target.writeUInt32LE(record.ok ? 1 : 0, valueStart);
  target.writeUInt32LE(summaries, valueStart + 4);
  target.writeUInt32LE(record.bodyOffsets.length, valueStart + 8);
  target.writeUInt32LE(record.body.length, valueStart + 12);
  target.writeUInt32LE(record.text.length, valueStart + 16);
  target.writeUInt32LE(valueStart - keyStart, at);
  target.writeUInt32LE(p - valueStart, at + 4);
  digestOf(target.subarray(valueStart, p)).copy(target, at + 8);
  return p;
}

/**
 * A frame's value as the record it holds, for isPackRecord to check (body
 * and text are views into `value`); null when its lengths do not add up.
 * Throws on summaries that are not JSON.
 */
export function decodeValue(value: Uint8Array): unknown {
  if (value.length < VALUE_HEAD) return null;
  const bytes = Buffer.from(value.buffer, value.byteOffset, value.length);
  const flag = bytes.readUInt32LE(0);
  const [summaries, offsets, body, text] = [4, 8, 12, 16].map((at) => bytes.readUInt32LE(at)) as [number, number, number, number];
  if (flag > 1 || VALUE_HEAD + summaries + 4 * offsets + body + text !== value.length) return null;
  const [diagnostics, entries] = JSON.parse(bytes.toString("utf8", VALUE_HEAD, VALUE_HEAD + summaries)) as [unknown, unknown];
  let p = VALUE_HEAD + summaries;
  const bodyOffsets = new Uint32Array(offsets);
  for (let i = 0; i < offsets; i++, p += 4) bodyOffsets[i] = bytes.readUInt32LE(p);
  // Views of the types a fresh parse holds: body a Uint8Array, text v8.serialize's Buffer.
  const at = value.byteOffset + p;
  return { ok: flag === 1, diagnostics, entries, body: new Uint8Array(value.buffer, at, body), bodyOffsets, text: Buffer.from(value.buffer, at + body, text) };
}

/**
 * The cache's entries; "foreign" when another build wrote it; null unless
 * the whole file reads back.
 */
export function readFrames(bytes: Buffer, fingerprint: string): Map<string, Frame> | "foreign" | null {
  const header = fileHeader(fingerprint);
  const firstLine = bytes.subarray(0, Math.max(0, bytes.indexOf(10, FAMILY.length)) + 1).toString();
  if (firstLine.startsWith(FAMILY) && bytes.subarray(0, header.length).toString() !== header) return "foreign";
  if (bytes.length < header.length || bytes.subarray(0, header.length).toString() !== header) return null;
  const entries = new Map<string, Frame>();
  let at = header.length;
  while (at < bytes.length) {
    if (at + FRAME_HEAD > bytes.length) return null;
    const keyLength = bytes.readUInt32LE(at);
    const valueLength = bytes.readUInt32LE(at + 4);
    const digest = bytes.subarray(at + 8, at + FRAME_HEAD);
    at += FRAME_HEAD;
    if (at + keyLength + valueLength > bytes.length) return null;
    const key = bytes.subarray(at, at + keyLength).toString();
    at += keyLength;
    entries.set(key, { digest, value: bytes.subarray(at, at + valueLength) });
    at += valueLength;
  }
  return entries;
}

export interface Frame {
  readonly digest: Uint8Array;
  readonly value: Uint8Array;
}

export function digestOf(value: Uint8Array): Buffer {
  const digest = Buffer.allocUnsafe(DIGEST_BYTES);
  digest.writeUInt32LE(crc32(value), 0);
  return digest;
}
