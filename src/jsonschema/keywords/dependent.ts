/** `dependentRequired` and `dependentSchemas` (the latter in place: it sees the same object). */
import { step } from "../steps.js";
import type { Check, CompiledKeyword, KeywordCompiler, SchemaNode } from "../context.js";
import { pushError, traceHere } from "../context.js";
import { escapeToken } from "../pointer.js";
import { readSchemaMap } from "./util.js";

export const compileDependentRequired: KeywordCompiler = (kc) => {
  const map = readSchemaMap(kc, "dependentRequired");
  if (map === null || map === undefined) return null;
  const loc = `${kc.at}/dependentRequired`;
  const triggers = Object.keys(map);
  for (const key of triggers) {
    const list = map[key];
    if (!Array.isArray(list) || !list.every((k) => typeof k === "string")) {
      kc.fail("malformed", "dependentRequired values must be arrays of strings", `${loc}/${escapeToken(key)}`);
      return null;
    }
  }
  if (kc.checkOnly) return null;
  const needs = triggers.map((key) => [...new Set(map[key] as string[])]);
  const check: Check = (inst, st, _ev, path) => {
    const o = inst as Record<string, unknown>;
    let ok = true;
    for (let i = 0; i < triggers.length; i++) {
      if (!Object.hasOwn(o, triggers[i]!)) continue;
      for (const need of needs[i]!) {
        if (Object.hasOwn(o, need)) continue;
        if (!st.collect) {
          if (st.trace) traceHere(st, loc, "dependentRequired", missing(need, triggers[i]!));
          return false;
        }
        pushError(st, path, loc, "dependentRequired", missing(need, triggers[i]!));
        if (st.stop) return false;
        ok = false;
      }
    }
    return ok;
  };
  return { check, group: "object" };
};

function missing(need: string, trigger: string): string {
  return `Missing required property: ${need} (required when ${trigger} is present)`;
}

export const compileDependentSchemas: KeywordCompiler = (kc) => {
  const map = readSchemaMap(kc, "dependentSchemas");
  if (map === null || map === undefined) return null;
  const triggers = Object.keys(map);
  const nodes: SchemaNode[] = triggers.map((k) => kc.sub(map[k], `${kc.at}/dependentSchemas/${escapeToken(k)}`, true));
  if (kc.checkOnly) return null;
  const check: Check = (inst, st, ev, path) => {
    const o = inst as Record<string, unknown>;
    let ok = true;
    for (let i = 0; i < triggers.length; i++) {
      if (!Object.hasOwn(o, triggers[i]!)) continue;
      step(st);
      if (!nodes[i]!.validate(inst, st, ev, path)) {
        if (st.stop) return false;
        ok = false;
      }
    }
    return ok;
  };
  const out: CompiledKeyword = { check, group: "object" };
  return out;
};
