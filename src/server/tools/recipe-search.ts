/** `recipe` action=search: the same engine as recipes__search, over public and private recipes. */
import type { CatalogSnapshot } from "../../recipes/catalog/catalog.js";
import type { SearchHit } from "../../recipes/search/types.js";
import type { RecipeToolContext } from "./context.js";
import { ok, type Envelope } from "./envelope.js";
import { thenMaybe, type MaybePromise } from "./define.js";
import { summarize, type RecipeSummary } from "./playbook-view.js";
import type { ChildFields } from "./recipe-schemas.js";

export type VisibilityFilter = "all" | "public" | "private";

const DEFAULT_SEARCH_LIMIT = 5;

export function recipeSearch(
  fields: ChildFields<"search">,
  snapshot: CatalogSnapshot,
  context: RecipeToolContext,
): MaybePromise<Envelope> {
  const { query, visibility = "all" } = fields;
  // The seed types limit as a number, not an integer: 2.5 asks for 2.
  const limit = Math.floor(fields.limit ?? DEFAULT_SEARCH_LIMIT);
  const caller = context.caller;
  if (caller === undefined) {
    return thenMaybe(snapshot.search({ text: query, limit, visibility }), (answer) => found(summaries(answer.hits), answer.mode));
  }
  // A users file: public hits from the DCC's library, private ones from the caller's own playbooks only.
  const own = caller.playbooks.current();
  const publicAnswer = visibility === "private" ? null : snapshot.search({ text: query, limit, visibility: "public" });
  const ownAnswer = visibility === "public" || own === null ? null : own.search({ text: query, limit, visibility: "private" });
  return thenMaybe(publicAnswer, (pub) =>
    thenMaybe(ownAnswer, (mine) => {
      const merged = mergeByScore([summaries(pub?.hits ?? []), summaries(mine?.hits ?? [])], limit);
      return found(merged, pub?.mode ?? mine?.mode ?? "lexical");
    }),
  );
}

function found(recipes: RecipeSummary[], mode: string): Envelope {
  return ok(`${recipes.length} recipe(s) found`, { recipes, mode });
}

/** Hits already resolved against their snapshot (recipes/catalog/catalog.ts), as summaries. */
export function summaries(hits: readonly SearchHit[]): RecipeSummary[] {
  return hits.map((hit) => summarize(hit.recipe, hit.score));
}

/** Two ranked lists as one, best score first (ties: the earlier list), at most `limit`. */
export function mergeByScore(lists: readonly RecipeSummary[][], limit: number): RecipeSummary[] {
  return lists
    .flat()
    .map((summary, order) => ({ summary, order }))
    .sort((a, b) => b.summary.score - a.summary.score || a.order - b.order)
    .slice(0, limit)
    .map((entry) => entry.summary);
}
