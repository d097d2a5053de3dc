/** `recipe` action=search: the same engine as recipes__search, over public and private recipes. */
import type { CatalogSnapshot } from "../../recipes/catalog.js";
import type { RecipeToolContext } from "./context.js";
import { ok, type Envelope } from "./envelope.js";
import { thenMaybe, type MaybePromise } from "./maybe-promise.js";
import { summarize } from "./playbook-view.js";

export type VisibilityFilter = "all" | "public" | "private";

export const DEFAULT_SEARCH_LIMIT = 5;

export function recipeSearch(
  fields: Readonly<Record<string, unknown>>,
  snapshot: CatalogSnapshot,
  context: RecipeToolContext,
): MaybePromise<Envelope> {
  const query = fields.query as string;
  const visibility = (fields.visibility as VisibilityFilter | undefined) ?? "all";
  // The seed types limit as a number, not an integer: 2.5 asks for 2.
  const limit = Math.floor((fields.limit as number | undefined) ?? DEFAULT_SEARCH_LIMIT);
  return thenMaybe(context.library.search.search({ text: query, limit, visibility }), (answer) => {
    // The index may be one publish ahead of the snapshot this request holds:
    // answer with that snapshot's version of each hit, or drop it.
    const recipes = answer.hits.flatMap((hit) => {
      const recipe = snapshot.recipes.get(hit.recipe.recipeId);
      return recipe === undefined ? [] : [summarize(recipe, hit.score)];
    });
    return ok(`${recipes.length} recipe(s) found`, { recipes, mode: answer.mode });
  });
}
