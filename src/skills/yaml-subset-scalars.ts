/**
 * Scalars of the plain YAML subset (see yaml-subset.ts): YAML 1.2 core
 * typing exactly as the `yaml` package resolves it, double-quoted escapes as
 * it decodes them, and the one way a key lands in a JS object.
 */

/** Thrown (one shared instance, no stack) when the text leaves the subset; caught only by parseYamlSubset. */
export const OUTSIDE_SUBSET: { readonly outside: true } = Object.freeze({ outside: true });

export function outside(): never {
  throw OUTSIDE_SUBSET;
}

// The `yaml` package's core schema tags (yaml/dist/schema/core), tested in its order.
const OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const NAN_INF = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** The value of a plain scalar under YAML 1.2 core: null, boolean, number or the text itself. */
export function resolvePlain(s: string): unknown {
  const c = s.charCodeAt(0);
  // Digits, sign or dot: only these can open a number.
  if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) return resolveNumber(s);
  switch (c) {
    case 0x7e: // ~
      return s.length === 1 ? null : s;
    case 0x6e: // n
    case 0x4e: // N
      return s === "null" || s === "Null" || s === "NULL" ? null : s;
    case 0x74: // t
    case 0x54: // T
      return s === "true" || s === "True" || s === "TRUE" ? true : s;
    case 0x66: // f
    case 0x46: // F
      return s === "false" || s === "False" || s === "FALSE" ? false : s;
    default:
      return s;
  }
}

function resolveNumber(s: string): unknown {
  // Same conversions as the package (parseInt / parseFloat), so -0, rounding and overflow agree.
  if (OCT.test(s)) return parseInt(s.substring(2), 8);
  if (INT.test(s)) return parseInt(s, 10);
  if (HEX.test(s)) return parseInt(s.substring(2), 16);
  if (NAN_INF.test(s)) {
    if (s.slice(-3).toLowerCase() === "nan") return NaN;
    return s.charCodeAt(0) === 0x2d ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  if (EXP.test(s) || FLOAT.test(s)) return parseFloat(s);
  return s;
}

/** The object key a plain key becomes: its core value, stringified as the package does (null → ""). */
export function plainKey(s: string): string {
  const c = s.charCodeAt(0);
  // `<<` is a merge key wherever merging is enabled: leave that judgement to the exact parser.
  if (c === 0x3c && s === "<<") outside();
  const v = resolvePlain(s);
  if (typeof v === "string") return v;
  return v === null ? "" : String(v);
}

/**
 * Adds a key as the package's toJS does: `__proto__` becomes an own data
 * property rather than a prototype change. A repeated key leaves the subset
 * (the exact parser reports it).
 */
export function setKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (Object.prototype.hasOwnProperty.call(obj, key)) outside();
  if (key === "__proto__") Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/** The character a one-letter double-quoted escape stands for, or "" when the escape is not one. */
export function simpleEscape(c: number): string {
  switch (c) {
    case 0x30: return "\0";
    case 0x61: return "\x07";
    case 0x62: return "\b";
    case 0x65: return "\x1b";
    case 0x66: return "\f";
    case 0x6e: return "\n";
    case 0x72: return "\r";
    case 0x74: return "\t";
    case 0x76: return "\v";
    case 0x4e: return "\u0085";
    case 0x5f: return "\u00a0";
    case 0x4c: return "\u2028";
    case 0x50: return "\u2029";
    case 0x20: return " ";
    case 0x22: return '"';
    case 0x2f: return "/";
    case 0x5c: return "\\";
    case 0x09: return "\t";
    default: return "";
  }
}

const HEX_DIGITS = /^[0-9a-fA-F]+$/;

/** `\xXX`, `\uXXXX`, `\UXXXXXXXX` at `at` (the digits) as the package decodes them; outside the subset when invalid. */
export function hexEscape(src: string, at: number, length: number): string {
  const digits = src.substr(at, length);
  if (digits.length !== length || !HEX_DIGITS.test(digits)) outside();
  const code = parseInt(digits, 16);
  if (code > 0x10ffff) outside();
  return String.fromCodePoint(code);
}
