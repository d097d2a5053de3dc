/** `if` / `then` / `else`. `then` and `else` without `if` are compiled (to catch errors) but inert. */
import type { Check, KeywordCompiler } from "../context.js";
import { mergeAnnotations, newAnnotations, own, quiet, resume } from "../context.js";
import { step } from "../steps.js";

export const compileConditional: KeywordCompiler = (kc) => {
  const ifValue = own(kc.schema, "if");
  const thenValue = own(kc.schema, "then");
  const elseValue = own(kc.schema, "else");
  const thenNode = thenValue === undefined ? null : kc.sub(thenValue, `${kc.at}/then`, ifValue !== undefined);
  const elseNode = elseValue === undefined ? null : kc.sub(elseValue, `${kc.at}/else`, ifValue !== undefined);
  if (ifValue === undefined) return null;
  const ifNode = kc.sub(ifValue, `${kc.at}/if`, true);
  if (kc.checkOnly) return null;
  const check: Check = (inst, st, ev, path) => {
    const saved = quiet(st);
    const sub = ev === null ? null : newAnnotations();
    step(st);
    const passed = ifNode.validate(inst, st, sub, path);
    resume(st, saved);
    if (passed) {
      if (ev !== null && sub !== null) mergeAnnotations(ev, sub);
      if (thenNode === null) return true;
      step(st);
      return thenNode.validate(inst, st, ev, path);
    }
    if (elseNode === null) return true;
    step(st);
    return elseNode.validate(inst, st, ev, path);
  };
  return { check, group: "any" };
};
