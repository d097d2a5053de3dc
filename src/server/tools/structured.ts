import { renderErrors } from "../../jsonschema/index.js";
import type { CompileResult } from "../../jsonschema/types.js";
import type { CatalogSnapshot } from "../../recipes/catalog/catalog.js";
import type { YamlRecipe } from "../../recipes/types.js";
import { withSnapshot, type RecipeToolContext } from "./context.js";
import { fail, type Envelope } from "./envelope.js";
import { findPublicRecipe } from "./lookup.js";
import type { MaybePromise } from "./define.js";

/** The fields validate and apply name a structured recipe by. */
export const STRUCTURED_RECIPE_FIELDS = {
  skill: { type: "string", minLength: 1, maxLength: 200 },
  recipe: { type: "string", minLength: 1, maxLength: 500 },
} as const;

type SchemaCheck = { readonly ok: true; readonly errors: string[] } | { readonly ok: false; readonly errors: string[] };

/** dcc-mcp-core's rendering: path-oriented strings, no input values. */
export function checkAgainst(compiled: CompileResult, instance: unknown, what: string): SchemaCheck {
  if (!compiled.ok) return { ok: false, errors: [`$: Recipe ${what} schema is invalid`] };
  const result = compiled.validator.validate(instance);
  return { ok: true, errors: result.valid ? [] : renderErrors(result.errors, what === "output" ? "output field" : "input") };
}

/**
 * Runs `body` with the structured recipe `args` names and the rendered errors
 * of `args.inputs` against its inputs_schema (empty when valid). A missing
 * recipe answers not_found, a Markdown anchor invalid_input; so does a schema
 * that fails closed, which is logged (the reason is in the load diagnostics).
 */
export function withRecipeInputs(
  context: RecipeToolContext,
  args: { readonly skill: string; readonly recipe: string; readonly inputs: unknown },
  body: (recipe: YamlRecipe, errors: string[], snapshot: CatalogSnapshot) => Envelope,
): MaybePromise<Envelope> {
  return withSnapshot(context, (snapshot) => {
    const found = findPublicRecipe(snapshot, args.skill, args.recipe);
    if (!found.ok) return found.envelope;
    const recipe = found.value;
    // validate/apply need a structured YAML recipe; Markdown anchors are prose.
    if (recipe.format !== "yaml") {
      const message = `Recipe "${recipe.recipeId}" is a Markdown anchor; this tool requires a structured YAML recipe`;
      return fail("invalid_input", message, { skill: args.skill, recipe: args.recipe });
    }
    const check = checkAgainst(recipe.inputValidator, args.inputs, "input");
    if (check.ok) return body(recipe, check.errors, snapshot);
    context.logger.warn({ recipeId: recipe.recipeId }, "inputs_schema fails closed");
    return fail("invalid_input", "Recipe input schema is invalid", { errors: check.errors, skill: recipe.skill, recipe: recipe.name });
  });
}
