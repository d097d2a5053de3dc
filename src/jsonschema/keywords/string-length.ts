/** `minLength` / `maxLength`, counted in Unicode code points (an emoji is 1). */
import type { Check, CompiledKeyword, KeywordCompiler } from "../context.js";
import { pushError } from "../context.js";
import { codePointLength } from "../json.js";
import { plural, readNonNegativeInteger } from "./util.js";

export const compileStringLength: KeywordCompiler = (kc) => {
  const min = readNonNegativeInteger(kc, "minLength");
  const max = readNonNegativeInteger(kc, "maxLength");
  if (min === null || max === null) return null;
  const out: CompiledKeyword[] = [];
  if (min !== undefined && min > 0) {
    const loc = `${kc.at}/minLength`;
    const message = `Expected at least ${plural(min, "character")}`;
    // UTF-16 length bounds the code point count from above and 2x from below.
    const check: Check = (inst, st, _ev, path) => {
      const s = inst as string;
      if (s.length >= 2 * min || (s.length >= min && codePointLength(s) >= min)) return true;
      if (st.collect) pushError(st, path, loc, "minLength", message);
      return false;
    };
    out.push({ check, group: "string" });
  }
  if (max !== undefined) {
    const loc = `${kc.at}/maxLength`;
    const message = `Expected at most ${plural(max, "character")}`;
    const check: Check = (inst, st, _ev, path) => {
      const s = inst as string;
      if (s.length <= max || codePointLength(s) <= max) return true;
      if (st.collect) pushError(st, path, loc, "maxLength", message);
      return false;
    };
    out.push({ check, group: "string" });
  }
  return out;
};
