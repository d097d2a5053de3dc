import { encodeHalves, halfToFloat, LITTLE_ENDIAN } from "./float16.js";

/**
 * Vectors of one dimension kept row by row in one Uint16Array of IEEE
 * halves (see float16.ts for why halves), addressed through `hash -> row`. Tens of thousands of separate 2 KB Float32Arrays
 * cost far more to allocate and collect than any arithmetic done on them
 * (40,000 of them: ~0.7 s of allocation here, plus the GC); a row number
 * costs nothing, and a cache file's vector section becomes the store as it
 * was read, without a copy.
 *
 * Rows of removed vectors stay in the array as garbage until they outnumber
 * the live ones; then `retain` compacts. Row numbers change on compaction
 * and `matrix` changes on growth: callers keep neither across `add`/`retain`.
 */

export class VectorStore {
  private data: Uint16Array;
  /** Rows of `data` handed out, live or dead. */
  private used: number;
  private readonly rows = new Map<string, number>();
  private dim: number;
  private wordsOf: Uint16Array | null = null;
  private wordsView: Uint32Array | null = null;

  /**
   * `data` holds `hashes.length` rows of `dimension` halves (any extra
   * capacity after them is unused); the store takes ownership of it.
   */
  constructor(dimension = 0, hashes: readonly string[] = [], data: Uint16Array = new Uint16Array(0)) {
    if (data.length < hashes.length * dimension) throw new Error("VectorStore: data shorter than its rows");
    this.dim = dimension;
    this.data = data;
    this.used = hashes.length;
    hashes.forEach((hash, row) => this.rows.set(hash, row));
  }

  /** A store holding these vectors (all of one length). */
  static from(vectors: Iterable<readonly [string, Float32Array]>): VectorStore {
    const store = new VectorStore();
    for (const [hash, vector] of vectors) {
      if (!store.add(hash, vector)) throw new Error("VectorStore.from: vectors of different lengths");
    }
    return store;
  }

  /** 0 until the first vector fixes it. */
  get dimension(): number {
    return this.dim;
  }

  get size(): number {
    return this.rows.size;
  }

  /** Row r is `matrix[r * dimension .. (r + 1) * dimension)`, as half bit patterns. */
  get matrix(): Uint16Array {
    return this.data;
  }

  /**
   * The same rows as 32-bit words, two halves each (low half first: the
   * format is little-endian), when every row starts on a word: an even
   * dimension and an aligned array. Reading halves in pairs makes a scan as
   * fast as one over float32. Null otherwise.
   */
  get words(): Uint32Array | null {
    if (this.wordsOf !== this.data) {
      this.wordsOf = this.data;
      const aligned = LITTLE_ENDIAN && this.dim % 2 === 0 && this.data.byteOffset % 4 === 0 && this.data.length % 2 === 0;
      this.wordsView = aligned ? new Uint32Array(this.data.buffer, this.data.byteOffset, this.data.length / 2) : null;
    }
    return this.wordsView;
  }

  has(hash: string): boolean {
    return this.rows.has(hash);
  }

  rowOf(hash: string): number | undefined {
    return this.rows.get(hash);
  }

  /** The stored vector, decoded into a new array (as rounded to halves), or undefined. */
  get(hash: string): Float32Array | undefined {
    const row = this.rows.get(hash);
    if (row === undefined) return undefined;
    const out = new Float32Array(this.dim);
    const f = halfToFloat();
    for (let i = 0, at = row * this.dim; i < this.dim; i++) out[i] = f[this.data[at + i]!]!;
    return out;
  }

  /** Live (hash, row) pairs in row order. */
  entries(): [string, number][] {
    return [...this.rows].sort((a, b) => a[1] - b[1]);
  }

  /** Stores `vector` rounded to halves; false (nothing stored) when its length is not the store's dimension. */
  add(hash: string, vector: Float32Array): boolean {
    if (this.dim === 0) this.dim = vector.length;
    if (vector.length !== this.dim || this.dim === 0) return false;
    let row = this.rows.get(hash);
    if (row === undefined) {
      if ((this.used + 1) * this.dim > this.data.length) this.resize(Math.max(64, this.used * 2));
      row = this.used++;
      this.rows.set(hash, row);
    }
    encodeHalves(vector, this.data, row * this.dim);
    return true;
  }

  /**
   * Forgets every vector `keep` rejects; compacts once dead rows outnumber
   * live ones, so repeated reloads neither grow memory nor copy on every
   * small change. Returns how many were dropped.
   */
  retain(keep: (hash: string) => boolean): number {
    let dropped = 0;
    for (const hash of this.rows.keys()) {
      if (!keep(hash)) {
        this.rows.delete(hash);
        dropped++;
      }
    }
    if (this.used - this.rows.size > Math.max(64, this.rows.size)) this.resize(this.rows.size);
    return dropped;
  }

  /** Moves the live rows, in row order, to the front of a new array of `capacity` rows. */
  private resize(capacity: number): void {
    const dim = this.dim;
    const next = new Uint16Array(Math.max(capacity, this.rows.size) * dim);
    if (this.used === this.rows.size) {
      // No dead rows (growth): rows 0 .. used-1 are all live and stay where they are.
      next.set(this.data.subarray(0, this.used * dim));
    } else {
      let at = 0;
      for (const [hash, row] of this.entries()) {
        next.set(this.data.subarray(row * dim, (row + 1) * dim), at * dim);
        this.rows.set(hash, at++);
      }
      this.used = at;
    }
    this.data = next;
  }
}
