/**
 * `properties`, `patternProperties`, `additionalProperties`. Declared keys are read directly
 * (a JSON value is never undefined, so undefined means absent); names that exist on
 * Object.prototype (`__proto__`, `constructor`, `toString` ...) are confirmed with
 * Object.hasOwn so inherited members never count as present.
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
    const protoNamed = keys.map((k) => k in Object.prototype);
    const declared = new Set(keys);
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
    const nKeys = keys.length;
    const nPatterns = patterns.length;

    const check: Check = (inst, st, ev, path) => {
      const o = inst as Record<string, unknown>;
      let ok = true;
      let present = 0;
      for (let i = 0; i < nKeys; i++) {
        const key = keys[i]!;
        const v = o[key];
        if (v === undefined || (protoNamed[i] && !Object.hasOwn(o, key))) continue;
        present++;
        if (ev !== null) addProp(ev, key);
        if (!nodes[i]!.validate(v, st, null, st.collect ? childPointer(path, key) : path)) {
          if (st.stop) return false;
          ok = false;
        }
      }
      if (nPatterns === 0) {
        if (additional === null) return ok;
        let total = 0;
        // for-in: no key array is allocated; JSON objects have no inherited enumerable keys.
        for (const _ in o) total++;
        if (total === present) {
          if (ev !== null) ev.allProps = true;
          return ok;
        }
      }
      for (const key in o) {
        let matched = declared.has(key);
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
