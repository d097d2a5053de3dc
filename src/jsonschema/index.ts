/**
 * Public entry of the project's Draft 2020-12 validator (docs/jsonschema.md).
 * Compile once, validate many times; errors are data and never echo instance values.
 * `checkSchema` gives compileSchema's verdict alone, for callers that only need to know
 * whether a schema is usable (loading a catalog) and compile lazily on first use.
 * `schemaWarnings` says what an accepted schema should still be told (a Draft-07 `$schema`).
 */
import { checkSchema, compileSchema } from "./compile.js";
import { renderErrors, instancePathToDollar } from "./pointer.js";
import { schemaWarnings } from "./draft07.js";

export type { SchemaWarning } from "./draft07.js";

export type {
  CompileOptions,
  CompileResult,
  SchemaError,
  SchemaErrorCode,
  ValidationError,
  ValidationResult,
  Validator,
} from "./types.js";

export { checkSchema, compileSchema, renderErrors, instancePathToDollar, schemaWarnings };

/** What the recipe helper reads: either spelling of the inputs schema field. */
export type RecipeWithInputsSchema = { inputs_schema?: unknown } | { inputsSchema?: unknown };

export const INVALID_SCHEMA_MESSAGE = "$: Recipe input schema is invalid";

/**
 * Validates recipe inputs and renders dcc-mcp-core style messages
 * (`$.pivot[1]: Expected type number, got string`, `Missing required input: name`).
 * A recipe without a schema accepts anything; a schema that fails closed rejects everything.
 * Callers that validate repeatedly should compile once and use `renderErrors`.
 */
export function validateRecipeInputs(recipe: RecipeWithInputsSchema, inputs: unknown): string[] {
  const schema = readInputsSchema(recipe);
  if (schema === undefined) return [];
  const compiled = compileSchema(schema);
  if (!compiled.ok) return [INVALID_SCHEMA_MESSAGE];
  const result = compiled.validator.validate(inputs);
  return result.valid ? [] : renderErrors(result.errors);
}

function readInputsSchema(recipe: RecipeWithInputsSchema): unknown {
  if (recipe === null || typeof recipe !== "object") return undefined;
  if (holds(recipe, "inputs_schema")) return (recipe as { inputs_schema?: unknown }).inputs_schema;
  if (holds(recipe, "inputsSchema")) return (recipe as { inputsSchema?: unknown }).inputsSchema;
  return undefined;
}

/**
 * An own property, or one its class defines (a getter on the prototype):
 * never one that reached Object.prototype through pollution.
 */
function holds(value: object, key: string): boolean {
  return Object.hasOwn(value, key) || (key in value && !(key in Object.prototype));
}
