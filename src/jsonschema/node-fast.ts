/**
 * A typed node's fast path, generated for the node (see generated.ts): its type test and
 * its keywords' checks called from a function of its own, so each call has one target
 * V8 can inline, where the assembled closure (assemble.ts typedFast) calls every node's
 * keywords from one shared site. Same order, same answers: collecting goes to `general`,
 * annotations to the `withEv` list, the rest returns at the first failure.
 */
import type { Annotations, Check, State } from "./context.js";
import { mergeAnnotations, newAnnotations } from "./context.js";
import { GeneratedConstants } from "./generated.js";
import { typeTestSource } from "./leaf-source.js";

/** A node's keyword checks by the instance's type, in evaluation order (assemble.ts assembleGeneral). */
export interface GeneralLists {
  readonly other: readonly Check[];
  readonly obj: readonly Check[];
  readonly arr: readonly Check[];
  readonly str: readonly Check[];
  readonly num: readonly Check[];
  /** The node has late keywords (unevaluated*): they read the node's own annotation record. */
  readonly owns: boolean;
}

/**
 * The general check as source: the instance's type picks its list, every check runs (the
 * first failure returns when `st.stop`), annotations through a record of the node's own
 * when it owns one. Same order and answers as assemble.ts's closure.
 */
function generalSource(lists: GeneralLists, consts: GeneratedConstants): string {
  const block = (list: readonly Check[]): string => {
    if (!lists.owns) {
      if (list.length === 0) return "return true;";
      if (list.length === 1) return `return ${consts.bind(list[0])}(inst, st, ev, path);`;
    }
    const target = lists.owns ? "local" : "ev";
    const calls = list.map((c) => `if (!${consts.bind(c)}(inst, st, ${target}, path)) { if (st.stop) return false; ok = false; }`);
    const head = lists.owns ? "const local = newAnnotations(); let ok = true;" : "let ok = true;";
    const tail = lists.owns ? "if (ok && ev !== null) mergeAnnotations(ev, local); return ok;" : "return ok;";
    return `${head} ${calls.join(" ")} ${tail}`;
  };
  return `if (typeof inst === "object") {
    if (inst === null) { ${block(lists.other)} }
    if (Array.isArray(inst)) { ${block(lists.arr)} }
    ${block(lists.obj)}
  }
  if (typeof inst === "string") { ${block(lists.str)} }
  if (typeof inst === "number") { ${block(lists.num)} }
  ${block(lists.other)}`;
}

/** A node's general check (both passes of an untyped node, the collecting pass of a typed one), or null. */
export function generateGeneralCheck(lists: GeneralLists): Check | null {
  const consts = new GeneratedConstants();
  const body = generalSource(lists, consts);
  return consts.instantiate<Check>(`${consts.declarations()}
return function nodeGeneral(inst, st, ev, path) {
  ${body}
};`, {
    newAnnotations,
    mergeAnnotations,
  });
}

/**
 * The generated check, or null where code cannot be generated. `lists` is the node's
 * general dispatch, inlined for the collecting pass; `typeCheck` is the `type` keyword's.
 */
export function generateNodeCheck(
  code: number,
  withEv: readonly Check[],
  list: readonly Check[],
  lists: GeneralLists,
  typeCheck: Check,
): Check | null {
  const consts = new GeneratedConstants();
  // On the traced pass a type mismatch is traced by the type keyword's own check.
  const typeFailed = `return st.trace && ${consts.bind(typeCheck)}(inst, st, ev, path);`;
  const calls = list.map((c) => `if (!${consts.bind(c)}(inst, st, ev, path)) return false;`);
  const collecting = generalSource(lists, consts);
  const source = `${consts.declarations()}
return function nodeFast(inst, st, ev, path) {
  if (st.collect) {
  ${collecting}
  }
  if (!(${typeTestSource(code, "inst")})) { ${typeFailed} }
  if (ev !== null) return withAnnotations(inst, st, ev, path);
  ${calls.join("\n  ")}
  return true;
};`;
  const withAnnotations = (inst: unknown, st: State, ev: Annotations | null, path: string): boolean => {
    for (let i = 0; i < withEv.length; i++) if (!withEv[i]!(inst, st, ev, path)) return false;
    return true;
  };
  return consts.instantiate<Check>(source, { withAnnotations, newAnnotations, mergeAnnotations });
}
