/**
 * `required`, asked of a function generated for this list of names once the schema is in
 * use (presence.ts, generated.ts): cheap enough to run in the collecting pass's order on
 * the fast pass too, so an instance missing a name fails before any member is validated.
 * `required: ["__proto__"]` on `{}` fails (Object.hasOwn).
 */
import type { Check, KeywordCompiler } from "../context.js";
import { own, pushError, traceHere } from "../context.js";
import { firstLacking, firstMissingOf, type FirstMissing } from "../presence.js";

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
  const messages = keys.map((k) => `Missing required property: ${k}`);
  const inherited = keys.map((k) => k in Object.prototype);
  let generated: FirstMissing | null = null;
  let calls = 0;
  const generateAfter = kc.generateAfter;
  const check: Check = (inst, st, _ev, path) => {
    const o = inst as Record<string, unknown>;
    let first: number;
    if (generated !== null) first = generated(o);
    else if (++calls > generateAfter) first = (generated = firstMissingOf(keys))(o);
    else first = firstLacking(keys, o, 0, inherited);
    if (first < 0) return true;
    if (!st.collect) {
      if (st.trace) traceHere(st, loc, "required", messages[first]!);
      return false;
    }
    for (let j = first; j >= 0; j = firstLacking(keys, o, j + 1, inherited)) {
      pushError(st, path, loc, "required", messages[j]!);
      if (st.stop) break;
    }
    return false;
  };
  return { check, group: "object" };
};
