/**
 * Relevance evaluation: MRR and recall@5 of the substring baseline
 * (dcc-mcp-core's recipes__search), lexical-only, semantic-only and hybrid
 * rankings over the labelled queries in queries.json.
 *
 *   npm run bench:relevance
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createSearchEngine, type SearchEngineOptions } from "../../src/recipes/search/engine.js";
import { createLocalProvider } from "../../src/recipes/search/embeddings/local.js";
import type { FusionOptions } from "../../src/recipes/search/fusion.js";
import type { Recipe } from "../../src/recipes/types.js";
import { loadCorpus } from "./corpus.js";
import { checkQueries, loadQueries, type LabelledQuery } from "./queries.js";

const DEPTH = 20;

type Ranker = (q: string) => Promise<string[]>;

/** dcc-mcp-core: case-insensitive substring of the query in name or description, catalog order. */
function substringRanker(recipes: readonly Recipe[]): Ranker {
  return async (q) => {
    const needle = q.toLowerCase();
    return recipes
      .filter((r) => r.name.toLowerCase().includes(needle) || r.description.toLowerCase().includes(needle))
      .map((r) => r.recipeId)
      .slice(0, DEPTH);
  };
}

interface Scores {
  mrr: number;
  recall5: number;
  n: number;
}

async function evaluate(rank: Ranker, queries: readonly LabelledQuery[]): Promise<{ all: Scores; keyword: Scores; paraphrase: Scores; misses: string[] }> {
  const acc = { all: [] as [number, number][], keyword: [] as [number, number][], paraphrase: [] as [number, number][] };
  const misses: string[] = [];
  for (const query of queries) {
    const ids = await rank(query.q);
    const relevant = new Set(query.relevant);
    const first = ids.findIndex((id) => relevant.has(id));
    const rr = first >= 0 ? 1 / (first + 1) : 0;
    const recall = ids.slice(0, 5).filter((id) => relevant.has(id)).length / relevant.size;
    acc.all.push([rr, recall]);
    acc[query.kind].push([rr, recall]);
    if (first !== 0) misses.push(`${query.kind[0]} ${first < 0 ? "--" : `#${first + 1}`} ${JSON.stringify(query.q)} -> ${ids[0] ?? "(nothing)"}`);
  }
  const summarise = (xs: [number, number][]): Scores => ({
    mrr: xs.reduce((s, x) => s + x[0], 0) / (xs.length || 1),
    recall5: xs.reduce((s, x) => s + x[1], 0) / (xs.length || 1),
    n: xs.length,
  });
  return { all: summarise(acc.all), keyword: summarise(acc.keyword), paraphrase: summarise(acc.paraphrase), misses };
}

async function engineRanker(recipes: readonly Recipe[], options: SearchEngineOptions): Promise<{ rank: Ranker; close: () => Promise<void> }> {
  const engine = createSearchEngine(options);
  engine.update(recipes, 1);
  await engine.whenSemanticReady();
  return {
    rank: async (q) => (await engine.search({ text: q, limit: DEPTH })).hits.map((h) => h.recipe.recipeId),
    close: () => engine.close(),
  };
}

const f = (x: number): string => x.toFixed(3);

async function main(): Promise<void> {
  const verbose = process.argv.includes("--verbose");
  const recipes = await loadCorpus();
  const queries = loadQueries();
  const problems = checkQueries(queries, recipes);
  if (problems.length > 0) {
    console.error("label problems:\n" + problems.join("\n"));
    process.exitCode = 1;
    return;
  }
  const counts = { keyword: queries.filter((q) => q.kind === "keyword").length, paraphrase: queries.filter((q) => q.kind === "paraphrase").length };
  console.log(`corpus: ${recipes.length} recipes; queries: ${queries.length} (${counts.keyword} keyword, ${counts.paraphrase} paraphrase)\n`);

  if (process.argv.includes("--lexical")) {
    // Quick loop while tuning the lexical side: no model.
    for (const [name, r] of [["substring", substringRanker(recipes)], ["lexical", (await engineRanker(recipes, { provider: null })).rank]] as const) {
      const s = await evaluate(r, queries);
      console.log(`${name}: MRR ${f(s.all.mrr)} R@5 ${f(s.all.recall5)} | keyword ${f(s.keyword.mrr)} ${f(s.keyword.recall5)} | paraphrase ${f(s.paraphrase.mrr)} ${f(s.paraphrase.recall5)}`);
      if (verbose) console.log(s.misses.join("\n"));
    }
    return;
  }
  const cacheDir = await mkdtemp(path.join(os.tmpdir(), "relevance-"));
  const provider = createLocalProvider();
  const rows: [string, Awaited<ReturnType<typeof evaluate>>][] = [];
  try {
    rows.push(["substring (dcc-mcp-core)", await evaluate(substringRanker(recipes), queries)]);
    const variants: [string, SearchEngineOptions][] = [
      ["lexical (BM25F)", { provider: null }],
      ["semantic (USE-Lite), blended text only", { provider, cacheDir, ranking: "semantic", semanticViews: "primary" }],
      ["hybrid RRF k=60 cov^2, blended text only", { provider, cacheDir, semanticViews: "primary" }],
      ["semantic (USE-Lite), best of views", { provider, cacheDir, ranking: "semantic" }],
      ["hybrid RRF k=60 cov^2, best of views (default)", { provider, cacheDir }],
    ];
    const sweep: [string, Partial<FusionOptions>][] = [];
    for (const power of [0, 1, 2, 3]) {
      for (const k of [10, 30, 60]) sweep.push([`hybrid RRF k=${k} cov^${power}`, { method: "rrf", k, coveragePower: power }]);
      for (const lw of [0.3, 0.5]) sweep.push([`hybrid weighted lex ${lw} cov^${power}`, { method: "weighted", lexicalWeight: lw, coveragePower: power }]);
    }
    for (const [name, fusion] of sweep) variants.push([name, { provider, cacheDir, fusion }]);
    for (const [name, options] of variants) {
      const ranker = await engineRanker(recipes, options);
      rows.push([name, await evaluate(ranker.rank, queries)]);
      await ranker.close();
    }
  } finally {
    await provider.close();
    await rm(cacheDir, { recursive: true, force: true });
  }

  const header = `| ranking | MRR all | R@5 all | MRR keyword | R@5 keyword | MRR paraphrase | R@5 paraphrase |`;
  console.log(header);
  console.log(header.replace(/[^|]/g, "-"));
  for (const [name, s] of rows) {
    console.log(`| ${name} | ${f(s.all.mrr)} | ${f(s.all.recall5)} | ${f(s.keyword.mrr)} | ${f(s.keyword.recall5)} | ${f(s.paraphrase.mrr)} | ${f(s.paraphrase.recall5)} |`);
  }
  const base = rows[0]![1].paraphrase.mrr;
  const hybrid = rows.find(([n]) => n.includes("default"))![1];
  console.log(`\nhybrid (default) MRR all ${f(hybrid.all.mrr)} (target >= 0.8); paraphrase MRR ${f(hybrid.paraphrase.mrr)} vs substring ${f(base)} (${base > 0 ? `${(hybrid.paraphrase.mrr / base).toFixed(1)}x` : "substring finds none"}; target >= 2x)`);
  if (verbose) {
    for (const [name, s] of rows) console.log(`\n## misses: ${name}\n${s.misses.join("\n")}`);
  }
}

await main();
