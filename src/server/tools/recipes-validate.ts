import { objectSchema, READ_ONLY } from "./define.js";
import { fail, ok } from "./envelope.js";
import { firstWindow, recipeTool, recordUse } from "./context.js";
import { checkAgainst, STRUCTURED_RECIPE_FIELDS, withRecipeInputs } from "./structured.js";

export const recipesValidate = recipeTool({
  name: "recipes__validate",
  title: "Validate recipe inputs",
  description:
    "Validate `inputs` against a structured recipe's inputs_schema (Draft 2020-12) without applying it. " +
    "Pass `output` (the observed tool result) to check it against the recipe's output_contract after running the steps.",
  inputSchema: objectSchema(
    {
      ...STRUCTURED_RECIPE_FIELDS,
      inputs: { description: "Inputs to check (usually an object)." },
      output: { description: "Observed result to check against output_contract." },
    },
    ["skill", "recipe", "inputs"],
  ),
  annotations: READ_ONLY,
  handler: (args, context) =>
    withRecipeInputs(context, args, (recipe, errors) => {
      const result: Record<string, unknown> = {
        valid: errors.length === 0,
        errors,
        recipe: recipe.name,
        skill: recipe.skill,
      };
      if (Object.hasOwn(args, "output")) {
        if (recipe.outputValidator === null) {
          result.output_valid = null;
          result.output_errors = [];
          result.output_note =
            typeof recipe.outputContract === "string"
              ? "output_contract is a legacy label (documentation only); nothing to validate"
              : "recipe has no output_contract";
        } else {
          const output = checkAgainst(recipe.outputValidator, args.output, "output");
          if (!output.ok) {
            return fail("invalid_input", "Recipe output contract schema is invalid", { errors: output.errors, skill: recipe.skill, recipe: recipe.name });
          }
          result.output_valid = output.errors.length === 0;
          result.output_errors = output.errors;
        }
      }
      if (firstWindow(args)) recordUse(context, context.library, recipe.recipeId, result.valid && result.output_valid !== false ? "validate_pass" : "validate_fail");
      const message = result.valid ? "Inputs are valid" : `Inputs are invalid (${errors.length} error(s))`;
      return ok(message, result);
    }),
});
