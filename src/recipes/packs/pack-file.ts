/**
 * One YAML pack file from its path to its PackRecord: read (bounded),
 * keyed for the parse cache, decoded, parsed. A cold load runs this on the
 * parse worker, so the calling thread neither reads nor hashes nor copies
 * the text; the worker's failures come back as the same data the calling
 * thread would have produced.
 */
import { decodeUtf8, type BoundedRead } from "../../util/read-bounded.js";
import { readInside } from "../../util/read-inside.js";
import { packCacheKey } from "./parse-cache.js";
import { parsePack, type PackRecord } from "./parsed-pack.js";
import { MAX_RECIPE_FILE_BYTES } from "./yaml-pack.js";

export type PackFileResult =
  | { readonly kind: "parsed"; readonly record: PackRecord; readonly key: string }
  | { readonly kind: "unreadable"; readonly read: Exclude<BoundedRead, { ok: true }> }
  | { readonly kind: "not_utf8" };

/** A recipe file read as a YAML pack (by its extension); any other is Markdown. */
export function isYamlFile(file: string): boolean {
  return /\.ya?ml$/i.test(file);
}

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
