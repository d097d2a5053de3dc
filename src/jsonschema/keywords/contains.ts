/** `contains` with `minContains` / `maxContains`; matching indices annotate for unevaluatedItems. */
import type { Check, KeywordCompiler } from "../context.js";
import { own, pushError, quiet, resume, traceHere } from "../context.js";
import { step } from "../steps.js";
import { plural, readNonNegativeInteger } from "./util.js";

export const compileContains: KeywordCompiler = (kc) => {
  const min = readNonNegativeInteger(kc, "minContains");
  const max = readNonNegativeInteger(kc, "maxContains");
  if (min === null || max === null) return null;
  const value = own(kc.schema, "contains");
  if (value === undefined) return null;
  const node = kc.sub(value, `${kc.at}/contains`, false);
  if (kc.checkOnly) return null;
  const lo = min ?? 1;
  const hi = max ?? Infinity;
  const minKeyword = min === undefined ? "contains" : "minContains";
  const minLoc = `${kc.at}/${minKeyword}`;
  const maxLoc = `${kc.at}/maxContains`;
  const minMessage = `Expected at least ${plural(lo, "item")} matching contains`;
  const maxMessage = `Expected at most ${plural(max ?? 0, "item")} matching contains`;

  const check: Check = (inst, st, ev, path) => {
    const arr = inst as unknown[];
    const collect = st.collect;
    const saved = quiet(st);
    let count = 0;
    for (let i = 0; i < arr.length; i++) {
      step(st);
      if (node.validate(arr[i], st, null, path)) {
        count++;
        if (ev !== null) (ev.containsIdx ??= new Set()).add(i);
        else if (count > hi || (hi === Infinity && count >= lo)) break;
      }
    }
    resume(st, saved);
    if (count < lo) {
      if (collect) pushError(st, path, minLoc, minKeyword, minMessage);
      else if (st.trace) traceHere(st, minLoc, minKeyword, minMessage);
      return false;
    }
    if (count > hi) {
      if (collect) pushError(st, path, maxLoc, "maxContains", maxMessage);
      else if (st.trace) traceHere(st, maxLoc, "maxContains", maxMessage);
      return false;
    }
    return true;
  };
  return { check, group: "array" };
};
