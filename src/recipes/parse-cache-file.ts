/**
 * The parse cache's file format (parse-cache.ts): a header line naming the
 * format version and the code fingerprint, then frames of
 * [key length u32][value length u32][digest][key][v8-serialised value].
 */
import { createHash } from "node:crypto";

/** Any version of the format starts so; the version and the code fingerprint follow. */
const FAMILY = "recipe-server parse cache ";
const MAGIC = `${FAMILY}3\n`;
/** Per-entry digest length (sha256, truncated): a damaged entry is a miss, not a wrong recipe. */
const DIGEST_BYTES = 16;

/** The first line of a cache written by the build with this fingerprint. */
export function fileHeader(fingerprint: string): string {
  return MAGIC + fingerprint + "\n";
}

/** The fixed part of one frame, before its key and value bytes. */
export function frameHead(key: Uint8Array, value: Uint8Array): Buffer {
  const head = Buffer.alloc(8 + DIGEST_BYTES);
  head.writeUInt32LE(key.length, 0);
  head.writeUInt32LE(value.length, 4);
  digestOf(value).copy(head, 8);
  return head;
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
    if (at + 8 + DIGEST_BYTES > bytes.length) return null;
    const keyLength = bytes.readUInt32LE(at);
    const valueLength = bytes.readUInt32LE(at + 4);
    const digest = bytes.subarray(at + 8, at + 8 + DIGEST_BYTES);
    at += 8 + DIGEST_BYTES;
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
  return createHash("sha256").update(value).digest().subarray(0, DIGEST_BYTES);
}
