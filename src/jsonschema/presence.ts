/**
 * Which of a schema's required names an object lacks, by a function generated for that
 * list of names (see generated.ts): one monomorphic load per name instead of a
 * megamorphic keyed lookup. One statement per name, not one nested expression, so the
 * parser's recursion does not grow with the list; past MAX_GENERATED_REQUIRED names the
 * plain loop answers.
 */
import { instantiate } from "./generated.js";

/** Index of the first name `o` lacks; -1 when it has them all. */
export type FirstMissing = (o: Readonly<Record<string, unknown>>) => number;

/** Longest list generated: a check this long is dominated by its loads, not by dispatch. */
const MAX_GENERATED_REQUIRED = 256;

/**
 * A JSON value is never undefined, so a name is present when its value is defined; names
 * Object.prototype also has (`__proto__`, `toString` …) are asked of Object.hasOwn.
 */
export function firstMissingOf(names: readonly string[]): FirstMissing {
  if (names.length > MAX_GENERATED_REQUIRED) return (o) => firstLacking(names, o);
  const tests = names.map((n, i) => {
    const lit = JSON.stringify(n);
    return `if (${n in Object.prototype ? `!hasOwn(o, ${lit})` : `o[${lit}] === undefined`}) return ${i};`;
  });
  const generated = instantiate<FirstMissing>(`return (o) => {\n${tests.join("\n")}\nreturn -1;\n};`, { hasOwn: Object.hasOwn });
  return generated ?? ((o) => firstLacking(names, o));
}

/**
 * As a generated FirstMissing, by a loop over the names from `from`. `inherited[i]` says
 * whether Object.prototype has names[i] (asked once, where the list is compiled).
 */
export function firstLacking(names: readonly string[], o: Readonly<Record<string, unknown>>, from = 0, inherited?: readonly boolean[]): number {
  for (let i = from; i < names.length; i++) {
    const n = names[i]!;
    if ((inherited === undefined ? n in Object.prototype : inherited[i]) ? !Object.hasOwn(o, n) : o[n] === undefined) return i;
  }
  return -1;
}
