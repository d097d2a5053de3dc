/** JSON value helpers: type names, deep equality and a canonical form for hashing. */


export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The JSON type of a value, with "integer" for integral numbers (used only in messages). */
export function describeType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  const t = typeof v;
  if (t === "number") return Number.isInteger(v) ? "integer" : "number";
  if (t === "string" || t === "boolean" || t === "object") return t;
  return "unsupported value";
}

/** JSON equality: key order is irrelevant, 1 equals 1.0, true is not 1. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const aArr = Array.isArray(a);
  if (aArr !== Array.isArray(b)) return false;
  if (aArr) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!jsonEqual(x[i], y[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const k of keys) {
    if (!Object.hasOwn(y, k) || !jsonEqual(x[k], y[k])) return false;
  }
  return true;
}

/**
 * A string that is equal for two values exactly when they are JSON-equal, so sets of
 * objects can be hashed instead of compared pairwise. Recursion is bounded by the
 * instance depth limit checked before validation.
 */
export function canonicalJson(v: unknown): string {
  if (typeof v !== "object" || v === null) return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) {
    let out = "[";
    for (let i = 0; i < v.length; i++) out += (i === 0 ? "" : ",") + canonicalJson(v[i]);
    return out + "]";
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    out += (i === 0 ? "" : ",") + JSON.stringify(k) + ":" + canonicalJson(o[k]);
  }
  return out + "}";
}

/** Counts Unicode code points: an emoji is one. */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** UTF-8 byte length of a string, without depending on Buffer. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}
