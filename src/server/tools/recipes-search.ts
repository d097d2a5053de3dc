import { objectSchema, READ_ONLY, type ToolDefinition } from "./define.js";
import type { CatalogSnapshot } from "../../recipes/catalog.js";
import type { SearchAnswer } from "../../recipes/search/types.js";
import { ok, type Envelope } from "./envelope.js";
import { withSnapshot, type RecipeToolContext } from "./context.js";
import { thenMaybe } from "./maybe-promise.js";

export const recipesSearch: ToolDefinition<RecipeToolContext> = {
  name: "recipes__search",
  title: "Search recipes",
  description:
    "Search public recipes by natural-language query (ranked: lexical BM25, plus semantic search once " +
    "it has warmed up; `mode` says which answered). Filter by `dcc` (recipes for that DCC or `any`) and `skill`. " +
    "Without a query, lists recipes matching the filters.",
  inputSchema: objectSchema({
    query: { type: "string", maxLength: 2000 },
    dcc: { type: "string", minLength: 1, maxLength: 64 },
    skill: { type: "string", minLength: 1, maxLength: 200 },
    limit: { type: "integer", minimum: 1, maximum: 50, default: 10 },
  }),
  annotations: READ_ONLY,
  handler: (args, context) =>
    withSnapshot(context, (snapshot) => {
      const query = (args.query as string | undefined) ?? "";
      const searching = context.library.search.search({
        text: query,
        limit: (args.limit as number | undefined) ?? 10,
        visibility: "public",
        ...(args.dcc !== undefined ? { dcc: args.dcc as string } : {}),
        ...(args.skill !== undefined ? { skill: args.skill as string } : {}),
      });
      return thenMaybe(searching, (answer) => answerEnvelope(snapshot, query, answer));
    }),
};

/**
 * Hits are resolved against this request's snapshot: a reload that lands
 * mid-search must not mix a newer recipe into an older revision's answer.
 */
function answerEnvelope(snapshot: CatalogSnapshot, query: string, answer: SearchAnswer): Envelope {
  // Keys in sorted order, as the envelope's (see envelope.ts).
  const recipes: Array<Record<string, unknown>> = [];
  for (const { recipe: hit, score } of answer.hits) {
    const recipe = snapshot.recipes.get(hit.recipeId);
    if (recipe === undefined) continue;
    recipes.push({
      dcc: recipe.dcc,
      description: recipe.description,
      format: recipe.format,
      name: recipe.name,
      recipeId: recipe.recipeId,
      score,
      skill: recipe.skill,
    });
  }
  return ok(`${recipes.length} recipe(s) found`, { mode: answer.mode, query, recipes });
}
