import { createHash, randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { isNonFiniteHalf, LITTLE_ENDIAN } from "./float16.js";
import { readChecked, type CheckedRead } from "./read-checked.js";
import { VectorStore } from "./vector-store.js";

/**
 * On-disk vector cache: one file per embedding provider id, holding
 * `contentHash -> vector`. Layout (format 2):
 *
 *   "RSVEC2\n" | u32 header length | header JSON, space-padded to a multiple of 4
 *   | count × 16-byte text hash | count × dimension × IEEE half LE | sha256(all before)
 *
 * The vectors form one contiguous, aligned block in the store's own
 * encoding (halves: see float16.ts), so a load hands the read buffer to a
 * VectorStore as it is: no vector is copied, converted or allocated on its
 * own. Format 1 (float32, hash and vector interleaved) cost a
 * 20,000-recipe restart over a second of allocation and GC.
 *
 * Anything that does not check out (magic, header, provider id, dimension,
 * length, checksum, a non-finite value) is discarded and rebuilt: a cache is
 * never trusted over re-embedding. Writes go to a temp file renamed into
 * place, so a crash leaves the old file or the new one, never half of one.
 */

const MAGIC = Buffer.from("RSVEC2\n", "latin1");
const PREFIX = MAGIC.length + 4;
const HASH_BYTES = 16;
const CHECKSUM_BYTES = 32;
/** Larger than any sane cache (50,000 recipes × 3 views × 4,096 dimensions × 2 B is 1.2 GB): a damaged size, not a cache. */
const MAX_FILE = 2 ** 31 - 1;
/** Below this a load reads on this thread: a worker would cost more than it saves. */
const OFF_THREAD_FROM = 1 << 20;

interface Header {
  readonly providerId: string;
  readonly dimension: number;
  readonly count: number;
}

export type CacheLoad =
  | { readonly ok: true; readonly store: VectorStore }
  | { readonly ok: false; readonly reason: "missing" | "corrupt" | "foreign"; readonly detail?: string };

export class VectorCache {
  private readonly file: string;

  constructor(
    dir: string,
    private readonly providerId: string,
    /** 0 while unknown (an endpoint that has not answered yet): take the file's. */
    private readonly dimension: () => number,
    /** Files of at least this many bytes are read and checked in a worker thread (see read-checked.ts). */
    private readonly offThreadFrom = OFF_THREAD_FROM,
  ) {
    // The id can hold a URL or model name; hash it into a safe file name.
    const key = createHash("sha256").update(providerId).digest("hex").slice(0, 16);
    this.file = path.join(dir, `vectors-${key}.bin`);
  }

  get fileName(): string {
    return path.basename(this.file);
  }

  async load(): Promise<CacheLoad> {
    let read: CheckedRead | null;
    try {
      read = await readChecked(this.file, { min: PREFIX + CHECKSUM_BYTES, max: MAX_FILE, trailer: CHECKSUM_BYTES, offThreadFrom: this.offThreadFrom });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return { ok: false, reason: "missing" };
      return { ok: false, reason: "corrupt", detail: (err as Error).message };
    }
    const parsed: CacheLoad = read ? this.parse(read.buf, read.sum) : { ok: false, reason: "corrupt", detail: "bad size" };
    if (!parsed.ok) await fs.rm(this.file, { force: true }).catch(() => undefined);
    return parsed;
  }

  private parse(buf: Buffer, sum: Buffer): CacheLoad {
    const corrupt = (detail: string): CacheLoad => ({ ok: false, reason: "corrupt", detail });
    if (!buf.subarray(0, MAGIC.length).equals(MAGIC)) return corrupt("bad magic");
    if (!sum.equals(buf.subarray(buf.length - CHECKSUM_BYTES))) return corrupt("checksum mismatch");
    const bodyEnd = buf.length - CHECKSUM_BYTES;
    const headerLength = buf.readUInt32LE(MAGIC.length);
    if (PREFIX + headerLength > bodyEnd || (PREFIX + headerLength) % 4 !== 0) return corrupt("bad header length");
    let header: Header;
    try {
      header = JSON.parse(buf.toString("utf8", PREFIX, PREFIX + headerLength)) as Header;
    } catch {
      return corrupt("header is not JSON");
    }
    const expected = this.dimension();
    if (header.providerId !== this.providerId || (expected !== 0 && header.dimension !== expected)) {
      return { ok: false, reason: "foreign", detail: "written by another embedding model" };
    }
    const { dimension: dim, count } = header;
    if (!Number.isInteger(dim) || dim <= 0 || dim > 65_536) return corrupt("bad dimension");
    const hashStart = PREFIX + headerLength;
    const vectorStart = hashStart + count * HASH_BYTES;
    if (!Number.isInteger(count) || count < 0 || vectorStart + count * dim * 2 !== bodyEnd) return corrupt("length does not match header");
    // One hex conversion, then slices: 40,000 separate conversions cost ~10x more.
    const hex = buf.toString("hex", hashStart, vectorStart);
    const hashes = new Array<string>(count);
    for (let i = 0; i < count; i++) hashes[i] = hex.slice(i * HASH_BYTES * 2, (i + 1) * HASH_BYTES * 2);
    const data = new Uint16Array(buf.buffer, buf.byteOffset + vectorStart, count * dim);
    // A plain loop: `every(...)` was most of a 40,000-vector load.
    for (let i = 0; i < data.length; i++) if (isNonFiniteHalf(data[i]!)) return corrupt("non-finite vector");
    return { ok: true, store: new VectorStore(dim, hashes, data) };
  }

  async save(store: VectorStore): Promise<void> {
    // Vectors are copied as raw bytes; the format is little-endian.
    if (!LITTLE_ENDIAN) throw new Error("vector cache requires a little-endian host");
    const dim = store.dimension || this.dimension();
    const entries = store.entries().filter(([hash]) => /^[0-9a-f]{32}$/.test(hash));
    const json = JSON.stringify({ providerId: this.providerId, dimension: dim, count: entries.length } satisfies Header);
    const header = Buffer.from(json.padEnd(json.length + ((4 - ((PREFIX + Buffer.byteLength(json)) % 4)) % 4)), "utf8");
    const hashStart = PREFIX + header.length;
    const vectorStart = hashStart + entries.length * HASH_BYTES;
    const rowBytes = dim * 2;
    const size = vectorStart + entries.length * rowBytes;
    const buf = Buffer.alloc(size + CHECKSUM_BYTES);
    MAGIC.copy(buf, 0);
    buf.writeUInt32LE(header.length, MAGIC.length);
    header.copy(buf, PREFIX);
    const matrix = store.matrix;
    const bytes = new Uint8Array(matrix.buffer, matrix.byteOffset, matrix.byteLength);
    // Rows are in row order; copy each run of consecutive rows at once (after a load, all of them).
    for (let i = 0; i < entries.length; ) {
      let j = i + 1;
      while (j < entries.length && entries[j]![1] === entries[j - 1]![1] + 1) j++;
      const first = entries[i]![1];
      buf.set(bytes.subarray(first * rowBytes, (first + j - i) * rowBytes), vectorStart + i * rowBytes);
      for (let k = i; k < j; k++) buf.write(entries[k]![0], hashStart + k * HASH_BYTES, HASH_BYTES, "hex");
      i = j;
    }
    createHash("sha256").update(buf.subarray(0, size)).digest().copy(buf, size);
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      // Vectors of private playbooks are derived from their text: owner-only, like the parse cache.
      await fs.writeFile(tmp, buf, { mode: 0o600 });
      await fs.rename(tmp, this.file);
    } catch (err) {
      await fs.rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
  }
}
