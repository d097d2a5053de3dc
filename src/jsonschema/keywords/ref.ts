/**
 * `$ref` (same document only), evaluated in place next to its siblings. The compiler refuses
 * ref cycles that make no progress on the instance; the depth counter here bounds the rest
 * (long ref chains times deep instances) so validation ends with an error, not a RangeError.
 */
import type { Check, KeywordCompiler } from "../context.js";
import { own, pushError } from "../context.js";
import { step } from "../steps.js";

export const compileRef: KeywordCompiler = (kc) => {
  const value = own(kc.schema, "$ref");
  if (value === undefined) return null;
  const loc = `${kc.at}/$ref`;
  if (typeof value !== "string") {
    kc.fail("malformed", "$ref must be a string", loc);
    return null;
  }
  const target = kc.ref(value, loc);
  if (target === null || kc.checkOnly) return null;
  const check: Check = (inst, st, ev, path) => {
    if (st.refDepth >= st.maxRefDepth) {
      if (st.collect) pushError(st, path, loc, "$ref", "Schema recursion is too deep for this value");
      return false;
    }
    step(st);
    st.refDepth++;
    const ok = target.validate(inst, st, ev, path);
    st.refDepth--;
    return ok;
  };
  return { check, group: "any", cover: { all: [target] } };
};
