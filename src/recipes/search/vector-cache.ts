import { createHash, randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";

/**
 * On-disk vector cache: one file per embedding provider id, holding
 * `contentHash -> vector`. Layout:
 *
 *   "RSVEC1\n" | u32 header length | header JSON | entries | sha256(all before)
 *   entry = 16-byte content hash | dimension × f32 LE
 *
 * Anything that does not check out (magic, header, provider id, dimension,
 * length, checksum) is discarded and rebuilt: a cache is never trusted over
 * re-embedding. Writes go to a temp file renamed into place, so a crash
 * leaves the old file or the new one, never half of one.
 */

const MAGIC = Buffer.from("RSVEC1\n", "latin1");
const HASH_BYTES = 16;
const CHECKSUM_BYTES = 32;

interface Header {
  readonly providerId: string;
  readonly dimension: number;
  readonly count: number;
}

export type CacheLoad =
  | { readonly ok: true; readonly vectors: Map<string, Float32Array> }
  | { readonly ok: false; readonly reason: "missing" | "corrupt" | "foreign"; readonly detail?: string };

export class VectorCache {
  private readonly file: string;

  constructor(
    dir: string,
    private readonly providerId: string,
    /** 0 while unknown (an endpoint that has not answered yet): take the file's. */
    private readonly dimension: () => number,
  ) {
    // The id can hold a URL or model name; hash it into a safe file name.
    const key = createHash("sha256").update(providerId).digest("hex").slice(0, 16);
    this.file = path.join(dir, `vectors-${key}.bin`);
  }

  get fileName(): string {
    return path.basename(this.file);
  }

  async load(): Promise<CacheLoad> {
    let buf: Buffer;
    try {
      buf = await fs.readFile(this.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return { ok: false, reason: "missing" };
      return { ok: false, reason: "corrupt", detail: (err as Error).message };
    }
    const parsed = this.parse(buf);
    if (!parsed.ok) await fs.rm(this.file, { force: true }).catch(() => undefined);
    return parsed;
  }

  private parse(buf: Buffer): CacheLoad {
    const corrupt = (detail: string): CacheLoad => ({ ok: false, reason: "corrupt", detail });
    if (buf.length < MAGIC.length + 4 + CHECKSUM_BYTES || !buf.subarray(0, MAGIC.length).equals(MAGIC)) {
      return corrupt("bad magic");
    }
    const body = buf.subarray(0, buf.length - CHECKSUM_BYTES);
    const sum = createHash("sha256").update(body).digest();
    if (!sum.equals(buf.subarray(buf.length - CHECKSUM_BYTES))) return corrupt("checksum mismatch");
    const headerLength = buf.readUInt32LE(MAGIC.length);
    const headerStart = MAGIC.length + 4;
    if (headerStart + headerLength > body.length) return corrupt("header overruns file");
    let header: Header;
    try {
      header = JSON.parse(buf.subarray(headerStart, headerStart + headerLength).toString("utf8")) as Header;
    } catch {
      return corrupt("header is not JSON");
    }
    const expected = this.dimension();
    if (header.providerId !== this.providerId || (expected !== 0 && header.dimension !== expected)) {
      return { ok: false, reason: "foreign", detail: "written by another embedding model" };
    }
    const dim = header.dimension;
    if (!Number.isInteger(dim) || dim <= 0 || dim > 65_536) return corrupt("bad dimension");
    const entryBytes = HASH_BYTES + dim * 4;
    const start = headerStart + headerLength;
    if (!Number.isInteger(header.count) || header.count < 0 || start + header.count * entryBytes !== body.length) {
      return corrupt("length does not match header");
    }
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < header.count; i++) {
      const at = start + i * entryBytes;
      const hash = buf.subarray(at, at + HASH_BYTES).toString("hex");
      // Copy out: the Buffer's offset may not be 4-byte aligned.
      const bytes = new Uint8Array(dim * 4);
      bytes.set(buf.subarray(at + HASH_BYTES, at + entryBytes));
      const vec = new Float32Array(bytes.buffer);
      // A plain loop: `every(Number.isFinite)` made this check most of a 40,000-vector load.
      for (let j = 0; j < dim; j++) if (!Number.isFinite(vec[j]!)) return corrupt("non-finite vector");
      vectors.set(hash, vec);
    }
    return { ok: true, vectors };
  }

  async save(vectors: ReadonlyMap<string, Float32Array>): Promise<void> {
    // Vectors are copied as raw bytes; the format is little-endian.
    if (!isLittleEndian()) throw new Error("vector cache requires a little-endian host");
    const dim = this.dimension() || (vectors.values().next().value?.length ?? 0);
    const entries = [...vectors].filter(([hash, v]) => /^[0-9a-f]{32}$/.test(hash) && v.length === dim);
    const header = Buffer.from(
      JSON.stringify({ providerId: this.providerId, dimension: dim, count: entries.length } satisfies Header),
      "utf8",
    );
    const entryBytes = HASH_BYTES + dim * 4;
    const size = MAGIC.length + 4 + header.length + entries.length * entryBytes;
    const buf = Buffer.alloc(size + CHECKSUM_BYTES);
    MAGIC.copy(buf, 0);
    buf.writeUInt32LE(header.length, MAGIC.length);
    header.copy(buf, MAGIC.length + 4);
    let at = MAGIC.length + 4 + header.length;
    for (const [hash, vec] of entries) {
      buf.write(hash, at, HASH_BYTES, "hex");
      Buffer.from(vec.buffer, vec.byteOffset, vec.byteLength).copy(buf, at + HASH_BYTES);
      at += entryBytes;
    }
    createHash("sha256").update(buf.subarray(0, size)).digest().copy(buf, size);
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      await fs.writeFile(tmp, buf);
      await fs.rename(tmp, this.file);
    } catch (err) {
      await fs.rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
  }
}

function isLittleEndian(): boolean {
  return new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
}
