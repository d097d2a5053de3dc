/**
 * Visits every subschema position of a Draft 2020-12 schema (never data such
 * as `enum`, `const` or `default`), with its path from the schema root.
 */
import { SCHEMA_ARRAY_KEYWORDS, SCHEMA_MAP_KEYWORDS, SINGLE_SCHEMA_KEYWORDS } from "../jsonschema/vocabulary.js";
import { isPlainObject as isRecord } from "../jsonschema/json.js";

export { isRecord };

export type SchemaPath = readonly (string | number)[];
export type SchemaObject = Readonly<Record<string, unknown>>;

/** Bounded like the validator, so a hostile schema cannot make lint walk forever. */
const MAX_DEPTH = 128;
const MAX_NODES = 10_000;

export function walkSchema(root: unknown, visit: (schema: SchemaObject, path: SchemaPath) => void): void {
  let nodes = 0;
  const go = (s: unknown, path: (string | number)[]): void => {
    if (!isRecord(s) || path.length > MAX_DEPTH * 2 || ++nodes > MAX_NODES) return;
    visit(s, path);
    for (const k of SINGLE_SCHEMA_KEYWORDS) if (Object.hasOwn(s, k)) go(s[k], [...path, k]);
    // Pre-2020 tuple `items: [...]` is still walked so its keywords get checked.
    if (Array.isArray(s["items"])) (s["items"] as unknown[]).forEach((x, i) => go(x, [...path, "items", i]));
    for (const k of SCHEMA_MAP_KEYWORDS) {
      const m = s[k];
      if (isRecord(m)) for (const [name, sub] of Object.entries(m)) go(sub, [...path, k, name]);
    }
    for (const k of SCHEMA_ARRAY_KEYWORDS) {
      const a = s[k];
      if (Array.isArray(a)) a.forEach((x, i) => go(x, [...path, k, i]));
    }
  };
  go(root, []);
}

/** Follows a same-document `#/...` JSON Pointer; undefined for anything else. */
function resolveLocalRef(root: unknown, ref: unknown): unknown {
  if (typeof ref !== "string" || !ref.startsWith("#")) return undefined;
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let cur: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const seg = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isRecord(cur) || !Object.hasOwn(cur, seg)) return undefined;
    cur = cur[seg];
  }
  return cur;
}

/** A property schema with a plain `$ref` (and nothing else useful) replaced by its target, a few hops deep. */
export function derefSchema(root: unknown, schema: unknown): unknown {
  let cur = schema;
  for (let hops = 0; hops < 8 && isRecord(cur) && typeof cur["$ref"] === "string"; hops++) {
    const target = resolveLocalRef(root, cur["$ref"]);
    if (target === undefined) return cur;
    cur = isRecord(target) ? { ...target, ...Object.fromEntries(Object.entries(cur).filter(([k]) => k !== "$ref")) } : target;
  }
  return cur;
}
