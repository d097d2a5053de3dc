/**
 * IEEE 754 binary16 ("half") encoding for stored embedding vectors. Node 20
 * has no Float16Array, so vectors are kept as Uint16Array bit patterns and
 * read through a 65,536-entry table.
 *
 * Why halves: on this stack memory is the cost of a warm restart, not
 * arithmetic. Reading, checking and first touching the 82 MB of a
 * 20,000-recipe float32 cache took ~0.55–0.7 s of CPU; half of that at
 * 16 bits. A half keeps 11 significant bits: on an L2-normalised
 * 512-dimension vector the cosine moves by ~1e-5, far below the gaps
 * between neighbouring scores (bench/relevance shows the rankings unchanged).
 */

/** Stored halves are little-endian: a host of that order reads and writes them as they are. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

const scratch = new Float32Array(1);
const scratchBits = new Uint32Array(scratch.buffer);

/** The half nearest to `x` (round to nearest, ties to even); ±Infinity beyond 65504, NaN kept. */
export function toHalf(x: number): number {
  scratch[0] = x;
  const bits = scratchBits[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa !== 0 ? 0x200 : 0);
  const e = exponent - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    // Subnormal half (or zero): the implicit bit joins the mantissa, shifted into place.
    if (e < -10) return sign;
    const full = mantissa | 0x800000;
    const shift = 14 - e;
    const rest = full & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    let h = full >>> shift;
    if (rest > halfway || (rest === halfway && (h & 1) === 1)) h++;
    return sign | h;
  }
  let h = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  // A carry out of the mantissa correctly bumps the exponent (up to Infinity).
  if (rest > 0x1000 || (rest === 0x1000 && (h & 1) === 1)) h++;
  return sign | h;
}

function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >>> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa !== 0 ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

let halfTable: Float32Array | null = null;

/**
 * halfToFloat()[bits] is the value of a half: a 256 KB table, built on first
 * use (65,536 conversions, ~10 ms of a cold start that, without embeddings,
 * never reads a half). Read-only by convention.
 */
export function halfToFloat(): Float32Array {
  if (halfTable === null) {
    const table = new Float32Array(65_536);
    for (let h = 0; h < 65_536; h++) table[h] = fromHalf(h);
    halfTable = table;
  }
  return halfTable;
}

/** Encodes `src` into `dst` from index `at`. */
export function encodeHalves(src: Float32Array, dst: Uint16Array, at: number): void {
  for (let i = 0; i < src.length; i++) dst[at + i] = toHalf(src[i]!);
}

/** True when the bit pattern is Infinity or NaN. */
export function isNonFiniteHalf(h: number): boolean {
  return (h & 0x7c00) === 0x7c00;
}
