/** `minLength` / `maxLength`, counted in Unicode code points (an emoji is 1), fused into one check. */
import type { Check, KeywordCompiler, LengthRange, State } from "../context.js";
import { chargeCount } from "../steps.js";
import { pushError } from "../context.js";
import { codePointLength } from "../json.js";
import { plural, readNonNegativeInteger } from "./util.js";

export const compileStringLength: KeywordCompiler = (kc) => {
  const min = readNonNegativeInteger(kc, "minLength");
  const max = readNonNegativeInteger(kc, "maxLength");
  if (min === null || max === null || (min === undefined && max === undefined)) return null;
  if (kc.checkOnly) return null;
  const lo = min ?? 0;
  const hi = max ?? Infinity;
  const at = kc.at;
  const length: LengthRange = { lo, hi };
  const check: Check = (inst, st, _ev, path) => {
    const s = inst as string;
    if (lengthWithin(s, length, st)) return true;
    if (!st.collect) return false;
    const n = codePointLength(s);
    if (n < lo) pushError(st, path, `${at}/minLength`, "minLength", `Expected at least ${plural(lo, "character")}`);
    else pushError(st, path, `${at}/maxLength`, "maxLength", `Expected at most ${plural(hi, "character")}`);
    return false;
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
