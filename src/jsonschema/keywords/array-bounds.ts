/** `minItems` / `maxItems`, fused into one check. */
import type { Check, KeywordCompiler } from "../context.js";
import { boundsFoldedIntoItems } from "./items.js";
import { plural, readBounds } from "./util.js";

export const compileArrayBounds: KeywordCompiler = (kc) => {
  const bounds = readBounds(kc, "minItems", "maxItems", (n) => plural(n, "item"));
  if (bounds === null) return null;
  const { lo, hi } = bounds;
  const check: Check = (inst, st, _ev, path) => {
    const n = (inst as unknown[]).length;
    return (n >= lo && n <= hi) || bounds.refuse(st, path, n);
  };
  // The items fast path checks these bounds itself (see items.ts).
  return boundsFoldedIntoItems(kc.schema) ? { check, group: "array", fastSkip: true } : { check, group: "array" };
};
