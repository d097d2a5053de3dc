import { objectSchema, READ_ONLY } from "./define.js";
import type { CatalogSnapshot } from "../../recipes/catalog/catalog.js";
import type { SearchAnswer, SearchHit } from "../../recipes/search/types.js";
import { layerRank } from "../../recipes/packs/skill-search.js";
import { LAYER_FILTER } from "./recipe-schemas.js";
import { ok, type Envelope } from "./envelope.js";
import { recipeTool, withSnapshot } from "./context.js";
import { thenMaybe } from "./maybe-promise.js";

export const recipesSearch = recipeTool({
  name: "recipes__search",
  title: "Search recipes",
  description:
    "Search public recipes by natural-language query (ranked: lexical BM25, plus semantic search once " +
    "it has warmed up; `mode` says which answered). Filter by `dcc` (recipes for that DCC or `any`), `skill` and " +
    "`layer` (the skill's metadata.dcc-mcp.layer; equal scores rank domain skills first, as dcc-mcp-core). " +
    "Without a query, lists recipes matching the filters.",
  inputSchema: objectSchema({
    query: { type: "string", maxLength: 2000 },
    dcc: { type: "string", minLength: 1, maxLength: 64 },
    skill: { type: "string", minLength: 1, maxLength: 200 },
    layer: LAYER_FILTER,
    limit: { type: "integer", minimum: 1, maximum: 50, default: 10 },
  }),
  annotations: READ_ONLY,
  handler: (args, context) =>
    withSnapshot(context, (snapshot) => {
      const { query = "", limit = 10, dcc, skill, layer } = args;
      const searching = context.library.search.search({
        text: query,
        limit,
        visibility: "public",
        ...(dcc !== undefined ? { dcc } : {}),
        ...(skill !== undefined ? { skill } : {}),
        ...(layer !== undefined ? { layer } : {}),
      });
      return thenMaybe(searching, (answer) => answerEnvelope(snapshot, query, answer));
    }),
});

/**
 * Hits are resolved against this request's snapshot: a reload that lands
 * mid-search must not mix a newer recipe into an older revision's answer.
 */
function answerEnvelope(snapshot: CatalogSnapshot, query: string, answer: SearchAnswer): Envelope {
  // Keys in sorted order, as the envelope's (see envelope.ts).
  const recipes: Array<Record<string, unknown>> = [];
  // Browsing (no query) keeps its recipeId order: there is no ranking to break ties in.
  for (const { recipe: hit, score } of query.trim() === "" ? answer.hits : byScoreThenLayer(answer.hits)) {
    const recipe = snapshot.recipes.get(hit.recipeId);
    if (recipe === undefined) continue;
    recipes.push({
      dcc: recipe.dcc,
      description: recipe.description,
      format: recipe.format,
      layer: recipe.layer ?? null,
      name: recipe.name,
      recipeId: recipe.recipeId,
      score,
      skill: recipe.skill,
    });
  }
  return ok(`${recipes.length} recipe(s) found`, { mode: answer.mode, query, recipes });
}

/**
 * Equal scores rank by layer as dcc-mcp-core's rank policy orders layers
 * (domain, infrastructure, thin-harness, example); otherwise the engine's
 * order stands (a stable sort).
 */
function byScoreThenLayer(hits: readonly SearchHit[]): readonly SearchHit[] {
  if (!hits.some((h) => h.recipe.layer !== undefined)) return hits;
  return [...hits].sort((a, b) => b.score - a.score || layerRank(a.recipe.layer) - layerRank(b.recipe.layer));
}
