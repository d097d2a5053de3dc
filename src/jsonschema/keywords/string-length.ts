/** `minLength` / `maxLength`, counted in Unicode code points (an emoji is 1), fused into one check. */
import type { Check, KeywordCompiler, LengthRange, State } from "../context.js";
import { chargeCount } from "../steps.js";
import { codePointLength } from "../json.js";
import { plural, readBounds } from "./util.js";

export const compileStringLength: KeywordCompiler = (kc) => {
  const bounds = readBounds(kc, "minLength", "maxLength", (n) => plural(n, "character"));
  if (bounds === null) return null;
  const length: LengthRange = { lo: bounds.lo, hi: bounds.hi };
  const check: Check = (inst, st, _ev, path) => {
    const s = inst as string;
    // Counted again only for the error: the range check rarely needs to count.
    return lengthWithin(s, length, st) || (st.collect && bounds.refuse(st, path, codePointLength(s)));
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
