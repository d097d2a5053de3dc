/** Growable typed arrays: the index keeps numbers flat, not in per-entry objects. */
type Typed = Uint8Array | Uint32Array | Int32Array | Float64Array;

/** `array` if it already holds `need` entries, else a copy at least twice as large. */
export function ensure<T extends Typed>(array: T, need: number, make: (length: number) => T): T {
  if (need <= array.length) return array;
  let length = Math.max(64, array.length * 2);
  while (length < need) length *= 2;
  const next = make(length);
  // Same element type on both sides: the union's set() overloads cannot see that.
  (next as Uint32Array).set(array as Uint32Array);
  return next;
}

export const u8 = (n: number): Uint8Array => new Uint8Array(n);
export const u32 = (n: number): Uint32Array => new Uint32Array(n);
export const i32 = (n: number): Int32Array => new Int32Array(n);
export const f64 = (n: number): Float64Array => new Float64Array(n);
