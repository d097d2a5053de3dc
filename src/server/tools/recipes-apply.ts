import { materializeSteps } from "../../recipes/api/materialize.js";
import { objectSchema, READ_ONLY } from "./define.js";
import { fail, ok } from "./envelope.js";
import { firstWindow, recipeTool, recordUse } from "./context.js";
import { STRUCTURED_RECIPE_FIELDS, withRecipeInputs } from "./structured.js";
import { provenanceOf } from "../../recipes/api/entry-view.js";

export const recipesApply = recipeTool({
  name: "recipes__apply",
  title: "Apply a recipe",
  description:
    "Validate `inputs` against a structured recipe and return its steps verbatim (placeholders such as " +
    "${name} are NOT substituted and defaults NOT applied), with the output_contract to check the result against. " +
    "Pass `materialize: true` to also get `materialized_steps` with placeholders resolved from inputs or " +
    "schema defaults; a placeholder of an optional input you left out stays verbatim and is listed in " +
    "`unresolved_placeholders` (with its step and field), and `skippable_steps` names the `optional: true` steps " +
    "that hold one. Execute the steps yourself, in order.",
  inputSchema: objectSchema(
    {
      ...STRUCTURED_RECIPE_FIELDS,
      inputs: { description: "Inputs for the recipe's inputs_schema." },
      target: { description: "Optional target (scene, object, host) echoed back for the caller." },
      materialize: { type: "boolean", default: false },
    },
    ["skill", "recipe", "inputs"],
  ),
  // Apply plans; it does not touch the DCC, so it is read-only here.
  annotations: READ_ONLY,
  handler: (args, context) =>
    withRecipeInputs(context, args, (recipe, errors, snapshot) => {
      if (errors.length > 0) {
        return fail("invalid_input", `Invalid inputs for ${recipe.recipeId} (${errors.length} error(s))`, {
          errors,
          skill: recipe.skill,
          recipe: recipe.name,
        });
      }
      const result: Record<string, unknown> = {
        skill: recipe.skill,
        recipe: recipe.name,
        inputs: args.inputs,
        target: args.target ?? null,
        steps: recipe.steps,
        output_contract: recipe.outputContract ?? null,
        // Core's provenance (format, skill, path) plus ours.
        provenance: {
          ...provenanceOf(recipe),
          recipeId: recipe.recipeId,
          file: recipe.file,
          dcc: recipe.dcc,
          catalog_revision: snapshot.revision,
        },
      };
      if (args.materialize === true) {
        const materialized = materializeSteps(recipe.steps, args.inputs, recipe.inputsSchema);
        if (!materialized.ok) {
          const names = [...new Set(materialized.unresolved.map((u) => u.placeholder))];
          return fail("invalid_input", `Unresolvable placeholder(s): ${names.join(", ")}`, {
            errors: materialized.unresolved.map((u) => `Unresolvable placeholder ${u.placeholder} in steps[${u.step}].${u.field}: no input of that name is declared or given`),
            unresolved: materialized.unresolved,
          });
        }
        result.materialized_steps = materialized.steps;
        // Kept verbatim, with where: optional inputs left out, and any `${` the grammar cannot read.
        result.unresolved_placeholders = materialized.unresolved;
        result.skippable_steps = materialized.skippable;
      }
      if (firstWindow(args)) recordUse(context, context.library, recipe.recipeId, "apply");
      const kept = Array.isArray(result.unresolved_placeholders) ? result.unresolved_placeholders.length : 0;
      const note = kept > 0 ? `; ${kept} placeholder(s) kept verbatim (see unresolved_placeholders)` : "";
      return ok(`Recipe ${recipe.recipeId} applied: ${recipe.steps.length} step(s)${note}`, result);
    }),
});
