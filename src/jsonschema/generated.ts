/**
 * The validator's generated code, in one place. V8 keeps type feedback per function
 * literal: a closure shared by every schema sees every schema's members and instance
 * shapes, so its calls and property loads go megamorphic; a function generated for one
 * schema object has feedback of its own (what makes ajv's generated code fast). Hot loops
 * (properties-fast.ts, items-fast.ts), the required check (presence.ts) and a typed node's
 * keyword dispatch (node-fast.ts) are generated once a schema object is in use
 * (GENERATE_AFTER); everything else stays a closure built at compile time. Source text holds only property names and enum/const strings through
 * JSON.stringify (a JSON string literal is a JS string literal), finite numbers checked
 * as such, and true/false/null; schema nodes, regexes and helpers are passed in as values.
 */
import { testPattern } from "./steps.js";

/**
 * Validations a schema object answers with its closures before its code is generated, by
 * default (CompileOptions.generateAfter): generating costs a few times a compile, which
 * one-shot uses (validateRecipeInputs compiles per call; a recipe's validator is rebuilt
 * after the GC drops it) never repay.
 */
export const GENERATE_AFTER = 8;

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

  /**
   * instantiate() with what every function using these constants reads bound too:
   * `consts` (see declarations), `isInteger` and `testPattern` (the leaf tests of leaf-source.ts).
   */
  instantiate<T>(source: string, helpers: Readonly<Record<string, unknown>>): T | null {
    return instantiate<T>(source, { consts: this.values, isInteger: Number.isInteger, testPattern, ...helpers });
  }
}

/**
 * Runs `source` (a function body returning the generated function) with `args` bound to
 * its parameter names; null when code generation from strings is disallowed
 * (--disallow-code-generation-from-strings, or a policy doing the same) or the parser ran
 * out of stack, so the caller keeps its closure. A SyntaxError is a bug and is thrown.
 */
export function instantiate<T>(source: string, args: Readonly<Record<string, unknown>>): T | null {
  const names = Object.keys(args);
  let make: (...values: unknown[]) => T;
  try {
    make = new Function(...names, `"use strict";\n${source}`) as (...values: unknown[]) => T;
  } catch (e) {
    if (e instanceof EvalError || e instanceof RangeError) return null;
    throw e;
  }
  return make(...names.map((n) => args[n]));
}
