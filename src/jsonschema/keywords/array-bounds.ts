/** `minItems` / `maxItems`, fused into one check. */
import type { Check, KeywordCompiler } from "../context.js";
import { pushError } from "../context.js";
import { boundsFoldedIntoItems } from "./items.js";
import { plural, readNonNegativeInteger } from "./util.js";

export const compileArrayBounds: KeywordCompiler = (kc) => {
  const min = readNonNegativeInteger(kc, "minItems");
  const max = readNonNegativeInteger(kc, "maxItems");
  if (min === null || max === null || (min === undefined && max === undefined)) return null;
  if (kc.checkOnly) return null;
  const lo = min ?? 0;
  const hi = max ?? Infinity;
  const at = kc.at;
  const check: Check = (inst, st, _ev, path) => {
    const n = (inst as unknown[]).length;
    if (n >= lo && n <= hi) return true;
    if (!st.collect) return false;
    if (n < lo) pushError(st, path, `${at}/minItems`, "minItems", `Expected at least ${plural(lo, "item")}`);
    else pushError(st, path, `${at}/maxItems`, "maxItems", `Expected at most ${plural(hi, "item")}`);
    return false;
  };
  // The items fast path checks these bounds itself (see items.ts).
  return boundsFoldedIntoItems(kc.schema) ? { check, group: "array", fastSkip: true } : { check, group: "array" };
};
