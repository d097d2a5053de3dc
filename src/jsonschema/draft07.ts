/**
 * A Draft-07 `$schema` (packs written from older examples) is read as Draft 2020-12 when the
 * schema uses no keyword whose meaning changed between the two (docs/jsonschema.md): array-form
 * `items` (2020-12's `prefixItems`), `additionalItems` (2020-12's `items` after a prefix) and
 * `dependencies` (split into `dependentRequired` / `dependentSchemas`). Where one is used the
 * schema is refused, naming the keyword and its rewrite; lint gives the same advice.
 * `definitions`, Draft-07's name of `$defs`, means the same in both and is read as `$defs`.
 */
import type { SchemaError } from "./types.js";
import { schemaFault } from "./context.js";
import { isPlainObject } from "./json.js";
import { escapeToken } from "./pointer.js";
import { DRAFT_07, SCHEMA_ARRAY_KEYWORDS, SCHEMA_MAP_KEYWORDS, SINGLE_SCHEMA_KEYWORDS } from "./vocabulary.js";

/** The keywords whose Draft-07 meaning differs, with the rewrite each needs. */
export const DRAFT_07_REWRITES: Readonly<Record<string, string>> = {
  items: 'array-form "items" is "prefixItems" in Draft 2020-12: rewrite items: [...] as prefixItems: [...]',
  additionalItems: '"additionalItems" is "items" (next to "prefixItems") in Draft 2020-12: rewrite it as items',
  dependencies: '"dependencies" is split in Draft 2020-12: rewrite name lists as dependentRequired and schemas as dependentSchemas',
};

export interface SchemaWarning {
  readonly code: "draft07_dialect";
  readonly message: string;
  readonly schemaPath: string;
}

export function declaresDraft07(schema: unknown): boolean {
  return isPlainObject(schema) && typeof schema.$schema === "string" && DRAFT_07.has(schema.$schema);
}

/**
 * The first use, anywhere among the schema's positions, of a keyword whose Draft-07 meaning
 * differs; null when none is used. Run only on a schema that declares Draft-07 and passed the
 * size bounds (so the walk is bounded); explicit stack, no recursion.
 */
export function draft07Refusal(root: unknown): SchemaError | null {
  const stack: Array<readonly [unknown, string]> = [[root, ""]];
  while (stack.length > 0) {
    const [schema, pointer] = stack.pop()!;
    if (!isPlainObject(schema)) continue;
    if (Array.isArray(schema.items)) return refusal("items", pointer);
    if (Object.hasOwn(schema, "additionalItems")) return refusal("additionalItems", pointer);
    if (Object.hasOwn(schema, "dependencies")) return refusal("dependencies", pointer);
    // Pushed in reverse so the first position in document order is reported first.
    const children: Array<readonly [unknown, string]> = [];
    for (const k of SINGLE_SCHEMA_KEYWORDS) if (Object.hasOwn(schema, k)) children.push([schema[k], `${pointer}/${k}`]);
    for (const k of SCHEMA_MAP_KEYWORDS) {
      const map = Object.hasOwn(schema, k) ? schema[k] : undefined;
      if (isPlainObject(map)) for (const key of Object.keys(map)) children.push([map[key], `${pointer}/${k}/${escapeToken(key)}`]);
    }
    for (const k of SCHEMA_ARRAY_KEYWORDS) {
      const list = Object.hasOwn(schema, k) ? schema[k] : undefined;
      if (Array.isArray(list)) list.forEach((item, i) => children.push([item, `${pointer}/${k}/${i}`]));
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return null;
}

function refusal(keyword: string, pointer: string): SchemaError {
  return schemaFault("unsupported_dialect", `Draft-07 schema uses a keyword whose meaning changed: ${DRAFT_07_REWRITES[keyword]}`, `${pointer}/${keyword}`);
}

/** What a schema that compiles is told on the way: a Draft-07 `$schema` read as 2020-12. */
export function schemaWarnings(schema: unknown): SchemaWarning[] {
  if (!declaresDraft07(schema)) return [];
  return [
    {
      code: "draft07_dialect",
      message: "Draft-07 $schema read as Draft 2020-12 (no keyword whose meaning changed is used); declare https://json-schema.org/draft/2020-12/schema",
      schemaPath: "/$schema",
    },
  ];
}
