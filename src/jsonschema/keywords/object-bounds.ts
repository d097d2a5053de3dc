/** `minProperties` / `maxProperties`, fused into one check. */
import type { Check, KeywordCompiler } from "../context.js";
import { readBounds } from "./util.js";

const properties = (n: number): string => `${n} ${n === 1 ? "property" : "properties"}`;

export const compileObjectBounds: KeywordCompiler = (kc) => {
  const bounds = readBounds(kc, "minProperties", "maxProperties", properties);
  if (bounds === null) return null;
  const { lo, hi } = bounds;
  const check: Check = (inst, st, _ev, path) => {
    let n = 0;
    for (const _ in inst as object) n++;
    return (n >= lo && n <= hi) || bounds.refuse(st, path, n);
  };
  return { check, group: "object" };
};
