/**
 * Turns a schema's compiled keywords into one check. The instance's type is read once and
 * picks a precomputed list (type-independent keywords first, then that type's); the
 * schema's own annotation record is allocated only when it has unevaluated* keywords.
 */
import type { Annotations, Check, CompiledKeyword } from "./context.js";
import { mergeAnnotations, newAnnotations } from "./context.js";

const ALWAYS: Check = () => true;

export function assembleNode(compiled: readonly CompiledKeyword[]): Check {
  const any = pick(compiled, "any", false);
  const obj = any.concat(pick(compiled, "object", false), pick(compiled, "object", true));
  const arr = any.concat(pick(compiled, "array", false), pick(compiled, "array", true));
  const str = any.concat(pick(compiled, "string", false));
  const num = any.concat(pick(compiled, "number", false));
  const owns = compiled.some((c) => c.late === true);

  if (!owns && obj.length === any.length && arr.length === any.length && str.length === any.length && num.length === any.length) {
    if (any.length === 0) return ALWAYS;
    if (any.length === 1) return any[0]!;
    return runAll(any);
  }
  const select = (inst: unknown): readonly Check[] => {
    switch (typeof inst) {
      case "object":
        return inst === null ? any : Array.isArray(inst) ? arr : obj;
      case "string":
        return str;
      case "number":
        return num;
      default:
        return any;
    }
  };

  if (!owns) {
    return (inst, st, ev, path) => {
      const list = select(inst);
      let ok = true;
      for (let i = 0; i < list.length; i++) {
        if (!list[i]!(inst, st, ev, path)) {
          if (st.stop) return false;
          ok = false;
        }
      }
      return ok;
    };
  }

  // Late keywords sit at the end of the object/array lists, after every applicator.
  return (inst, st, ev, path) => {
    const list = select(inst);
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

function runAll(list: readonly Check[]): Check {
  return (inst, st, ev, path) => {
    let ok = true;
    for (let i = 0; i < list.length; i++) {
      if (!list[i]!(inst, st, ev, path)) {
        if (st.stop) return false;
        ok = false;
      }
    }
    return ok;
  };
}

function pick(compiled: readonly CompiledKeyword[], group: CompiledKeyword["group"], late: boolean): Check[] {
  return compiled.filter((c) => c.group === group && (c.late === true) === late).map((c) => c.check);
}
