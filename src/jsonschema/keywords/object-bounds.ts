/** `minProperties` / `maxProperties`. */
import type { Check, CompiledKeyword, KeywordCompiler } from "../context.js";
import { pushError } from "../context.js";
import { plural, readNonNegativeInteger } from "./util.js";

export const compileObjectBounds: KeywordCompiler = (kc) => {
  const min = readNonNegativeInteger(kc, "minProperties");
  const max = readNonNegativeInteger(kc, "maxProperties");
  if (min === null || max === null) return null;
  const out: CompiledKeyword[] = [];
  if (min !== undefined && min > 0) {
    const loc = `${kc.at}/minProperties`;
    const message = `Expected at least ${plural(min, "property")}`.replace("propertys", "properties");
    const check: Check = (inst, st, _ev, path) => {
      if (Object.keys(inst as object).length >= min) return true;
      if (st.collect) pushError(st, path, loc, "minProperties", message);
      return false;
    };
    out.push({ check, group: "object" });
  }
  if (max !== undefined) {
    const loc = `${kc.at}/maxProperties`;
    const message = `Expected at most ${plural(max, "property")}`.replace("propertys", "properties");
    const check: Check = (inst, st, _ev, path) => {
      if (Object.keys(inst as object).length <= max) return true;
      if (st.collect) pushError(st, path, loc, "maxProperties", message);
      return false;
    };
    out.push({ check, group: "object" });
  }
  return out;
};
