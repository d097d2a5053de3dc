/**
 * `unevaluatedProperties` / `unevaluatedItems`: run after every other keyword of their
 * schema, against what the node's own keywords and its valid in-place branches evaluated.
 */
import { step } from "../steps.js";
import type { Check, KeywordCompiler } from "../context.js";
import { evaluatedProp, own, pushError, traceChild, traceError } from "../context.js";
import { childPointer } from "../pointer.js";

export const compileUnevaluatedProperties: KeywordCompiler = (kc) => {
  const value = own(kc.schema, "unevaluatedProperties");
  if (value === undefined) return null;
  const node = kc.sub(value, `${kc.at}/unevaluatedProperties`, false);
  if (kc.checkOnly) return null;
  const forbid = value === false;
  const loc = `${kc.at}/unevaluatedProperties`;
  const check: Check = (inst, st, ev, path) => {
    // The node always hands its own annotation record to late keywords.
    const seen = ev!;
    if (seen.allProps) return true;
    let ok = true;
    for (const key of Object.keys(inst as object)) {
      if (evaluatedProp(seen, key)) continue;
      step(st);
      if (forbid) {
        if (!st.collect) {
          if (st.trace) traceError(st, loc, "unevaluatedProperties", "Unexpected property", childPointer("", key));
          return false;
        }
        pushError(st, childPointer(path, key), loc, "unevaluatedProperties", "Unexpected property");
        if (st.stop) return false;
        ok = false;
      } else if (!node.validate((inst as Record<string, unknown>)[key], st, null, st.collect ? childPointer(path, key) : path)) {
        if (st.trace) traceChild(st, node, (inst as Record<string, unknown>)[key], childPointer("", key));
        if (st.stop) return false;
        ok = false;
      }
    }
    seen.allProps = true;
    return ok;
  };
  return { check, group: "object", late: true };
};

export const compileUnevaluatedItems: KeywordCompiler = (kc) => {
  const value = own(kc.schema, "unevaluatedItems");
  if (value === undefined) return null;
  const node = kc.sub(value, `${kc.at}/unevaluatedItems`, false);
  if (kc.checkOnly) return null;
  const forbid = value === false;
  const loc = `${kc.at}/unevaluatedItems`;
  const check: Check = (inst, st, ev, path) => {
    const seen = ev!;
    if (seen.allItems) return true;
    const arr = inst as unknown[];
    let ok = true;
    for (let i = seen.items; i < arr.length; i++) {
      if (seen.containsIdx !== null && seen.containsIdx.has(i)) continue;
      step(st);
      if (forbid) {
        if (!st.collect) {
          if (st.trace) traceError(st, loc, "unevaluatedItems", "Unexpected item", childPointer("", i));
          return false;
        }
        pushError(st, childPointer(path, i), loc, "unevaluatedItems", "Unexpected item");
        if (st.stop) return false;
        ok = false;
      } else if (!node.validate(arr[i], st, null, st.collect ? childPointer(path, i) : path)) {
        if (st.trace) traceChild(st, node, arr[i], childPointer("", i));
        if (st.stop) return false;
        ok = false;
      }
    }
    seen.allItems = true;
    return ok;
  };
  return { check, group: "array", late: true };
};
