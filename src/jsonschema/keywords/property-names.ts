/** `propertyNames`: each key is validated as a string; errors point at the key, not its value. */
import type { Check, KeywordCompiler } from "../context.js";
import { own, pushError } from "../context.js";
import { childPointer } from "../pointer.js";

export const compilePropertyNames: KeywordCompiler = (kc) => {
  const value = own(kc.schema, "propertyNames");
  if (value === undefined) return null;
  const node = kc.sub(value, `${kc.at}/propertyNames`, false);
  const loc = `${kc.at}/propertyNames`;
  const check: Check = (inst, st, _ev, path) => {
    const collect = st.collect;
    st.collect = false;
    let ok = true;
    for (const key of Object.keys(inst as object)) {
      if (node.validate(key, st, null, path)) continue;
      ok = false;
      if (!collect) break;
      pushError(st, childPointer(path, key), loc, "propertyNames", "Invalid property name");
    }
    st.collect = collect;
    return ok;
  };
  return { check, group: "object" };
};
