/** `minItems` / `maxItems`. */
import type { Check, CompiledKeyword, KeywordCompiler } from "../context.js";
import { pushError } from "../context.js";
import { plural, readNonNegativeInteger } from "./util.js";

export const compileArrayBounds: KeywordCompiler = (kc) => {
  const min = readNonNegativeInteger(kc, "minItems");
  const max = readNonNegativeInteger(kc, "maxItems");
  if (min === null || max === null) return null;
  const out: CompiledKeyword[] = [];
  if (min !== undefined && min > 0) {
    const loc = `${kc.at}/minItems`;
    const message = `Expected at least ${plural(min, "item")}`;
    const check: Check = (inst, st, _ev, path) => {
      if ((inst as unknown[]).length >= min) return true;
      if (st.collect) pushError(st, path, loc, "minItems", message);
      return false;
    };
    out.push({ check, group: "array" });
  }
  if (max !== undefined) {
    const loc = `${kc.at}/maxItems`;
    const message = `Expected at most ${plural(max, "item")}`;
    const check: Check = (inst, st, _ev, path) => {
      if ((inst as unknown[]).length <= max) return true;
      if (st.collect) pushError(st, path, loc, "maxItems", message);
      return false;
    };
    out.push({ check, group: "array" });
  }
  return out;
};
