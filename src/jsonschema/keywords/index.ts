/**
 * Keyword compilers in evaluation order; unevaluated* are marked late and run last. Every
 * compiler honours KeywordContext.checkOnly (checkSchema): it makes all its fail / sub / ref /
 * regex calls as when compiling, then returns null before building its check.
 */
import type { KeywordCompiler } from "../context.js";
import { compileAllOf, compileAnyOf, compileConditional, compileNot, compileOneOf, compileRef } from "./combinators.js";
import { compileContains } from "./contains.js";
import { compileDependentRequired, compileDependentSchemas } from "./dependent.js";
import { compileConst, compileEnum } from "./enum-const.js";
import { compileItems, makeItemsCompiler } from "./items.js";
import { compileProperties, compilePropertyNames, makePropertiesCompiler } from "./properties.js";
import { compileRequired } from "./required.js";
import { compileType } from "./type.js";
import { compileUniqueItems } from "./unique-items.js";
import { compileArrayBounds, compileMultipleOf, compileNumericBounds, compileObjectBounds, compilePattern, compileStringLength } from "./validation.js";
import { compileUnevaluatedItems, compileUnevaluatedProperties } from "./unevaluated.js";

export interface KeywordEntry {
  /** The compiler runs only when the schema has at least one of these. */
  readonly keywords: readonly string[];
  readonly compile: KeywordCompiler;
}

export const KEYWORD_TABLE: readonly KeywordEntry[] = [
  { keywords: ["type"], compile: compileType },
  { keywords: ["enum"], compile: compileEnum },
  { keywords: ["const"], compile: compileConst },
  { keywords: ["required"], compile: compileRequired },
  { keywords: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"], compile: compileNumericBounds },
  { keywords: ["multipleOf"], compile: compileMultipleOf },
  { keywords: ["minLength", "maxLength"], compile: compileStringLength },
  { keywords: ["pattern"], compile: compilePattern },
  { keywords: ["minItems", "maxItems"], compile: compileArrayBounds },
  { keywords: ["uniqueItems"], compile: compileUniqueItems },
  { keywords: ["prefixItems", "items"], compile: compileItems },
  { keywords: ["contains", "minContains", "maxContains"], compile: compileContains },
  { keywords: ["minProperties", "maxProperties"], compile: compileObjectBounds },
  { keywords: ["properties", "patternProperties", "additionalProperties"], compile: compileProperties },
  { keywords: ["dependentRequired"], compile: compileDependentRequired },
  { keywords: ["propertyNames"], compile: compilePropertyNames },
  { keywords: ["$ref"], compile: compileRef },
  { keywords: ["allOf"], compile: compileAllOf },
  { keywords: ["anyOf"], compile: compileAnyOf },
  { keywords: ["oneOf"], compile: compileOneOf },
  { keywords: ["not"], compile: compileNot },
  { keywords: ["if", "then", "else"], compile: compileConditional },
  { keywords: ["dependentSchemas"], compile: compileDependentSchemas },
  { keywords: ["unevaluatedProperties"], compile: compileUnevaluatedProperties },
  { keywords: ["unevaluatedItems"], compile: compileUnevaluatedItems },
];

/**
 * Applicators that can evaluate properties or items of the same instance. Without any of
 * them, unevaluatedProperties / unevaluatedItems only see the schema's own
 * properties/patternProperties or prefixItems (and contains), so they can run statically
 * as the "rest" of those keywords instead of through annotation records.
 */
const IN_PLACE_APPLICATORS = ["$ref", "allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas"] as const;

/** Variants used for those static cases. */
export const STATIC_UNEVALUATED_PROPERTIES: KeywordCompiler = makePropertiesCompiler("unevaluatedProperties");
export const STATIC_UNEVALUATED_ITEMS: KeywordCompiler = makeItemsCompiler("unevaluatedItems");

// Bits of a plan: bit e for each KEYWORD_TABLE entry the schema switches on, then these.
const STATIC_PROPS_BIT = 1 << 28;
const STATIC_ITEMS_BIT = 1 << 29;
const IN_PLACE_BIT = 1 << 30;

/** keyword → the plan bits it sets (read-only after load). */
const KEYWORD_BITS: ReadonlyMap<string, number> = (() => {
  if (KEYWORD_TABLE.length > 28) throw new Error("KEYWORD_TABLE outgrew its bit mask");
  const map = new Map<string, number>();
  KEYWORD_TABLE.forEach((entry, i) => {
    for (const k of entry.keywords) map.set(k, (map.get(k) ?? 0) | (1 << i));
  });
  for (const k of IN_PLACE_APPLICATORS) map.set(k, (map.get(k) ?? 0) | IN_PLACE_BIT);
  return map;
})();

/**
 * Which compilers run for one schema object, as a bit mask (no allocation): one pass over
 * its own keys marks the table entries it uses, and whether unevaluatedProperties /
 * unevaluatedItems run statically. Read it with plannedCompiler.
 */
export function planKeywords(schema: Readonly<Record<string, unknown>>): number {
  let plan = 0;
  for (const k in schema) plan |= KEYWORD_BITS.get(k) ?? 0;
  if ((plan & IN_PLACE_BIT) === 0) {
    if (Object.hasOwn(schema, "unevaluatedProperties") && !Object.hasOwn(schema, "additionalProperties")) plan |= STATIC_PROPS_BIT;
    if (Object.hasOwn(schema, "unevaluatedItems") && !Object.hasOwn(schema, "items") && !Object.hasOwn(schema, "contains")) {
      plan |= STATIC_ITEMS_BIT;
    }
  }
  return plan;
}

/** The compiler to run for table entry `e` under `plan`, or null to skip the entry. */
export function plannedCompiler(plan: number, e: number): KeywordCompiler | null {
  const compile = KEYWORD_TABLE[e]!.compile;
  // The static variants also run when only the unevaluated keyword is present.
  if ((plan & STATIC_PROPS_BIT) !== 0) {
    if (compile === compileProperties) return STATIC_UNEVALUATED_PROPERTIES;
    if (compile === compileUnevaluatedProperties) return null;
  }
  if ((plan & STATIC_ITEMS_BIT) !== 0) {
    if (compile === compileItems) return STATIC_UNEVALUATED_ITEMS;
    if (compile === compileUnevaluatedItems) return null;
  }
  return (plan & (1 << e)) === 0 ? null : compile;
}
