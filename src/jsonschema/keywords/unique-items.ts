/**
 * `uniqueItems`: scalars go in a Set, objects and arrays are hashed by canonical JSON, so
 * 5,000 distinct objects cost 5,000 hashes instead of 12.5 M comparisons.
 */
import type { Check, KeywordCompiler } from "../context.js";
import { own, pushError } from "../context.js";
import { canonicalJson } from "../json.js";

export const compileUniqueItems: KeywordCompiler = (kc) => {
  const value = own(kc.schema, "uniqueItems");
  if (value === undefined) return null;
  const loc = `${kc.at}/uniqueItems`;
  if (typeof value !== "boolean") {
    kc.fail("malformed", "uniqueItems must be a boolean", loc);
    return null;
  }
  if (!value) return null;
  const check: Check = (inst, st, _ev, path) => {
    const dup = findDuplicate(inst as unknown[]);
    if (dup === null) return true;
    if (st.collect) pushError(st, path, loc, "uniqueItems", `Expected unique items; items ${dup[0]} and ${dup[1]} are equal`);
    return false;
  };
  return { check, group: "array" };
};

function findDuplicate(arr: readonly unknown[]): [number, number] | null {
  if (arr.length < 2) return null;
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
