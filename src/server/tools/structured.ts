import { renderErrors } from "../../jsonschema/index.js";
import type { CompileResult } from "../../jsonschema/types.js";
import type { CatalogSnapshot } from "../../recipes/catalog.js";
import type { YamlRecipe } from "../../recipes/types.js";
import type { RecipeToolContext } from "./context.js";
import { fail } from "./envelope.js";
import { findPublicRecipe, type Lookup } from "./lookup.js";

/** validate/apply need a structured YAML recipe; Markdown anchors are prose. */
export function findStructuredRecipe(snapshot: CatalogSnapshot, skill: string, name: string): Lookup<YamlRecipe> {
  const found = findPublicRecipe(snapshot, skill, name);
  if (!found.ok) return found;
  if (found.value.format !== "yaml") {
    return {
      ok: false,
      envelope: fail(
        "invalid_input",
        `Recipe "${found.value.recipeId}" is a Markdown anchor; this tool requires a structured YAML recipe`,
        { skill, recipe: name },
      ),
    };
  }
  return { ok: true, value: found.value };
}

export type SchemaCheck = { readonly ok: true; readonly errors: string[] } | { readonly ok: false; readonly errors: string[] };

/** dcc-mcp-core's rendering: path-oriented strings, no input values. */
export function checkAgainst(compiled: CompileResult, instance: unknown, what: string): SchemaCheck {
  if (!compiled.ok) return { ok: false, errors: [`$: Recipe ${what} schema is invalid`] };
  const result = compiled.validator.validate(instance);
  return { ok: true, errors: result.valid ? [] : renderErrors(result.errors, what === "output" ? "output field" : "input") };
}

/**
 * Checks inputs against a structured recipe's inputs_schema: the rendered
 * errors (empty when valid), or the invalid_input answer for a schema that
 * fails closed, which is logged (the reason is in the load diagnostics).
 */
export function checkRecipeInputs(context: RecipeToolContext, recipe: YamlRecipe, inputs: unknown): Lookup<string[]> {
  const check = checkAgainst(recipe.inputValidator, inputs, "input");
  if (check.ok) return { ok: true, value: check.errors };
  context.logger.warn({ recipeId: recipe.recipeId }, "inputs_schema fails closed");
  return {
    ok: false,
    envelope: fail("invalid_input", "Recipe input schema is invalid", { errors: check.errors, skill: recipe.skill, recipe: recipe.name }),
  };
}
