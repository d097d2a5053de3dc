/**
 * The validator's generated code, in one place. V8 keeps type feedback per function
 * literal: a closure shared by every schema sees every schema's members and instance
 * shapes, so its calls and property loads go megamorphic; a function generated for one
 * schema object has feedback of its own (what makes ajv's generated code fast). Hot loops
 * (properties-fast.ts, items-fast.ts) and the required check (presence.ts) are generated
 * on first use; everything else stays a closure built at compile time. Only names and
 * numbers become source text, through JSON.stringify (a JSON string literal is a JS
 * string literal); schema nodes, regexes and helpers are passed in as values.
 */

/** Values a generated function receives by name (`k0`, `k1` …), with the helpers it calls. */
export class GeneratedConstants {
  readonly values: unknown[] = [];

  bind(value: unknown): string {
    this.values.push(value);
    return `k${this.values.length - 1}`;
  }

  /** `const k0 = consts[0], …;` for the function's preamble. */
  declarations(): string {
    if (this.values.length === 0) return "";
    return `const ${this.values.map((_, i) => `k${i} = consts[${i}]`).join(", ")};`;
  }
}

/**
 * Runs `source` (a function body returning the generated function) with `args` bound to
 * its parameter names; null when code generation from strings is disallowed
 * (--disallow-code-generation-from-strings, or a policy doing the same), so the caller
 * keeps its closure.
 */
export function instantiate<T>(source: string, args: Readonly<Record<string, unknown>>): T | null {
  const names = Object.keys(args);
  let make: (...values: unknown[]) => T;
  try {
    make = new Function(...names, `"use strict";\n${source}`) as (...values: unknown[]) => T;
  } catch (e) {
    if (e instanceof EvalError) return null;
    throw e;
  }
  return make(...names.map((n) => args[n]));
}
