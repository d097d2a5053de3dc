/**
 * Turns a schema's compiled keywords into one check. The instance's type is read once and
 * only that type's keywords run; the schema's own annotation record is allocated only when
 * it has unevaluated* keywords.
 */
import type { Annotations, Check, CompiledKeyword } from "./context.js";
import { mergeAnnotations, newAnnotations } from "./context.js";

const ALWAYS: Check = () => true;

export function assembleNode(compiled: readonly CompiledKeyword[]): Check {
  const any = pick(compiled, "any", false);
  const obj = pick(compiled, "object", false);
  const arr = pick(compiled, "array", false);
  const str = pick(compiled, "string", false);
  const num = pick(compiled, "number", false);
  const lateObj = pick(compiled, "object", true);
  const lateArr = pick(compiled, "array", true);
  const typed = obj.length + arr.length + str.length + num.length > 0;
  const owns = lateObj.length + lateArr.length > 0;

  if (!owns && !typed) {
    if (any.length === 0) return ALWAYS;
    if (any.length === 1) return any[0]!;
  }

  const byType = (inst: unknown): readonly Check[] | null => {
    switch (typeof inst) {
      case "object":
        return inst === null ? null : Array.isArray(inst) ? arr : obj;
      case "string":
        return str;
      case "number":
        return num;
      default:
        return null;
    }
  };

  if (!owns) {
    return (inst, st, ev, path) => {
      let ok = true;
      for (let i = 0; i < any.length; i++) {
        if (!any[i]!(inst, st, ev, path)) {
          if (st.stop) return false;
          ok = false;
        }
      }
      const group = byType(inst);
      if (group !== null) {
        for (let i = 0; i < group.length; i++) {
          if (!group[i]!(inst, st, ev, path)) {
            if (st.stop) return false;
            ok = false;
          }
        }
      }
      return ok;
    };
  }

  return (inst, st, ev, path) => {
    const local: Annotations = newAnnotations();
    let ok = true;
    for (let i = 0; i < any.length; i++) {
      if (!any[i]!(inst, st, local, path)) {
        if (st.stop) return false;
        ok = false;
      }
    }
    const group = byType(inst);
    if (group !== null) {
      for (let i = 0; i < group.length; i++) {
        if (!group[i]!(inst, st, local, path)) {
          if (st.stop) return false;
          ok = false;
        }
      }
    }
    const late = group === obj ? lateObj : group === arr ? lateArr : null;
    if (late !== null) {
      for (let i = 0; i < late.length; i++) {
        if (!late[i]!(inst, st, local, path)) {
          if (st.stop) return false;
          ok = false;
        }
      }
    }
    if (ok && ev !== null) mergeAnnotations(ev, local);
    return ok;
  };
}

function pick(compiled: readonly CompiledKeyword[], group: CompiledKeyword["group"], late: boolean): Check[] {
  return compiled.filter((c) => c.group === group && (c.late === true) === late).map((c) => c.check);
}
