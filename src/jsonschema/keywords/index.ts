/**
 * Keyword compilers in evaluation order; unevaluated* are marked late and run last. Every
 * compiler honours KeywordContext.checkOnly (checkSchema): it makes all its fail / sub / ref /
 * regex calls as when compiling, then returns null before building its check.
 */
import type { KeywordCompiler } from "../context.js";
import { compileArrayBounds } from "./array-bounds.js";
import { compileAllOf, compileAnyOf, compileNot, compileOneOf } from "./combinators.js";
import { compileConditional } from "./conditional.js";
import { compileContains } from "./contains.js";
import { compileDependentRequired, compileDependentSchemas } from "./dependent.js";
import { compileConst, compileEnum } from "./enum-const.js";
import { compileItems, makeItemsCompiler } from "./items.js";
import { compileMultipleOf } from "./multiple-of.js";
import { compileNumericBounds } from "./numeric.js";
import { compileObjectBounds } from "./object-bounds.js";
import { compilePattern } from "./pattern.js";
import { compileProperties, makePropertiesCompiler } from "./properties.js";
import { compilePropertyNames } from "./property-names.js";
import { compileRef } from "./ref.js";
import { compileRequired } from "./required.js";
import { compileStringLength } from "./string-length.js";
import { compileType } from "./type.js";
import { compileUniqueItems } from "./unique-items.js";
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
export const IN_PLACE_APPLICATORS = ["$ref", "allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas"] as const;

/** Variants used for those static cases. */
export const STATIC_UNEVALUATED_PROPERTIES: KeywordCompiler = makePropertiesCompiler("unevaluatedProperties");
export const STATIC_UNEVALUATED_ITEMS: KeywordCompiler = makeItemsCompiler("unevaluatedItems");
