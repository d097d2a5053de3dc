/** Public types of the project's Draft 2020-12 validator (docs/jsonschema.md). */

export interface ValidationError {
  /** JSON Pointer into the instance ("" = root, "/a/b/1"). */
  readonly instancePath: string;
  /** JSON Pointer into the schema, e.g. "/properties/a/type". */
  readonly keywordLocation: string;
  readonly keyword: string;
  /** Path-oriented; never contains a value taken from the instance. */
  readonly message: string;
}

export interface ValidationResult {
  readonly valid: boolean;
  readonly errors: readonly ValidationError[];
}

export interface Validator {
  validate(instance: unknown): ValidationResult;
}

export type SchemaErrorCode =
  | "malformed"
  | "too_deep"
  | "too_many_nodes"
  | "too_large"
  | "id_unsupported"
  | "dynamic_ref_unsupported"
  | "external_ref"
  | "unresolved_ref"
  | "unsupported_dialect"
  | "invalid_pattern"
  | "unsupported_pattern";

export interface SchemaError {
  readonly code: SchemaErrorCode;
  readonly message: string;
  /** JSON Pointer to the offending schema location, when known. */
  readonly schemaPath?: string;
}

export type CompileResult =
  | { readonly ok: true; readonly validator: Validator }
  | { readonly ok: false; readonly error: SchemaError };

export interface CompileOptions {
  /** Default 128. */
  readonly maxDepth?: number;
  /** Default 10,000. */
  readonly maxNodes?: number;
  /** Default 1 MiB of JSON text. */
  readonly maxBytes?: number;
  /**
   * Evaluation steps one validation may take (steps.ts says what counts); default 200,000.
   * Past it the instance is invalid with one error, keyword "maxSteps".
   */
  readonly maxSteps?: number;
  /**
   * Default true: report every error (an instance past maxDepth / maxNodes gets that error
   * alone). false stops at the first one (cheaper on invalid input when only a yes/no and
   * one reason are needed): a schema error met before the bounds are checked may then be
   * the one reported for an instance that is also past them; the verdict is the same.
   */
  readonly allErrors?: boolean;
  /**
   * Validations a schema object answers with its closures before its hot loops are
   * generated (`new Function`: member and item loops, the required check, node dispatch). Default 8;
   * 0 generates on first use; Infinity never generates. Hosts that forbid code generation
   * from strings are detected and get the closures whatever this says.
   */
  readonly generateAfter?: number;
}
