/**
 * Which of a schema's required names an object lacks, by a function generated for that
 * list of names. V8 keeps inline caches per function literal, so a closure shared by every
 * schema sees every instance shape and its keyed loads go megamorphic (a stub-cache probe
 * per name); a function generated for one list keeps its own caches, and its loads stay
 * monomorphic on instances of one shape (see generated.ts).
 */
import { instantiate } from "./generated.js";

/** Index of the first name `o` lacks; -1 when it has them all. */
export type FirstMissing = (o: Readonly<Record<string, unknown>>) => number;

/**
 * A JSON value is never undefined, so a name is present when its value is defined; names
 * Object.prototype also has (`__proto__`, `toString` …) are asked of Object.hasOwn.
 */
export function firstMissingOf(names: readonly string[]): FirstMissing {
  const tests = names.map((n, i) => {
    const lit = JSON.stringify(n);
    return `${n in Object.prototype ? `!hasOwn(o, ${lit})` : `o[${lit}] === undefined`} ? ${i} : `;
  });
  const generated = instantiate<FirstMissing>(`return (o) => ${tests.join("")}-1;`, { hasOwn: Object.hasOwn });
  return generated ?? ((o) => names.findIndex((n) => lacks(o, n)));
}

/** Whether `o` lacks `name`, by the same rule. */
export function lacks(o: Readonly<Record<string, unknown>>, name: string): boolean {
  return name in Object.prototype ? !Object.hasOwn(o, name) : o[name] === undefined;
}
