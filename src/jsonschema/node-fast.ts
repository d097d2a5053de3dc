/**
 * A typed node's fast path, generated for the node (see generated.ts): its type test and
 * its keywords' checks called from a function of its own, so each call has one target
 * V8 can inline, where the assembled closure (assemble.ts typedFast) calls every node's
 * keywords from one shared site. Same order, same answers: collecting goes to `general`,
 * annotations to the `withEv` list, the rest returns at the first failure.
 */
import type { Annotations, Check, State } from "./context.js";
import { GeneratedConstants } from "./generated.js";
import { typeTestSource } from "./leaf-source.js";

/** The generated check, or null where code cannot be generated. */
export function generateNodeCheck(code: number, withEv: readonly Check[], list: readonly Check[], general: Check): Check | null {
  const consts = new GeneratedConstants();
  const calls = list.map((c) => `if (!${consts.bind(c)}(inst, st, ev, path)) return false;`);
  const source = `${consts.declarations()}
return function nodeFast(inst, st, ev, path) {
  if (st.collect) return general(inst, st, ev, path);
  if (!(${typeTestSource(code, "inst")})) return false;
  if (ev !== null) return withAnnotations(inst, st, ev, path);
  ${calls.join("\n  ")}
  return true;
};`;
  const withAnnotations = (inst: unknown, st: State, ev: Annotations | null, path: string): boolean => {
    for (let i = 0; i < withEv.length; i++) if (!withEv[i]!(inst, st, ev, path)) return false;
    return true;
  };
  return consts.instantiate<Check>(source, { general, withAnnotations });
}
