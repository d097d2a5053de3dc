/** `multipleOf`, exact on decimals (0.07 is a multiple of 0.01; 1e308 of 0.5). */
import type { Check, KeywordCompiler } from "../context.js";
import { pushError } from "../context.js";
import { isDecimalMultiple, scaledMultipleTest, toDecimal } from "../decimal.js";
import { readNumber } from "./util.js";

export const compileMultipleOf: KeywordCompiler = (kc) => {
  const divisor = readNumber(kc, "multipleOf");
  if (divisor === undefined || divisor === null) return null;
  const loc = `${kc.at}/multipleOf`;
  if (divisor <= 0) {
    kc.fail("malformed", "multipleOf must be greater than 0", loc);
    return null;
  }
  if (kc.checkOnly) return null;
  const decimal = toDecimal(divisor);
  const message = `Expected a multiple of ${divisor}`;
  // A quick exact yes for common decimals (0.001, 0.25, 5); every no is confirmed exactly.
  const quick = scaledMultipleTest(decimal) ?? ((): boolean => false);
  const check: Check = (inst, st, _ev, path) => {
    if (quick(inst as number) || isDecimalMultiple(inst as number, decimal, divisor)) return true;
    if (st.collect) pushError(st, path, loc, "multipleOf", message);
    return false;
  };
  return { check, group: "number" };
};
