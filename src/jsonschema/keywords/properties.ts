/**
 * `properties`, `patternProperties`, `additionalProperties`, in one pass over the instance's
 * own keys with a Map of declared names, so `__proto__`, `constructor` and `toString` are
 * ordinary names and inherited members never count as present.
 *
 * `additionalKeyword` lets a schema whose `unevaluatedProperties` can only ever see these
 * three keywords' annotations run it here, as a static check (see compile.ts).
 */
import type { Check, KeywordCompiler, SchemaNode } from "../context.js";
import { addProp, own, pushError } from "../context.js";
import { childPointer, escapeToken } from "../pointer.js";
import { readSchemaMap } from "./util.js";

export function makePropertiesCompiler(additionalKeyword: "additionalProperties" | "unevaluatedProperties"): KeywordCompiler {
  return (kc) => {
    const props = readSchemaMap(kc, "properties");
    const patternProps = readSchemaMap(kc, "patternProperties");
    if (props === null || patternProps === null) return null;
    let additionalValue = own(kc.schema, "additionalProperties");
    let additionalLoc = `${kc.at}/additionalProperties`;
    let additionalName = "additionalProperties";
    if (additionalValue === undefined && additionalKeyword === "unevaluatedProperties") {
      additionalValue = own(kc.schema, "unevaluatedProperties");
      additionalLoc = `${kc.at}/unevaluatedProperties`;
      additionalName = "unevaluatedProperties";
    }
    if (props === undefined && patternProps === undefined && additionalValue === undefined) return null;

    const keys = Object.keys(props ?? {});
    const nodes: SchemaNode[] = keys.map((k) => kc.sub(props![k], `${kc.at}/properties/${escapeToken(k)}`, false));
    const byKey = new Map<string, SchemaNode>();
    keys.forEach((k, i) => byKey.set(k, nodes[i]!));
    const patterns: RegExp[] = [];
    const patternNodes: SchemaNode[] = [];
    for (const p of Object.keys(patternProps ?? {})) {
      const at = `${kc.at}/patternProperties/${escapeToken(p)}`;
      const re = kc.regex(p, at);
      if (re === null) return null;
      patterns.push(re);
      patternNodes.push(kc.sub(patternProps![p], at, false));
    }
    const additional = additionalValue === undefined ? null : kc.sub(additionalValue, additionalLoc, false);
    const forbidAdditional = additionalValue === false;
    const nPatterns = patterns.length;

    // One for-in pass over the instance: V8 reads `o[key]` from the enum cache there, and
    // the key's hash is cached, so the Map lookup is cheap. JSON objects have no inherited
    // enumerable keys; one that did would be treated as an undeclared property.
    const check: Check = (inst, st, ev, path) => {
      const o = inst as Record<string, unknown>;
      let ok = true;
      for (const key in o) {
        const node = byKey.get(key);
        let matched = false;
        if (node !== undefined) {
          matched = true;
          if (ev !== null) addProp(ev, key);
          if (!node.validate(o[key], st, null, st.collect ? childPointer(path, key) : path)) {
            if (st.stop) return false;
            ok = false;
          }
        }
        for (let j = 0; j < nPatterns; j++) {
          if (!patterns[j]!.test(key)) continue;
          if (!matched && ev !== null) addProp(ev, key);
          matched = true;
          if (!patternNodes[j]!.validate(o[key], st, null, st.collect ? childPointer(path, key) : path)) {
            if (st.stop) return false;
            ok = false;
          }
        }
        if (matched || additional === null) continue;
        if (forbidAdditional) {
          if (!st.collect) return false;
          pushError(st, childPointer(path, key), additionalLoc, additionalName, "Unexpected property");
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
}

export const compileProperties = makePropertiesCompiler("additionalProperties");
