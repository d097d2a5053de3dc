/** Keyword compilers in evaluation order; unevaluated* are marked late and run last. */
import type { KeywordCompiler } from "../context.js";
import { compileArrayBounds } from "./array-bounds.js";
import { compileAllOf, compileAnyOf, compileNot, compileOneOf } from "./combinators.js";
import { compileConditional } from "./conditional.js";
import { compileContains } from "./contains.js";
import { compileDependentRequired, compileDependentSchemas } from "./dependent.js";
import { compileConst, compileEnum } from "./enum-const.js";
import { compileItems } from "./items.js";
import { compileMultipleOf } from "./multiple-of.js";
import { compileNumericBounds } from "./numeric.js";
import { compileObjectBounds } from "./object-bounds.js";
import { compilePattern } from "./pattern.js";
import { compileProperties } from "./properties.js";
import { compilePropertyNames } from "./property-names.js";
import { compileRef } from "./ref.js";
import { compileRequired } from "./required.js";
import { compileStringLength } from "./string-length.js";
import { compileType } from "./type.js";
import { compileUniqueItems } from "./unique-items.js";
import { compileUnevaluatedItems, compileUnevaluatedProperties } from "./unevaluated.js";

export const KEYWORD_COMPILERS: readonly KeywordCompiler[] = [
  compileType,
  compileEnum,
  compileConst,
  compileRequired,
  compileNumericBounds,
  compileMultipleOf,
  compileStringLength,
  compilePattern,
  compileArrayBounds,
  compileUniqueItems,
  compileItems,
  compileContains,
  compileObjectBounds,
  compileProperties,
  compileDependentRequired,
  compilePropertyNames,
  compileRef,
  compileAllOf,
  compileAnyOf,
  compileOneOf,
  compileNot,
  compileConditional,
  compileDependentSchemas,
  compileUnevaluatedProperties,
  compileUnevaluatedItems,
];
