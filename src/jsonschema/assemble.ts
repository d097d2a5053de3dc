/**
 * Turns a schema's compiled keywords into one check. The instance's type is read once and
 * picks a precomputed list (type-independent keywords first, then that type's, then the
 * late unevaluated* ones); a single-type `type` keyword is dropped from the list of the
 * group it names. The schema's own annotation record is allocated only when it has late
 * keywords.
 */
import type { Annotations, Check, CompiledKeyword, Group } from "./context.js";
import { mergeAnnotations, newAnnotations } from "./context.js";

const ALWAYS: Check = () => true;

export function assembleNode(compiled: readonly CompiledKeyword[]): Check {
  const listFor = (group: Group | null): Check[] => {
    const out: Check[] = [];
    for (const c of compiled) if (c.group === "any" && (group === null || c.impliedByGroup !== group)) out.push(c.check);
    if (group === null) return out;
    for (const c of compiled) if (c.group === group && c.late !== true) out.push(c.check);
    for (const c of compiled) if (c.group === group && c.late === true) out.push(c.check);
    return out;
  };
  const other = listFor(null);
  const obj = listFor("object");
  const arr = listFor("array");
  const str = listFor("string");
  const num = listFor("number");
  const owns = compiled.some((c) => c.late === true);
  const checksFor = (inst: unknown): Check[] => {
    switch (typeof inst) {
      case "object":
        return inst === null ? other : Array.isArray(inst) ? arr : obj;
      case "string":
        return str;
      case "number":
        return num;
      default:
        return other;
    }
  };

  if (!owns && compiled.every((c) => c.group === "any" && c.impliedByGroup === undefined)) {
    if (other.length === 0) return ALWAYS;
    if (other.length === 1) return other[0]!;
  }

  if (!owns) {
    return (inst, st, ev, path) => {
      const list = checksFor(inst);
      const n = list.length;
      if (n === 0) return true;
      if (n === 1) return list[0]!(inst, st, ev, path);
      let ok = true;
      for (let i = 0; i < n; i++) {
        if (!list[i]!(inst, st, ev, path)) {
          if (st.stop) return false;
          ok = false;
        }
      }
      return ok;
    };
  }

  return (inst, st, ev, path) => {
    const list = checksFor(inst);
    const local: Annotations = newAnnotations();
    let ok = true;
    for (let i = 0; i < list.length; i++) {
      if (!list[i]!(inst, st, local, path)) {
        if (st.stop) return false;
        ok = false;
      }
    }
    if (ok && ev !== null) mergeAnnotations(ev, local);
    return ok;
  };
}
