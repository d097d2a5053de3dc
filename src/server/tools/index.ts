import type { ToolDefinition } from "./define.js";
import type { RecipeToolContext } from "./context.js";
import { recipesApply } from "./recipes-apply.js";
import { recipesGet } from "./recipes-get.js";
import { recipesList } from "./recipes-list.js";
import { recipesSearch } from "./recipes-search.js";
import { recipesValidate } from "./recipes-validate.js";

/** Every tool the daemon serves, in the order tools/list shows them. */
export function recipeToolDefinitions(): ToolDefinition<RecipeToolContext>[] {
  return [recipesList, recipesSearch, recipesGet, recipesValidate, recipesApply];
}
