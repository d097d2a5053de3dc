/** `propertyNames`: each key is validated as a string; errors point at the key, not its value. */
import type { Check, KeywordCompiler } from "../context.js";
import { own, pushError, quiet, resume } from "../context.js";
import { step } from "../steps.js";
import { childPointer } from "../pointer.js";

export const compilePropertyNames: KeywordCompiler = (kc) => {
  const value = own(kc.schema, "propertyNames");
  if (value === undefined) return null;
  const node = kc.sub(value, `${kc.at}/propertyNames`, false);
  if (kc.checkOnly) return null;
  const loc = `${kc.at}/propertyNames`;
  const check: Check = (inst, st, _ev, path) => {
    const collect = st.collect;
    const saved = quiet(st);
    let ok = true;
    for (const key of Object.keys(inst as object)) {
      step(st);
      if (node.validate(key, st, null, path)) continue;
      ok = false;
      if (collect) pushError(st, childPointer(path, key), loc, "propertyNames", "Invalid property name");
      if ((saved & 2) !== 0) break;
    }
    resume(st, saved);
    return ok;
  };
  return { check, group: "object" };
};
