/** `required`, checked with Object.hasOwn so `required: ["__proto__"]` on `{}` fails. */
import type { Check, KeywordCompiler } from "../context.js";
import { own, pushError, traceHere } from "../context.js";
import { requiredFoldedIntoProperties } from "./properties.js";

export const compileRequired: KeywordCompiler = (kc) => {
  const value = own(kc.schema, "required");
  if (value === undefined) return null;
  const loc = `${kc.at}/required`;
  if (!Array.isArray(value) || !value.every((k) => typeof k === "string")) {
    kc.fail("malformed", "required must be an array of strings", loc);
    return null;
  }
  if (kc.checkOnly) return null;
  const keys = [...new Set(value as string[])];
  if (keys.length === 0) return null;
  const n = keys.length;
  const protoNamed = keys.map((k) => k in Object.prototype);
  const messages = keys.map((k) => `Missing required property: ${k}`);
  // A JSON value is never undefined; names inherited from Object.prototype need hasOwn.
  const has = (o: Record<string, unknown>, i: number): boolean =>
    protoNamed[i] ? Object.hasOwn(o, keys[i]!) : o[keys[i]!] !== undefined;
  const folded = requiredFoldedIntoProperties(kc.schema);
  const check: Check = (inst, st, ev, path) => {
    // The properties fast path of this schema object checks these names already.
    if (folded && !st.collect && ev === null) return true;
    const o = inst as Record<string, unknown>;
    for (let i = 0; i < n; i++) {
      if (protoNamed[i] ? Object.hasOwn(o, keys[i]!) : o[keys[i]!] !== undefined) continue;
      if (!st.collect) {
        // Both passes run this object's keywords in one order and nothing before required
        // is folded away, so this is the collecting pass's first error too.
        if (st.trace) traceHere(st, loc, "required", messages[i]!);
        return false;
      }
      for (let j = i; j < n; j++) {
        if (has(o, j)) continue;
        pushError(st, path, loc, "required", messages[j]!);
        if (st.stop) break;
      }
      return false;
    }
    return true;
  };
  return folded ? { check, group: "object", fastSkip: true } : { check, group: "object" };
};
