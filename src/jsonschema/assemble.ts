/**
 * Turns a schema's compiled keywords into one check. The instance's type is read once and
 * picks a precomputed list (type-independent keywords first, then that type's, then the
 * late unevaluated* ones); a single-type `type` keyword is dropped from the list of the
 * group it names. The schema's own annotation record is allocated only when it has late
 * keywords.
 *
 * A schema with a single-type `type` and no late keyword also gets a fast path: while no
 * errors are collected, the type is tested inline and the rest runs as one list that
 * returns at the first failure. Collecting runs the general check, so errors and their
 * order never depend on the path taken.
 */
import type { Annotations, Check, CompiledKeyword, Group, JsonType } from "./context.js";
import { mergeAnnotations, newAnnotations } from "./context.js";

const ALWAYS: Check = () => true;

export function assembleNode(compiled: readonly CompiledKeyword[]): Check {
  const general = assembleGeneral(compiled);
  if (compiled.some((c) => c.late === true)) return general;
  const typed = compiled.find((c) => c.singleType !== undefined);
  if (typed === undefined) return general;
  const kind = typed.singleType!;
  const group = groupOf(kind);
  const list: Check[] = [];
  for (const c of compiled) if (c !== typed && c.group === "any") list.push(c.check);
  if (group !== "any") for (const c of compiled) if (c.group === group) list.push(c.check);
  return typedFast(kind, list, general);
}

function groupOf(kind: JsonType): Group {
  switch (kind) {
    case "object":
    case "array":
    case "string":
    case "number":
      return kind;
    case "integer":
      return "number";
    default:
      return "any";
  }
}

/** One closure per type so each keeps its own type feedback; lists of 0–2 are unrolled. */
function typedFast(kind: JsonType, list: readonly Check[], general: Check): Check {
  const n = list.length;
  const a = list[0] ?? ALWAYS;
  const b = list[1] ?? ALWAYS;
  const rest: Check =
    n === 0
      ? ALWAYS
      : n === 1
        ? a
        : n === 2
          ? (inst, st, ev, path) => a(inst, st, ev, path) && b(inst, st, ev, path)
          : (inst, st, ev, path) => {
              for (let i = 0; i < n; i++) if (!list[i]!(inst, st, ev, path)) return false;
              return true;
            };
  switch (kind) {
    case "object":
      return (inst, st, ev, path) => {
        if (st.collect) return general(inst, st, ev, path);
        if (typeof inst !== "object" || inst === null || Array.isArray(inst)) return false;
        return rest(inst, st, ev, path);
      };
    case "array":
      return (inst, st, ev, path) => {
        if (st.collect) return general(inst, st, ev, path);
        if (!Array.isArray(inst)) return false;
        return rest(inst, st, ev, path);
      };
    case "string":
      return (inst, st, ev, path) => {
        if (st.collect) return general(inst, st, ev, path);
        if (typeof inst !== "string") return false;
        return rest(inst, st, ev, path);
      };
    case "number":
      return (inst, st, ev, path) => {
        if (st.collect) return general(inst, st, ev, path);
        if (typeof inst !== "number") return false;
        return rest(inst, st, ev, path);
      };
    case "integer":
      return (inst, st, ev, path) => {
        if (st.collect) return general(inst, st, ev, path);
        if (!Number.isInteger(inst)) return false;
        return rest(inst, st, ev, path);
      };
    case "boolean":
      return (inst, st, ev, path) => {
        if (st.collect) return general(inst, st, ev, path);
        if (typeof inst !== "boolean") return false;
        return rest(inst, st, ev, path);
      };
    case "null":
      return (inst, st, ev, path) => {
        if (st.collect) return general(inst, st, ev, path);
        if (inst !== null) return false;
        return rest(inst, st, ev, path);
      };
  }
}

function assembleGeneral(compiled: readonly CompiledKeyword[]): Check {
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
