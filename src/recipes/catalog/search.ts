/**
 * The one search service behind recipes__search, the `recipe` tool's search
 * and the catalog page: a query against a library's index, its hits resolved
 * against the snapshot the caller holds (the index may be one publish ahead
 * of it: a newer recipe never enters an older revision's answer), ranked by
 * one rule for every caller: score, then on equal scores the layer order of
 * dcc-mcp-core's rank policy (domain, infrastructure, thin-harness,
 * example), then the engine's order. Browsing (no query) keeps recipeId order.
 */
import type { SearchEngine } from "../search/engine.js";
import type { SearchAnswer, SearchHit, SearchMode, SearchQuery } from "../search/types.js";
import type { CatalogSnapshot } from "./catalog.js";

export interface ResolvedAnswer {
  readonly mode: SearchMode;
  /** The revision of the snapshot every hit was resolved against. */
  readonly revision: number;
  /** Each hit's recipe is the snapshot's own. */
  readonly hits: readonly SearchHit[];
}

/** Synchronous when the engine answers synchronously (a lexical answer). */
export function searchSnapshot(engine: SearchEngine, snapshot: CatalogSnapshot, query: SearchQuery): ResolvedAnswer | Promise<ResolvedAnswer> {
  const answer = engine.search(query);
  const browsing = query.text.trim() === "";
  return answer instanceof Promise ? answer.then((settled) => resolve(settled, snapshot, browsing)) : resolve(answer, snapshot, browsing);
}

function resolve(answer: SearchAnswer, snapshot: CatalogSnapshot, browsing: boolean): ResolvedAnswer {
  const hits: SearchHit[] = [];
  for (const hit of answer.hits) {
    const recipe = snapshot.recipes.get(hit.recipe.recipeId);
    if (recipe !== undefined) hits.push(recipe === hit.recipe ? hit : { recipe, score: hit.score });
  }
  return { mode: answer.mode, revision: snapshot.revision, hits: browsing ? hits : byScoreThenLayer(hits) };
}

function byScoreThenLayer(hits: SearchHit[]): readonly SearchHit[] {
  if (!hits.some((h) => h.recipe.layer !== undefined)) return hits;
  return hits.sort((a, b) => b.score - a.score || layerRank(a.recipe.layer) - layerRank(b.recipe.layer));
}

/** Ranking order of layers on equal scores, as dcc-mcp-core's rank policy orders them (domain first, examples last). */
function layerRank(layer: string | undefined): number {
  switch (layer) {
    case "infrastructure":
      return 1;
    case "thin-harness":
      return 2;
    case "example":
      return 3;
    default:
      return 0;
  }
}
