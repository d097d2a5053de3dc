import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SEARCH_FIELDS, toDocument } from "../../src/recipes/search/document.js";
import { lexicalTerms } from "../../src/recipes/search/lexical/engine.js";
import type { Recipe } from "../../src/recipes/types.js";

export interface LabelledQuery {
  readonly kind: "keyword" | "paraphrase";
  readonly q: string;
  readonly relevant: readonly string[];
}

export function loadQueries(): LabelledQuery[] {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), "queries.json");
  return (JSON.parse(readFileSync(file, "utf8")) as { queries: LabelledQuery[] }).queries;
}

/**
 * Problems with the labels themselves: unknown targets, and paraphrases that
 * share a content word (after the index's own tokenizing and stemming) with
 * any field of a target.
 */
export function checkQueries(queries: readonly LabelledQuery[], recipes: readonly Recipe[]): string[] {
  const byId = new Map(recipes.map((r) => [r.recipeId, r]));
  const problems: string[] = [];
  for (const query of queries) {
    for (const id of query.relevant) {
      const recipe = byId.get(id);
      if (!recipe) {
        problems.push(`${JSON.stringify(query.q)}: unknown recipe ${id}`);
        continue;
      }
      if (query.kind !== "paraphrase") continue;
      const doc = toDocument(recipe);
      const words = new Set(lexicalTerms(SEARCH_FIELDS.map((f) => doc[f]).join(" ")));
      // lexicalTerms caps the count; the full vocabulary is needed here.
      for (const w of SEARCH_FIELDS.flatMap((f) => lexicalTermsAll(doc[f]))) words.add(w);
      const shared = lexicalTerms(query.q).filter((t) => words.has(t));
      if (shared.length > 0) problems.push(`${JSON.stringify(query.q)} shares ${shared.join(", ")} with ${id}`);
    }
  }
  return problems;
}

function lexicalTermsAll(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 2000) out.push(...lexicalTerms(text.slice(i, i + 2200)));
  return out;
}
