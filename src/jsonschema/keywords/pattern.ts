/** `pattern`: compiled once for the linear-time matcher (regex.ts). */
import type { Check, KeywordCompiler } from "../context.js";
import { own, pushError } from "../context.js";
import { testPattern } from "../steps.js";

export const compilePattern: KeywordCompiler = (kc) => {
  const source = own(kc.schema, "pattern");
  if (source === undefined) return null;
  const loc = `${kc.at}/pattern`;
  const re = kc.regex(source, loc);
  if (re === null || kc.checkOnly) return null;
  const message = `Expected a string matching the pattern ${JSON.stringify(source)}`;
  const check: Check = (inst, st, _ev, path) => {
    if (testPattern(re, inst as string, st)) return true;
    if (st.collect) pushError(st, path, loc, "pattern", message);
    return false;
  };
  return { check, group: "string", regex: re };
};
