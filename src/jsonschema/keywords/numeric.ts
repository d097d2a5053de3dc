/** `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`. */
import type { Check, CompiledKeyword, KeywordCompiler } from "../context.js";
import { pushError } from "../context.js";
import { readNumber } from "./util.js";

type Compare = (x: number, bound: number) => boolean;

const BOUNDS: ReadonlyArray<readonly [string, Compare, string]> = [
  ["minimum", (x, b) => x >= b, ">="],
  ["maximum", (x, b) => x <= b, "<="],
  ["exclusiveMinimum", (x, b) => x > b, ">"],
  ["exclusiveMaximum", (x, b) => x < b, "<"],
];

export const compileNumericBounds: KeywordCompiler = (kc) => {
  const out: CompiledKeyword[] = [];
  for (const [keyword, compare, symbol] of BOUNDS) {
    const bound = readNumber(kc, keyword);
    if (bound === null) return null;
    if (bound === undefined) continue;
    const loc = `${kc.at}/${keyword}`;
    const message = `Expected a number ${symbol} ${bound}`;
    const check: Check = (inst, st, _ev, path) => {
      if (compare(inst as number, bound)) return true;
      if (st.collect) pushError(st, path, loc, keyword, message);
      return false;
    };
    out.push({ check, group: "number" });
  }
  return out;
};
