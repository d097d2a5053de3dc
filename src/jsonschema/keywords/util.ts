/** Shared helpers for reading keyword values at compile time. */
import type { KeywordContext, State } from "../context.js";
import { own, pushError, traceHere } from "../context.js";

/** undefined when absent, null after reporting a malformed value. */
export function readNonNegativeInteger(kc: KeywordContext, keyword: string): number | undefined | null {
  const v = own(kc.schema, keyword);
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) {
    kc.fail("malformed", `${keyword} must be a non-negative integer`, `${kc.at}/${keyword}`);
    return null;
  }
  return v;
}

export function readNumber(kc: KeywordContext, keyword: string): number | undefined | null {
  const v = own(kc.schema, keyword);
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v)) {
    kc.fail("malformed", `${keyword} must be a number`, `${kc.at}/${keyword}`);
    return null;
  }
  return v;
}

export function readSchemaMap(kc: KeywordContext, keyword: string): Record<string, unknown> | undefined | null {
  const v = own(kc.schema, keyword);
  if (v === undefined) return undefined;
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    kc.fail("malformed", `${keyword} must be an object`, `${kc.at}/${keyword}`);
    return null;
  }
  return v as Record<string, unknown>;
}

export function readSchemaArray(kc: KeywordContext, keyword: string): unknown[] | undefined | null {
  const v = own(kc.schema, keyword);
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length === 0) {
    kc.fail("malformed", `${keyword} must be a non-empty array of schemas`, `${kc.at}/${keyword}`);
    return null;
  }
  return v;
}

/** A `min…`/`max…` keyword pair (minItems, minLength, minProperties …) as one range. */
export interface Bounds {
  readonly lo: number;
  readonly hi: number;
  /** Records why a count of `n` is out of range when errors are collected; false, for the check to return. */
  refuse(st: State, path: string, n: number): false;
}

/** null when neither keyword is given, one is malformed (reported), or the schema is only checked. */
export function readBounds(kc: KeywordContext, minKey: string, maxKey: string, count: (n: number) => string): Bounds | null {
  const min = readNonNegativeInteger(kc, minKey);
  const max = readNonNegativeInteger(kc, maxKey);
  if (min === null || max === null || (min === undefined && max === undefined)) return null;
  if (kc.checkOnly) return null;
  return boundsOf(kc.at, minKey, maxKey, count, min ?? 0, max ?? Infinity);
}

/** The range [lo, hi] of a `min…`/`max…` pair at schema pointer `at`, with its errors. */
export function boundsOf(at: string, minKey: string, maxKey: string, count: (n: number) => string, lo: number, hi: number): Bounds {
  // Built once: a failure in first-error mode builds its error on every call.
  const minLoc = `${at}/${minKey}`, minMessage = `Expected at least ${count(lo)}`;
  const maxLoc = `${at}/${maxKey}`, maxMessage = `Expected at most ${count(hi)}`;
  return {
    lo,
    hi,
    refuse(st, path, n) {
      if (!st.collect) {
        if (st.trace) {
          if (n < lo) traceHere(st, minLoc, minKey, minMessage);
          else traceHere(st, maxLoc, maxKey, maxMessage);
        }
        return false;
      }
      if (n < lo) pushError(st, path, minLoc, minKey, minMessage);
      else pushError(st, path, maxLoc, maxKey, maxMessage);
      return false;
    },
  };
}

/** Items are counted for humans: "1 item", "3 items". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
