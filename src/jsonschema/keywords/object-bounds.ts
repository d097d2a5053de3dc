/** `minProperties` / `maxProperties`, fused into one check. */
import type { Check, KeywordCompiler } from "../context.js";
import { pushError } from "../context.js";
import { readNonNegativeInteger } from "./util.js";

const properties = (n: number): string => `${n} ${n === 1 ? "property" : "properties"}`;

export const compileObjectBounds: KeywordCompiler = (kc) => {
  const min = readNonNegativeInteger(kc, "minProperties");
  const max = readNonNegativeInteger(kc, "maxProperties");
  if (min === null || max === null || (min === undefined && max === undefined)) return null;
  if (kc.checkOnly) return null;
  const lo = min ?? 0;
  const hi = max ?? Infinity;
  const at = kc.at;
  const check: Check = (inst, st, _ev, path) => {
    let n = 0;
    for (const _ in inst as object) n++;
    if (n >= lo && n <= hi) return true;
    if (!st.collect) return false;
    if (n < lo) pushError(st, path, `${at}/minProperties`, "minProperties", `Expected at least ${properties(lo)}`);
    else pushError(st, path, `${at}/maxProperties`, "maxProperties", `Expected at most ${properties(hi)}`);
    return false;
  };
  return { check, group: "object" };
};
