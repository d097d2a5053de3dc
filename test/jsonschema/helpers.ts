/** Small helpers for the validator's tests. */
import { expect } from "vitest";
import { compileSchema } from "../../src/jsonschema/index.js";
import type { ValidationError, Validator } from "../../src/jsonschema/index.js";

export function compiled(schema: unknown): Validator {
  const r = compileSchema(schema);
  if (!r.ok) throw new Error(`schema refused: ${r.error.code} ${r.error.message} at ${r.error.schemaPath ?? ""}`);
  return r.validator;
}

/** A predicate over instances for the schema. */
export function accepts(schema: unknown): (instance: unknown) => boolean {
  const v = compiled(schema);
  return (instance) => v.validate(instance).valid;
}

export function errorsOf(schema: unknown, instance: unknown): ValidationError[] {
  return [...compiled(schema).validate(instance).errors];
}

export function refusal(schema: unknown): { code: string; message: string; schemaPath?: string } {
  const r = compileSchema(schema);
  expect(r.ok).toBe(false);
  if (r.ok) throw new Error("unreachable");
  return r.error;
}

/** Asserts no message contains any of the given instance-derived strings. */
export function expectNoEcho(errors: readonly ValidationError[], secrets: readonly string[]): void {
  for (const e of errors) for (const s of secrets) expect(e.message).not.toContain(s);
}

/**
 * Both ways the fast pass runs (CompileOptions.generateAfter): the closures alone, and the
 * code generated for each schema object from its first validation.
 */
export const FAST_PATHS = [
  { mode: "closures", generateAfter: Infinity },
  { mode: "generated code", generateAfter: 0 },
] as const;
