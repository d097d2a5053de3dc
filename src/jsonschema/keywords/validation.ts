/**
 * The validation vocabulary's assertions on numbers, strings and sizes: numeric bounds,
 * `multipleOf`, string length, `pattern`, and the item and property counts. Each is one
 * check that answers on the fast path with comparisons only and works out which bound
 * failed only when errors are collected; the leaf tests (assemble.ts) inline the ranges.
 */
import type { Check, KeywordCompiler, LengthRange, NumericRange, State } from "../context.js";
import { own, pushError, traceHere } from "../context.js";
import type { ValidationError } from "../types.js";
import { isDecimalMultiple, scaledMultipleTest, toDecimal } from "../decimal.js";
import { codePointLength } from "../json.js";
import { chargeCount, testPattern } from "../steps.js";
import { plural, readBounds, readNumber } from "./util.js";

/**
 * `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, fused into one check: one
 * call and four comparisons on the fast path; which bound failed is worked out only when
 * errors are collected.
 */
export const compileNumericBounds: KeywordCompiler = (kc) => {
  const min = readNumber(kc, "minimum");
  const max = readNumber(kc, "maximum");
  const exMin = readNumber(kc, "exclusiveMinimum");
  const exMax = readNumber(kc, "exclusiveMaximum");
  if (min === null || max === null || exMin === null || exMax === null) return null;
  if (min === undefined && max === undefined && exMin === undefined && exMax === undefined) return null;
  if (kc.checkOnly) return null;
  const lo = min ?? -Infinity;
  const hi = max ?? Infinity;
  const xlo = exMin ?? -Infinity;
  const xhi = exMax ?? Infinity;
  const at = kc.at;
  const range: NumericRange = { lo, hi, xlo, xhi, hasXlo: exMin !== undefined, hasXhi: exMax !== undefined };
  // Built once: a failure in first-error mode builds its error on every call.
  const minLoc = `${at}/minimum`, minMessage = `Expected a number >= ${min}`;
  const maxLoc = `${at}/maximum`, maxMessage = `Expected a number <= ${max}`;
  const exMinLoc = `${at}/exclusiveMinimum`, exMinMessage = `Expected a number > ${exMin}`;
  const exMaxLoc = `${at}/exclusiveMaximum`, exMaxMessage = `Expected a number < ${exMax}`;
  const check: Check = (inst, st, _ev, path) => {
    const x = inst as number;
    if (inRange(x, range)) return true;
    if (st.collect) report(st.errors, x, path);
    else if (st.trace && st.traced === null) report((st.traced = []), x, "");
    return false;
  };
  // Every bound the value fails, in keyword order, even when only the first error is wanted.
  const report = (errors: ValidationError[], x: number, path: string): void => {
    if (min !== undefined && !(x >= min)) errors.push({ instancePath: path, keywordLocation: minLoc, keyword: "minimum", message: minMessage });
    if (max !== undefined && !(x <= max)) errors.push({ instancePath: path, keywordLocation: maxLoc, keyword: "maximum", message: maxMessage });
    if (exMin !== undefined && !(x > exMin)) {
      errors.push({ instancePath: path, keywordLocation: exMinLoc, keyword: "exclusiveMinimum", message: exMinMessage });
    }
    if (exMax !== undefined && !(x < exMax)) {
      errors.push({ instancePath: path, keywordLocation: exMaxLoc, keyword: "exclusiveMaximum", message: exMaxMessage });
    }
  };
  return { check, group: "number", range };
};

/** Every bound at once; an absent exclusive bound passes even an infinite value. */
export function inRange(x: number, r: NumericRange): boolean {
  return x >= r.lo && x <= r.hi && (x > r.xlo || !r.hasXlo) && (x < r.xhi || !r.hasXhi);
}

/** `multipleOf`, exact on decimals (0.07 is a multiple of 0.01; 1e308 of 0.5). */
export const compileMultipleOf: KeywordCompiler = (kc) => {
  const divisor = readNumber(kc, "multipleOf");
  if (divisor === undefined || divisor === null) return null;
  const loc = `${kc.at}/multipleOf`;
  if (divisor <= 0) {
    kc.fail("malformed", "multipleOf must be greater than 0", loc);
    return null;
  }
  if (kc.checkOnly) return null;
  const decimal = toDecimal(divisor);
  const message = `Expected a multiple of ${divisor}`;
  // A quick exact answer for common decimals (0.001, 0.25, 5) and values of ordinary size;
  // the string-based test decides the rest.
  const quick = scaledMultipleTest(decimal) ?? ((): null => null);
  const check: Check = (inst, st, _ev, path) => {
    const fast = quick(inst as number);
    if (fast === null ? isDecimalMultiple(inst as number, decimal, divisor) : fast) return true;
    if (st.collect) pushError(st, path, loc, "multipleOf", message);
    else if (st.trace) traceHere(st, loc, "multipleOf", message);
    return false;
  };
  return { check, group: "number" };
};

/** `minLength` / `maxLength`, counted in Unicode code points (an emoji is 1), fused into one check. */
export const compileStringLength: KeywordCompiler = (kc) => {
  const bounds = readBounds(kc, "minLength", "maxLength", (n) => plural(n, "character"));
  if (bounds === null) return null;
  const length: LengthRange = { lo: bounds.lo, hi: bounds.hi };
  const check: Check = (inst, st, _ev, path) => {
    const s = inst as string;
    // Counted again only for the error: the range check rarely needs to count.
    return lengthWithin(s, length, st) || ((st.collect || st.trace) && bounds.refuse(st, path, codePointLength(s)));
  };
  return { check, group: "string", length };
};

export function lengthWithin(s: string, r: LengthRange, st: State): boolean {
  // UTF-16 length is an upper bound on code points and at most twice their number,
  // so most strings are decided without counting.
  if (s.length >= 2 * r.lo && s.length <= r.hi) return true;
  chargeCount(st, s);
  const n = codePointLength(s);
  return n >= r.lo && n <= r.hi;
}

/** `pattern`: compiled once for the linear-time matcher (regex.ts). */
export const compilePattern: KeywordCompiler = (kc) => {
  const source = own(kc.schema, "pattern");
  if (source === undefined) return null;
  const loc = `${kc.at}/pattern`;
  const re = kc.regex(source, loc);
  if (re === null || kc.checkOnly) return null;
  const message = `Expected a string matching the pattern ${JSON.stringify(source)}`;
  const check: Check = (inst, st, _ev, path) => {
    if (testPattern(re, inst as string, st)) return true;
    if (st.collect) pushError(st, path, loc, "pattern", message);
    else if (st.trace) traceHere(st, loc, "pattern", message);
    return false;
  };
  return { check, group: "string", regex: re };
};

/** `minItems` / `maxItems`, fused into one check. */
export const compileArrayBounds: KeywordCompiler = (kc) => {
  const bounds = readBounds(kc, "minItems", "maxItems", (n) => plural(n, "item"));
  if (bounds === null) return null;
  const { lo, hi } = bounds;
  const check: Check = (inst, st, _ev, path) => {
    const n = (inst as unknown[]).length;
    return (n >= lo && n <= hi) || bounds.refuse(st, path, n);
  };
  // The items fast path checks these bounds itself (see items.ts).
  return boundsFoldedIntoItems(kc.schema) ? { check, group: "array", fastSkip: true } : { check, group: "array" };
};

/** `minProperties` / `maxProperties`, fused into one check. */
const properties = (n: number): string => `${n} ${n === 1 ? "property" : "properties"}`;

export const compileObjectBounds: KeywordCompiler = (kc) => {
  const bounds = readBounds(kc, "minProperties", "maxProperties", properties);
  if (bounds === null) return null;
  const { lo, hi } = bounds;
  const check: Check = (inst, st, _ev, path) => {
    let n = 0;
    for (const _ in inst as object) n++;
    return (n >= lo && n <= hi) || bounds.refuse(st, path, n);
  };
  return { check, group: "object" };
};

/**
 * True when `minItems` / `maxItems` are checked inside the items fast path (the schema has
 * `items` or a non-empty `prefixItems`, so this keyword always compiles); the bounds keyword
 * is then left out of that node's fast list.
 */
export function boundsFoldedIntoItems(schema: Readonly<Record<string, unknown>>): boolean {
  const prefix = own(schema, "prefixItems");
  return Object.hasOwn(schema, "items") || (Array.isArray(prefix) && prefix.length > 0);
}
