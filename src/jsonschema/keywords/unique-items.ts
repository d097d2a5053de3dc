/**
 * `uniqueItems`: scalars go in a Set, objects and arrays are hashed by canonical JSON, so
 * 5,000 distinct objects cost 5,000 hashes instead of 12.5 M comparisons.
 */
import { charge } from "../steps.js";
import type { Check, KeywordCompiler } from "../context.js";
import { own, pushError, traceHere } from "../context.js";
import { canonicalJson } from "../json.js";

export const compileUniqueItems: KeywordCompiler = (kc) => {
  const value = own(kc.schema, "uniqueItems");
  if (value === undefined) return null;
  const loc = `${kc.at}/uniqueItems`;
  if (typeof value !== "boolean") {
    kc.fail("malformed", "uniqueItems must be a boolean", loc);
    return null;
  }
  if (kc.checkOnly) return null;
  if (!value) return null;
  // A typed node's fast path checks minItems / maxItems inside the items loop, after this
  // keyword (validation.ts boundsFoldedIntoItems); the collecting pass checks them before
  // it. So this failure is the first error only when those bounds hold; else nothing is
  // traced, and the failing value is collected again (context.ts traceChild).
  const min = own(kc.schema, "minItems");
  const max = own(kc.schema, "maxItems");
  const lo = typeof min === "number" ? min : 0;
  const hi = typeof max === "number" ? max : Infinity;
  const check: Check = (inst, st, _ev, path) => {
    // Work proportional to the items, on every visit: charged as one step an item.
    charge(st, (inst as unknown[]).length);
    const dup = findDuplicate(inst as unknown[]);
    if (dup === null) return true;
    if (st.collect) pushError(st, path, loc, "uniqueItems", `Expected unique items; items ${dup[0]} and ${dup[1]} are equal`);
    else if (st.trace) {
      const n = (inst as unknown[]).length;
      if (n >= lo && n <= hi) traceHere(st, loc, "uniqueItems", `Expected unique items; items ${dup[0]} and ${dup[1]} are equal`);
    }
    return false;
  };
  return { check, group: "array" };
};

/** Below this many items, pairwise comparison of scalars beats allocating a Map. */
const SMALL = 12;

function findDuplicate(arr: readonly unknown[]): [number, number] | null {
  if (arr.length < 2) return null;
  if (arr.length <= SMALL) {
    let scalarsOnly = true;
    for (let i = 0; i < arr.length; i++) {
      const v = arr[i];
      if (typeof v === "object" && v !== null) {
        scalarsOnly = false;
        break;
      }
    }
    if (scalarsOnly) {
      // === is JSON equality for scalars: 1 === 1.0, true !== 1, and 0 === -0.
      for (let i = 1; i < arr.length; i++) for (let j = 0; j < i; j++) if (arr[i] === arr[j]) return [j, i];
      return null;
    }
  }
  const scalars = new Map<unknown, number>();
  let composites: Map<string, number> | null = null;
  for (let i = 0; i < arr.length; i++) {
    const v = arr[i];
    if (typeof v === "object" && v !== null) {
      composites ??= new Map();
      const key = canonicalJson(v);
      const seen = composites.get(key);
      if (seen !== undefined) return [seen, i];
      composites.set(key, i);
    } else {
      const seen = scalars.get(v);
      if (seen !== undefined) return [seen, i];
      scalars.set(v, i);
    }
  }
  return null;
}
