/**
 * The core vocabulary as this validator reads it: where Draft 2020-12 keeps subschemas (to
 * walk schema positions, never data such as `enum`), the dialects accepted, and `$anchor`
 * names collected from schema positions with the core keywords refused (`$id`,
 * `$dynamicRef`, `$dynamicAnchor`, other dialects).
 */
import type { SchemaError } from "./types.js";
import { schemaFault } from "./context.js";
import { isPlainObject } from "./json.js";
import { escapeToken } from "./pointer.js";

/** Where Draft 2020-12 keeps subschemas. */
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

/** Draft-07's URIs, accepted at the root under the conditions of draft07.ts. */
export const DRAFT_07: ReadonlySet<string> = new Set([
  "http://json-schema.org/draft-07/schema#",
  "http://json-schema.org/draft-07/schema",
  "https://json-schema.org/draft-07/schema#",
  "https://json-schema.org/draft-07/schema",
]);

/** Collects `$anchor` names from schema positions (not from data such as `enum` or `const`). */
export type AnchorResult =
  | { readonly ok: true; readonly anchors: ReadonlyMap<string, string> }
  | { readonly ok: false; readonly error: SchemaError };

export function collectAnchors(root: unknown): AnchorResult {
  const anchors = new Map<string, string>();
  // Explicit stack: depth is already bounded, but this walk need not rely on it.
  const stack: Array<readonly [unknown, string]> = [[root, ""]];
  while (stack.length > 0) {
    const [schema, pointer] = stack.pop()!;
    if (!isPlainObject(schema)) continue;
    const refused = refusedCoreKeyword(schema, pointer);
    if (refused !== null) return { ok: false, error: refused };
    if (Object.hasOwn(schema, "$anchor")) {
      const name = schema.$anchor;
      if (typeof name !== "string" || !ANCHOR_NAME.test(name)) {
        return { ok: false, error: schemaFault("malformed", "$anchor must be a plain name", `${pointer}/$anchor`) };
      }
      if (anchors.has(name)) {
        return { ok: false, error: schemaFault("malformed", "$anchor names must be unique", `${pointer}/$anchor`) };
      }
      anchors.set(name, pointer);
    }
    for (const k of SINGLE_SCHEMA_KEYWORDS) {
      if (Object.hasOwn(schema, k)) stack.push([schema[k], `${pointer}/${k}`]);
    }
    for (const k of SCHEMA_MAP_KEYWORDS) {
      const map = Object.hasOwn(schema, k) ? schema[k] : undefined;
      if (!isPlainObject(map)) continue;
      for (const key of Object.keys(map)) stack.push([map[key], `${pointer}/${k}/${escapeToken(key)}`]);
    }
    for (const k of SCHEMA_ARRAY_KEYWORDS) {
      const list = Object.hasOwn(schema, k) ? schema[k] : undefined;
      if (!Array.isArray(list)) continue;
      list.forEach((item, i) => stack.push([item, `${pointer}/${k}/${i}`]));
    }
  }
  return { ok: true, anchors };
}

function dynamicRefused(k: string, pointer: string): SchemaError {
  return schemaFault("dynamic_ref_unsupported", `${k} is not supported`, `${pointer}/${k}`);
}

/** Keywords that decide whether this schema can be evaluated here at all (docs/jsonschema.md). */
export function refusedCoreKeyword(schema: Readonly<Record<string, unknown>>, pointer: string): SchemaError | null {
  if (Object.hasOwn(schema, "$id")) {
    return schemaFault("id_unsupported", "$id is not supported: schemas are single, anonymous documents", `${pointer}/$id`);
  }
  if (Object.hasOwn(schema, "$dynamicRef")) return dynamicRefused("$dynamicRef", pointer);
  if (Object.hasOwn(schema, "$dynamicAnchor")) return dynamicRefused("$dynamicAnchor", pointer);
  const dialect = Object.hasOwn(schema, "$schema") ? schema.$schema : undefined;
  if (dialect !== undefined && (typeof dialect !== "string" || !(DIALECTS.has(dialect) || (pointer === "" && DRAFT_07.has(dialect))))) {
    return schemaFault("unsupported_dialect", "Only Draft 2020-12 schemas are supported (and Draft-07 at the root, where it means the same)", `${pointer}/$schema`);
  }
  return null;
}
