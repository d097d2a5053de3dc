/**
 * The MiniSearch-backed lexical index that src/recipes/search/lexical/engine.ts
 * replaced: same options, same query path, same coverage. bench:search
 * measures it as the named peer; the lexical tests use it as the ranking
 * reference.
 */
import MiniSearch, { type SearchResult } from "minisearch";
import { FIELD_BOOST, SEARCH_FIELDS, type SearchDocument } from "../../src/recipes/search/document.js";
import { lexicalTerms, type LexicalMatch } from "../../src/recipes/search/lexical/engine.js";
import { processTerm, tokenize } from "../../src/recipes/search/tokenize.js";

export class MiniSearchLexical {
  private readonly mini = new (class extends MiniSearch<SearchDocument> {
    documentFrequency(term: string): number {
      const fields = this._index.get(term);
      let df = 0;
      if (fields) for (const docs of fields.values()) df = Math.max(df, docs.size);
      return df;
    }
  })({
    idField: "id",
    fields: SEARCH_FIELDS,
    storeFields: [],
    tokenize: (text) => tokenize(text),
    processTerm: (term) => processTerm(term),
    searchOptions: { boost: FIELD_BOOST },
  });

  constructor(docs: readonly SearchDocument[] = []) {
    this.mini.addAll(docs as SearchDocument[]);
  }

  put(doc: SearchDocument): void {
    if (this.mini.has(doc.id)) this.mini.discard(doc.id);
    this.mini.add(doc);
  }

  search(text: string, accept: (id: string) => boolean, limit: number): LexicalMatch[] {
    const all = lexicalTerms(text);
    if (all.length === 0) return [];
    const n = this.mini.documentCount;
    const df = all.map((t) => Math.min(n, this.mini.documentFrequency(t)));
    const common = Math.max(500, n * 0.1);
    const rarest = Math.min(...df);
    const terms = all.filter((_, i) => df[i]! <= common || df[i] === rarest);
    const known = new Set(terms.filter((t) => df[all.indexOf(t)]! > 0));
    const results = this.mini.search(terms.join(" "), {
      tokenize: () => terms,
      processTerm: (t) => t,
      prefix: (term) => term.length >= 3 && !known.has(term),
      fuzzy: (term) => (term.length >= 5 && !known.has(term) ? 0.2 : false),
      maxFuzzy: 2,
      filter: (r: SearchResult) => accept(r.id as string),
    });
    const idf = terms.map((t) => {
      const d = df[all.indexOf(t)]!;
      return Math.log(1 + (n - d + 0.5) / (d + 0.5));
    });
    const total = idf.reduce((a, b) => a + b, 0);
    const matches = results.map((r) => {
      let sum = 0;
      terms.forEach((q, i) => {
        if (r.terms.includes(q)) sum += idf[i]!;
        else if (r.terms.some((t) => t.startsWith(q))) sum += 0.7 * idf[i]!;
        else if (r.queryTerms.includes(q)) sum += 0.4 * idf[i]!;
      });
      return { id: r.id as string, raw: r.score, coverage: total > 0 ? sum / total : 0 };
    });
    matches.sort((a, b) => b.raw - a.raw || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return matches.slice(0, limit);
  }
}
