/** Shared helpers for reading keyword values at compile time. */
import type { KeywordContext } from "../context.js";
import { own } from "../context.js";

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

/** Items are counted for humans: "1 item", "3 items". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
