/**
 * `properties`, `patternProperties`, `additionalProperties` as one pass over the object.
 * Keys are looked up with Object.hasOwn and Sets, so `__proto__`, `constructor` and
 * `toString` are ordinary property names.
 */
import type { Check, KeywordCompiler, SchemaNode } from "../context.js";
import { addProp, own, pushError } from "../context.js";
import { childPointer, escapeToken } from "../pointer.js";
import { readSchemaMap } from "./util.js";

export const compileProperties: KeywordCompiler = (kc) => {
  const props = readSchemaMap(kc, "properties");
  const patternProps = readSchemaMap(kc, "patternProperties");
  if (props === null || patternProps === null) return null;
  const additionalValue = own(kc.schema, "additionalProperties");
  if (props === undefined && patternProps === undefined && additionalValue === undefined) return null;

  const keys = Object.keys(props ?? {});
  const nodes: SchemaNode[] = keys.map((k) => kc.sub(props![k], `${kc.at}/properties/${escapeToken(k)}`, false));
  const known = new Set(keys);
  const patterns: RegExp[] = [];
  const patternNodes: SchemaNode[] = [];
  for (const p of Object.keys(patternProps ?? {})) {
    const at = `${kc.at}/patternProperties/${escapeToken(p)}`;
    const re = kc.regex(p, at);
    if (re === null) return null;
    patterns.push(re);
    patternNodes.push(kc.sub(patternProps![p], at, false));
  }
  const additional = additionalValue === undefined ? null : kc.sub(additionalValue, `${kc.at}/additionalProperties`, false);
  const forbidAdditional = additionalValue === false;
  const additionalLoc = `${kc.at}/additionalProperties`;
  const scanKeys = patterns.length > 0 || additional !== null;
  const nKeys = keys.length;
  const nPatterns = patterns.length;

  const check: Check = (inst, st, ev, path) => {
    const o = inst as Record<string, unknown>;
    let ok = true;
    for (let i = 0; i < nKeys; i++) {
      const key = keys[i]!;
      if (!Object.hasOwn(o, key)) continue;
      if (ev !== null) addProp(ev, key);
      if (!nodes[i]!.validate(o[key], st, null, st.collect ? childPointer(path, key) : path)) {
        if (st.stop) return false;
        ok = false;
      }
    }
    if (!scanKeys) return ok;
    for (const key of Object.keys(o)) {
      let matched = known.has(key);
      for (let j = 0; j < nPatterns; j++) {
        if (!patterns[j]!.test(key)) continue;
        matched = true;
        if (ev !== null) addProp(ev, key);
        if (!patternNodes[j]!.validate(o[key], st, null, st.collect ? childPointer(path, key) : path)) {
          if (st.stop) return false;
          ok = false;
        }
      }
      if (matched || additional === null) continue;
      if (forbidAdditional) {
        if (!st.collect) return false;
        pushError(st, childPointer(path, key), additionalLoc, "additionalProperties", "Unexpected property");
        if (st.stop) return false;
        ok = false;
      } else if (!additional.validate(o[key], st, null, st.collect ? childPointer(path, key) : path)) {
        if (st.stop) return false;
        ok = false;
      }
    }
    if (additional !== null && ev !== null) ev.allProps = true;
    return ok;
  };
  return { check, group: "object" };
};
