/**
 * The code points of a Unicode property escape (`\p{…}` / `\P{…}` in a `u` pattern), as V8
 * defines them: every property ECMA-262 lists for `u` mode (the binary properties such as
 * Emoji_Presentation, General_Category, Script and Script_Extensions values, with their
 * aliases) becomes an explicit list of code-point ranges, derived from the running V8 itself
 * rather than from a table of our own, so both matchers of regex.ts (V8 on the linear class,
 * re2js on the rest) answer exactly as `new RegExp(p, "u")` would, on the same Unicode
 * version. As a range list a property is one character class: one code point per step on
 * either engine, whatever the input.
 *
 * Deriving a property scans every code point once with V8's matcher (10–50 ms); the result
 * is kept per property body for the process, in the module's one table: its keys are a
 * finite set (the names ECMA-262 defines) and its values never change, so it is a memo of
 * a pure function rather than state, and no schema pays a property twice.
 */

export type Ranges = ReadonlyArray<readonly [number, number]>;

/** Derived range lists by property body (`Emoji`, `Script=Greek`); see the module comment. */
const derived = new Map<string, Ranges>();

const SURROGATES_START = 0xd800;
const SURROGATES_END = 0xdfff;

/** UTF-16 offset in codePointString() where the supplementary planes start. */
const SUPPLEMENTARY_AT = SURROGATES_START + (0x10000 - SURROGATES_END - 1);

/**
 * The scan subject of the last derivation, held weakly: a schema with several properties
 * (or a catalog compiling many) builds it once, and the GC may drop its 4 MB in between.
 */
let lastScan: WeakRef<{ readonly s: string }> | null = null;

/**
 * Every code point but the surrogates, in order, as one string: the subject the property's
 * regexes scan. Surrogates are left out because adjacent ones would pair into another code
 * point; they are tested one by one.
 */
function codePointString(): string {
  const held = lastScan?.deref();
  if (held !== undefined) return held.s;
  const units = new Uint16Array(SUPPLEMENTARY_AT + 2 * 0x100000);
  for (let i = 0; i < SURROGATES_START; i++) units[i] = i;
  for (let i = SURROGATES_START; i < SUPPLEMENTARY_AT; i++) units[i] = i + (SURROGATES_END + 1 - SURROGATES_START);
  for (let c = 0; c < 0x100000; c++) {
    units[SUPPLEMENTARY_AT + 2 * c] = 0xd800 + (c >> 10);
    units[SUPPLEMENTARY_AT + 2 * c + 1] = 0xdc00 + (c & 0x3ff);
  }
  const s = new TextDecoder("utf-16le").decode(units);
  lastScan = new WeakRef({ s });
  return s;
}

/** The code point whose UTF-16 units include offset `i` of codePointString(). */
function codePointAt(i: number): number {
  if (i < SURROGATES_START) return i;
  if (i < SUPPLEMENTARY_AT) return i + (SURROGATES_END + 1 - SURROGATES_START);
  return 0x10000 + ((i - SUPPLEMENTARY_AT) >> 1);
}

/**
 * The ranges `\p{body}` matches in V8's `u` mode, sorted and disjoint; null when V8 does not
 * accept the escape.
 */
export function propertyRanges(body: string): Ranges | null {
  const known = derived.get(body);
  if (known !== undefined) return known;
  let inside: RegExp;
  let outside: RegExp;
  try {
    inside = new RegExp(`\\p{${body}}`, "gu");
    outside = new RegExp(`\\P{${body}}`, "gu");
  } catch {
    return null;
  }
  const found: Array<[number, number]> = [];
  const add = (a: number, b: number): void => {
    // A run of the scan may pass from U+D7FF to U+E000: the surrogates are not in it.
    if (a < SURROGATES_START && b > SURROGATES_END) found.push([a, SURROGATES_START - 1], [SURROGATES_END + 1, b]);
    else found.push([a, b]);
  };
  const s = codePointString();
  // Alternate: the next code point inside the property starts a run, the next one outside
  // ends it. lastIndex is the offset just past the character each search found.
  inside.lastIndex = 0;
  while (inside.test(s)) {
    const first = codePointAt(inside.lastIndex - 1);
    outside.lastIndex = inside.lastIndex;
    if (!outside.test(s)) {
      add(first, 0x10ffff);
      break;
    }
    const stop = codePointAt(outside.lastIndex - 1);
    add(first, stop === SURROGATES_END + 1 ? SURROGATES_START - 1 : stop - 1);
    inside.lastIndex = outside.lastIndex;
  }
  const one = new RegExp(`^\\p{${body}}$`, "u");
  for (let c = SURROGATES_START; c <= SURROGATES_END; c++) if (one.test(String.fromCharCode(c))) found.push([c, c]);
  const out = normalise(found);
  derived.set(body, out);
  return out;
}

function normalise(ranges: Array<[number, number]>): Ranges {
  ranges.sort((x, y) => x[0] - y[0]);
  const out: Array<[number, number]> = [];
  for (const [a, b] of ranges) {
    const last = out[out.length - 1];
    if (last !== undefined && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** The complement of sorted, disjoint ranges over all code points. */
export function complementRanges(ranges: Ranges): Array<readonly [number, number]> {
  const out: Array<readonly [number, number]> = [];
  let next = 0;
  for (const [a, b] of ranges) {
    if (a > next) out.push([next, a - 1]);
    next = b + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}

/**
 * The escape at `p[i]` (`\p{…}` or `\P{…}`): its ranges (complemented for `\P`) and the
 * offset after it; null when V8 would not accept it.
 */
export function propertyEscape(p: string, i: number): { readonly ranges: Ranges; readonly end: number } | null {
  const end = p.indexOf("}", i);
  if (p[i + 2] !== "{" || end < 0) return null;
  const ranges = propertyRanges(p.slice(i + 3, end));
  if (ranges === null) return null;
  return { ranges: p[i + 1] === "P" ? complementRanges(ranges) : ranges, end: end + 1 };
}
