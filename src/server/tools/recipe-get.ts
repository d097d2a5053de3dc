/** `recipe` action=get: one recipe as a playbook, with its usage. */
import type { CatalogSnapshot } from "../../recipes/catalog/catalog.js";
import type { Recipe } from "../../recipes/types.js";
import { recordUse, sourceOf, type RecipeToolContext } from "./context.js";
import { fail, ok, type Envelope } from "./envelope.js";
import { playbookView } from "./playbook-view.js";
import type { ChildFields } from "./recipe-schemas.js";
import type { VisibilityFilter } from "./recipe-search.js";
import { closeNames, notFoundMessage } from "./lookup.js";

export function recipeGet(
  fields: ChildFields<"get">,
  snapshot: CatalogSnapshot,
  context: RecipeToolContext,
  continued = false,
): Envelope {
  const { recipeId, visibility = "all" } = fields;
  // Another user's playbook is simply not in this caller's source: not_found, suggestions from their own.
  const source = sourceOf(context, snapshot, recipeId);
  const recipe = findVisible(source.snapshot, recipeId, visibility);
  if (recipe === undefined) return notFound(source.snapshot, recipeId, visibility);
  // In memory only; the usage store writes its counts in batches, off this request's path.
  // A later window of the same result is not another use, and must not change
  // the text being paged (windows of one result concatenate to the whole).
  if (!continued) recordUse(context, source.library, recipe.recipeId, "get");
  return ok(`Recipe ${recipe.recipeId}`, playbookView(recipe, source.library.usage.get(recipe.recipeId)));
}

function findVisible(snapshot: CatalogSnapshot, recipeId: string, visibility: VisibilityFilter): Recipe | undefined {
  const recipe = snapshot.recipes.get(recipeId);
  if (recipe === undefined) return undefined;
  return visibility === "all" || recipe.visibility === visibility ? recipe : undefined;
}

/** not_found with close recipeIds of the requested visibility. */
export function notFound(snapshot: CatalogSnapshot, recipeId: string, visibility: VisibilityFilter): Envelope {
  const candidates: string[] = [];
  for (const recipe of snapshot.recipes.values()) {
    if (visibility === "all" || recipe.visibility === visibility) candidates.push(recipe.recipeId);
  }
  const suggestions = closeNames(recipeId, candidates);
  const kind = visibility === "all" ? "recipe" : `${visibility} recipe`;
  return fail("not_found", notFoundMessage(kind, recipeId, suggestions), { recipeId: clip(recipeId), visibility, suggestions });
}

/** Ids come from the caller; echo a bounded part. */
function clip(value: string): string {
  return value.length > 200 ? `${value.slice(0, 197)}...` : value;
}
