/**
 * Schema keys outside the Draft 2020-12 vocabulary. A near miss of a keyword
 * (`minimun`) silently drops a constraint, so it is an error; keywords of older
 * drafts and OpenAPI (`nullable`, `dependencies`) are ignored by 2020-12, a warning.
 * Other unknown keys (x-*, annotations of one's own) are left alone.
 *
 * Also what the validator refuses or cuts short, each with the validator's own reason
 * (its first refusal is also the loader's schema_fails_closed; lint names every one):
 * every pattern it cannot run, a fan-out past its evaluation step budget (found
 * statically, jsonschema/fan-out.ts), and under a Draft-07 `$schema` every keyword whose
 * meaning changed (or, when none is used, a warning that the schema is read as 2020-12).
 */
import { DEFAULT_MAX_STEPS } from "../../jsonschema/steps.js";
import { buildPattern } from "../../jsonschema/regex.js";
import { declaresDraft07, DRAFT_07_REWRITES, schemaWarnings } from "../../jsonschema/draft07.js";
import { worstFanOut } from "../../jsonschema/fan-out.js";
import { checkSchema } from "../../jsonschema/index.js";
import { parsePointer } from "../../jsonschema/pointer.js";
import { nearest } from "../../util/edit-distance.js";
import { isRecord, walkSchema, type SchemaObject, type SchemaPath } from "../schema-walk.js";
import type { RuleHit } from "../types.js";

type Shape = "schema" | "schemaMap" | "schemaList" | "number" | "count" | "string" | "stringList" | "boolean" | "type" | "any" | "list" | "stringMap";

/** Every Draft 2020-12 keyword, with the value shape a typo of it must also have. */
const KEYWORD_SHAPES: Readonly<Record<string, Shape>> = {
  $schema: "string", $id: "string", $ref: "string", $anchor: "string", $dynamicRef: "string", $dynamicAnchor: "string",
  $vocabulary: "any", $comment: "string", $defs: "schemaMap", definitions: "schemaMap",
  prefixItems: "schemaList", items: "schema", contains: "schema", additionalProperties: "schema", properties: "schemaMap",
  patternProperties: "schemaMap", dependentSchemas: "schemaMap", propertyNames: "schema", if: "schema", then: "schema",
  else: "schema", allOf: "schemaList", anyOf: "schemaList", oneOf: "schemaList", not: "schema",
  unevaluatedItems: "schema", unevaluatedProperties: "schema",
  type: "type", const: "any", enum: "list", multipleOf: "number", maximum: "number", exclusiveMaximum: "number",
  minimum: "number", exclusiveMinimum: "number", maxLength: "count", minLength: "count", pattern: "string",
  maxItems: "count", minItems: "count", uniqueItems: "boolean", maxContains: "count", minContains: "count",
  maxProperties: "count", minProperties: "count", required: "stringList", dependentRequired: "stringMap",
  title: "string", description: "string", default: "any", deprecated: "boolean", readOnly: "boolean",
  writeOnly: "boolean", examples: "list", format: "string",
  contentEncoding: "string", contentMediaType: "string", contentSchema: "schema",
};

const KEYWORDS = Object.keys(KEYWORD_SHAPES);
/** Annotations: a misspelt one changes no validation outcome, so it is not reported. */
const ANNOTATIONS = new Set(["title", "description", "examples", "deprecated", "readOnly", "writeOnly", "$comment", "format", "contentEncoding", "contentMediaType", "contentSchema"]);
const TYPO_TARGETS = KEYWORDS.filter((k) => !ANNOTATIONS.has(k));
/** Compared case-blind: `minlength` is `minLength` at distance 0. */
const LOWER_TARGETS = TYPO_TARGETS.map((k) => k.toLowerCase());

/** Older-draft / OpenAPI keywords and what 2020-12 says instead. */
const LEGACY_KEYWORDS: Readonly<Record<string, string>> = {
  dependencies: "split dependencies into dependentRequired (name lists) and dependentSchemas (schemas)",
  additionalItems: "use prefixItems for the tuple and items for the rest",
  nullable: 'allow null through type, e.g. type: [string, "null"]',
  id: "drop id ($id is not admitted either: refs stay inside one document)",
  $recursiveRef: "$recursiveRef is not supported; restructure with $defs and $ref",
  $recursiveAnchor: "$recursiveAnchor is not supported; restructure with $defs and $ref",
  divisibleBy: "rename divisibleBy to multipleOf",
  optional: "drop optional and list the required names in the parent's required",
  extends: "use allOf",
  disallow: "use not",
};

function fits(shape: Shape, v: unknown): boolean {
  switch (shape) {
    case "schema": return typeof v === "boolean" || isRecord(v);
    case "schemaMap": case "stringMap": return isRecord(v);
    case "schemaList": case "list": return Array.isArray(v);
    case "number": return typeof v === "number";
    case "count": return typeof v === "number" && Number.isInteger(v) && v >= 0;
    case "string": return typeof v === "string";
    case "stringList": return Array.isArray(v) && v.every((x) => typeof x === "string");
    case "boolean": return typeof v === "boolean";
    case "type": return typeof v === "string" || (Array.isArray(v) && v.every((x) => typeof x === "string"));
    case "any": return true;
  }
}

/** The keyword `key` most likely misspells, when its value has that keyword's shape. */
export function keywordTypo(key: string, value: unknown): string | undefined {
  if (Object.hasOwn(KEYWORD_SHAPES, key) || Object.hasOwn(LEGACY_KEYWORDS, key) || key.startsWith("x-")) return undefined;
  const lower = key.toLowerCase();
  const match = nearest(lower, LOWER_TARGETS, key.length <= 4 ? 1 : 2)?.match;
  if (match === undefined) return undefined;
  const keyword = TYPO_TARGETS[LOWER_TARGETS.indexOf(match)]!;
  return fits(KEYWORD_SHAPES[keyword]!, value) ? keyword : undefined;
}

/**
 * `where` names the schema in messages ("inputs_schema"); `base` is its path
 * inside the entry, so findings point at the key.
 */
export function schemaKeywordRule(schema: unknown, where: string, base: readonly (string | number)[], recipeName: string): RuleHit[] {
  const hits: RuleHit[] = [];
  const draft07 = declaresDraft07(schema);
  for (const w of draft07 ? schemaWarnings(schema) : []) {
    hits.push({ code: "schema_draft07", message: `recipe "${recipeName}": ${where}: ${w.message}`, at: [...base, "$schema"], severity: "warning" });
  }
  walkSchema(schema, (s, path: SchemaPath) => {
    hits.push(...patternHits(s, path, where, base, recipeName));
    for (const [key, value] of Object.entries(s)) {
      const at = [...base, ...path, key];
      const loc = `${where}${pointer(path)}`;
      if (draft07 && Object.hasOwn(DRAFT_07_REWRITES, key) && (key !== "items" || Array.isArray(value))) {
        // The validator refuses the schema for it (draft07.ts), with this reason.
        hits.push({
          code: "schema_draft07_rewrite",
          message: `recipe "${recipeName}": ${loc}/${key}: Draft-07 schema uses a keyword whose meaning changed: ${DRAFT_07_REWRITES[key]!}`,
          fix: DRAFT_07_REWRITES[key]!,
          at,
          atKey: true,
          severity: "error",
        });
        if (draft07Retired(key)) continue;
      }
      if (Object.hasOwn(LEGACY_KEYWORDS, key)) {
        // `id` is only legacy as a string; as anything else it is some author's own key.
        if (key === "id" && typeof value !== "string") continue;
        // Draft-4 boolean exclusiveMinimum is caught by the validator; `optional` only as a boolean.
        if (key === "optional" && typeof value !== "boolean") continue;
        hits.push({
          code: "schema_legacy_keyword",
          message: `recipe "${recipeName}": ${loc} uses "${key}", which Draft 2020-12 ignores`,
          fix: LEGACY_KEYWORDS[key]!,
          at,
          atKey: true,
        });
        continue;
      }
      const keyword = keywordTypo(key, value);
      if (keyword !== undefined) {
        hits.push({
          code: "schema_keyword_typo",
          message: `recipe "${recipeName}": ${loc} has unknown keyword "${key}" (did you mean "${keyword}"?); it constrains nothing`,
          fix: `rename "${key}" to "${keyword}"`,
          at,
          atKey: true,
        });
      }
    }
  });
  hits.push(...fanOutHits(schema, where, base, recipeName));
  return hits;
}

/** Keywords a Draft-07 rewrite hit already covers: their legacy warning would say it twice. */
function draft07Retired(key: string): boolean {
  return key === "additionalItems" || key === "dependencies";
}

/** Each `pattern` and `patternProperties` key the validator refuses, with its message. */
function patternHits(s: SchemaObject, path: SchemaPath, where: string, base: readonly (string | number)[], recipeName: string): RuleHit[] {
  const out: RuleHit[] = [];
  const refused = (source: string, at: (string | number)[], atKey: boolean): void => {
    const verdict = buildPattern(source);
    if (verdict.ok) return;
    out.push({
      code: "schema_pattern_refused",
      message: `recipe "${recipeName}": ${where}${pointer(at.slice(base.length))}: ${verdict.message}; the schema fails closed`,
      fix:
        verdict.code === "invalid_pattern"
          ? "write a valid ECMAScript regular expression (Unicode mode)"
          : "rewrite the pattern without backreferences or lookaround (match the parts separately, or list alternatives)",
      at,
      atKey,
      severity: "error",
    });
  };
  if (typeof s["pattern"] === "string") refused(s["pattern"], [...base, ...path, "pattern"], false);
  const props = s["patternProperties"];
  if (isRecord(props)) for (const key of Object.keys(props)) refused(key, [...base, ...path, "patternProperties", key], true);
  return out;
}

/** A fan-out past the validator's step budget, found without an instance (jsonschema/fan-out.ts). */
function fanOutHits(schema: unknown, where: string, base: readonly (string | number)[], recipeName: string): RuleHit[] {
  // A schema the validator refuses (its bounds included) is schema_fails_closed already,
  // and the walk below then stays within the bounds checkSchema enforced.
  if (checkSchema(schema) !== null) return [];
  const worst = worstFanOut(schema, DEFAULT_MAX_STEPS);
  if (worst.steps <= DEFAULT_MAX_STEPS) return [];
  const tokens = entryPath(schema, parsePointer(worst.pointer) ?? []);
  return [
    {
      code: "schema_steps_exceeded",
      message:
        `recipe "${recipeName}": ${where}${worst.pointer}: Validation needs more than ${DEFAULT_MAX_STEPS} evaluation steps ` +
        `(its $ref / allOf / anyOf / oneOf graph fans out past the budget at one value); a validation that reaches it fails with maxSteps`,
      fix: "stop the fan-out: refer to a shared definition once instead of in several branches that each refer on",
      at: [...base, ...tokens],
      severity: "error",
    },
  ];
}

/** Pointer tokens as an entry path: indices of lists as numbers, as the YAML locator reads them. */
function entryPath(root: unknown, tokens: readonly string[]): (string | number)[] {
  const out: (string | number)[] = [];
  let cur: unknown = root;
  for (const t of tokens) {
    if (Array.isArray(cur)) {
      out.push(Number(t));
      cur = cur[Number(t)];
    } else {
      out.push(t);
      cur = isRecord(cur) ? cur[t] : undefined;
    }
  }
  return out;
}

/** `/properties/a` style location for messages; empty for the root. */
export function pointer(path: SchemaPath): string {
  return path.length === 0 ? "" : `/${path.map((p) => String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;
}
