import { objectSchema, READ_ONLY, thenMaybe } from "./define.js";
import type { ResolvedAnswer } from "../../recipes/catalog/catalog.js";
import { LAYER_FILTER } from "./recipe-schemas.js";
import { ok, type Envelope } from "./envelope.js";
import { recipeTool, withSnapshot } from "./context.js";

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
      const searching = snapshot.search({
        text: query,
        limit,
        visibility: "public",
        ...(dcc !== undefined ? { dcc } : {}),
        ...(skill !== undefined ? { skill } : {}),
        ...(layer !== undefined ? { layer } : {}),
      });
      return thenMaybe(searching, (answer) => answerEnvelope(query, answer));
    }),
});

/** The answer as the tool gives it; hits come resolved and ranked by the snapshot (recipes/catalog/catalog.ts). */
function answerEnvelope(query: string, answer: ResolvedAnswer): Envelope {
  // Keys in sorted order, as the envelope's (see envelope.ts).
  const recipes = answer.hits.map(({ recipe, score }) => ({
    dcc: recipe.dcc,
    description: recipe.description,
    format: recipe.format,
    layer: recipe.layer ?? null,
    name: recipe.name,
    recipeId: recipe.recipeId,
    score,
    skill: recipe.skill,
  }));
  return ok(`${recipes.length} recipe(s) found`, { mode: answer.mode, query, recipes }, answer.revision);
}
