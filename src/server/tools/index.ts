import type { ToolDefinition } from "./define.js";
import type { RecipeToolContext } from "./context.js";
import { recipesApply } from "./recipes-apply.js";
import { recipesGet } from "./recipes-get.js";
import { createRecipesList } from "./recipes-list.js";
import { recipesSearch } from "./recipes-search.js";
import { recipesValidate } from "./recipes-validate.js";
import { createRecipeTool, type RecipeToolOptions } from "./recipe.js";
import { recipesRun } from "./recipes-run.js";

/** The five dcc-mcp-core compatible tools (what `registerRecipesTools` adds). */
export function coreRecipeToolDefinitions(): ToolDefinition<RecipeToolContext>[] {
  return [createRecipesList(), recipesSearch, recipesGet, recipesValidate, recipesApply];
}

/** Every tool the daemon serves, in the order tools/list shows them. */
export function recipeToolDefinitions(options: RecipeToolOptions = {}): ToolDefinition<RecipeToolContext>[] {
  return [...coreRecipeToolDefinitions(), createRecipeTool(options)];
}

/** The tools of a DCC that can run recipes (a `--dcc-endpoint`): recipes__run beside the rest. */
export function runnableToolDefinitions(options: RecipeToolOptions = {}): ToolDefinition<RecipeToolContext>[] {
  return [...coreRecipeToolDefinitions(), recipesRun, createRecipeTool(options)];
}
