/**
 * `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, fused into one check: one
 * call and four comparisons on the fast path; which bound failed is worked out only when
 * errors are collected.
 */
import type { Check, KeywordCompiler, NumericRange } from "../context.js";
import { pushError } from "../context.js";
import { readNumber } from "./util.js";

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
  const check: Check = (inst, st, _ev, path) => {
    const x = inst as number;
    if (inRange(x, range)) return true;
    if (!st.collect) return false;
    if (min !== undefined && !(x >= min)) pushError(st, path, `${at}/minimum`, "minimum", `Expected a number >= ${min}`);
    if (max !== undefined && !(x <= max)) pushError(st, path, `${at}/maximum`, "maximum", `Expected a number <= ${max}`);
    if (exMin !== undefined && !(x > exMin)) {
      pushError(st, path, `${at}/exclusiveMinimum`, "exclusiveMinimum", `Expected a number > ${exMin}`);
    }
    if (exMax !== undefined && !(x < exMax)) {
      pushError(st, path, `${at}/exclusiveMaximum`, "exclusiveMaximum", `Expected a number < ${exMax}`);
    }
    return false;
  };
  return { check, group: "number", range };
};

/** Every bound at once; an absent exclusive bound passes even an infinite value. */
export function inRange(x: number, r: NumericRange): boolean {
  return x >= r.lo && x <= r.hi && (x > r.xlo || !r.hasXlo) && (x < r.xhi || !r.hasXhi);
}
