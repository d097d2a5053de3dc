/**
 * The properties fast path, generated for one schema object (see generated.ts): its switch
 * compares interned keys, its calls go to one member each (and get inlined), its loads
 * see the shapes of that schema's instances only, where the closure loop in properties.ts
 * is shared by every schema.
 *
 * Semantics are the closure loop's: members in the instance's order, counted for the
 * instance limits, a container handed to a schema that does not cover it marks the pass
 * partial, the first failure returns false through `failed` / `failedExtra` (which trace).
 */
import type { SchemaNode, State } from "../context.js";
import { GeneratedConstants } from "../generated.js";
import { memberSource } from "../leaf-source.js";
import { lengthWithin } from "./string-length.js";
import { charge } from "../steps.js";

export type ObjectFastPath = (o: Readonly<Record<string, unknown>>, st: State, path: string) => boolean;

export interface ObjectFastPathParts {
  readonly keys: readonly string[];
  readonly nodes: readonly SchemaNode[];
  /** The schema undeclared members must pass; null when they are not checked. */
  readonly additional: SchemaNode | null;
  /** additionalProperties (or a static unevaluatedProperties) is `false`. */
  readonly forbidAdditional: boolean;
  /** Declared member `i` failed: traces it when the pass traces, answers false. */
  readonly failed: (st: State, i: number, v: unknown) => false;
  /** An undeclared member failed or is forbidden: traces it when the pass traces, answers false. */
  readonly failedExtra: (st: State, key: string, v: unknown) => false;
}

/**
 * Most declared names a generated switch holds: its cases are compared in turn, so past
 * this the closure loop's Map (with its key cache) is the better lookup.
 */
export const MAX_GENERATED_NAMES = 32;

/** The generated fast path, or null when code generation from strings is disallowed. */
export function generateObjectFastPath(parts: ObjectFastPathParts): ObjectFastPath | null {
  const { keys, nodes, additional, forbidAdditional } = parts;
  const consts = new GeneratedConstants();
  const cases = keys.map((k, i) => `case ${JSON.stringify(k)}: ${memberSource(nodes[i]!, consts, `failed(st, ${i}, v)`)} break;`);
  let extra: string;
  if (forbidAdditional) extra = "return failedExtra(st, key, v);";
  else if (additional === null) extra = `if (typeof v === "object" && v !== null) st.partial = true;`;
  else extra = memberSource(additional, consts, "failedExtra(st, key, v)");
  const source = `${consts.declarations()}
return function propertiesFast(o, st, path) {
  let count = 0;
  for (const key in o) {
    count++;
    const v = o[key];
    switch (key) {
      ${cases.join("\n      ")}
      default: ${extra}
    }
  }
  st.nodes += count;
  charge(st, count);
  return true;
};`;
  return consts.instantiate<ObjectFastPath>(source, {
    lengthWithin,
    charge,
    failed: parts.failed,
    failedExtra: parts.failedExtra,
  });
}
