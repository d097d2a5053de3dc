/**
 * `required`, asked of a function generated for this list of names (presence.ts):
 * monomorphic loads instead of a megamorphic lookup per name, cheap enough to run in the
 * collecting pass's order on the fast pass too, so an instance missing a name fails before
 * any member is validated. `required: ["__proto__"]` on `{}` fails (Object.hasOwn).
 */
import type { Check, KeywordCompiler } from "../context.js";
import { own, pushError, traceHere } from "../context.js";
import { firstMissingOf, lacks, type FirstMissing } from "../presence.js";

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
  // Generated on first use: the daemon compiles every recipe's schemas at load, and most
  // are never validated.
  let missing: FirstMissing | null = null;
  const check: Check = (inst, st, _ev, path) => {
    const o = inst as Record<string, unknown>;
    const first = (missing ??= firstMissingOf(keys))(o);
    if (first < 0) return true;
    if (!st.collect) {
      if (st.trace) traceHere(st, loc, "required", messages[first]!);
      return false;
    }
    for (let j = first; j < keys.length; j++) {
      if (!lacks(o, keys[j]!)) continue;
      pushError(st, path, loc, "required", messages[j]!);
      if (st.stop) break;
    }
    return false;
  };
  return { check, group: "object" };
};
