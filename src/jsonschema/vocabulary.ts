/** Where Draft 2020-12 keeps subschemas; used to walk schema positions (never data such as `enum`). */

export const SINGLE_SCHEMA_KEYWORDS = [
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "unevaluatedItems",
] as const;

/** `definitions` is Draft-07's name of `$defs`, read the same way (draft07.ts). */
export const SCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"] as const;

export const SCHEMA_ARRAY_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;

export const DIALECTS: ReadonlySet<string> = new Set([
  "https://json-schema.org/draft/2020-12/schema",
  "https://json-schema.org/draft/2020-12/schema#",
]);

export const ANCHOR_NAME = /^[A-Za-z_][-A-Za-z0-9._]*$/;
