import MiniSearch, { type SearchResult } from "minisearch";
import { FIELD_BOOST, SEARCH_FIELDS, type SearchDocument } from "./document.js";
import { processTerm, tokenize } from "./tokenize.js";

/** One lexical match: raw BM25+ score and how well it covers the query. */
export interface LexicalMatch {
  readonly id: string;
  readonly raw: number;
  /**
   * 0..1: each query term counts 1 when the document has it exactly, 0.7 as a
   * prefix, 0.4 through a typo; averaged over the query terms. A paraphrase
   * usually reaches documents only through stray prefix/typo matches, which
   * this exposes to fusion.
   */
  readonly coverage: number;
}

const EXACT = 1;
const PREFIX = 0.7;
const FUZZY = 0.4;

/**
 * Share of the query's information the document matched: each query term
 * weighs its idf, so in a long draft the rare words ("bevel", "chamfer")
 * decide, and a paraphrase's stray matches on common words count little.
 */
function coverage(terms: readonly string[], idf: readonly number[], total: number, r: SearchResult): number {
  let sum = 0;
  terms.forEach((q, i) => {
    const w = idf[i]!;
    if (r.terms.includes(q)) sum += EXACT * w;
    else if (r.terms.some((t) => t.startsWith(q))) sum += PREFIX * w;
    else if (r.queryTerms.includes(q)) sum += FUZZY * w;
  });
  return total > 0 ? sum / total : 0;
}

/** MiniSearch with read access to its term index, for document frequencies. */
class Index extends MiniSearch<SearchDocument> {
  /** Documents holding the term, approximated by its most common field. */
  documentFrequency(term: string): number {
    const fields = this._index.get(term);
    let df = 0;
    if (fields) for (const docs of fields.values()) df = Math.max(df, docs.size);
    return df;
  }
}

/** Queries beyond this many distinct terms are cut: each term costs a trie walk. */
const MAX_QUERY_TERMS = 32;
/** Prefix expansion below this length fans out over most of the vocabulary. */
const PREFIX_MIN = 3;
/** Fuzzy matching below this length turns "uv" into every two-letter word. */
const FUZZY_MIN = 5;
/** Query words in more than this share (idf below ~2.3) of a catalog of at least COMMON_MIN_DOCS recipes are skipped. */
const COMMON_SHARE = 0.1;
const COMMON_MIN_DOCS = 500;

/** Distinct processed query terms, in order, capped. */
export function lexicalTerms(text: string): string[] {
  const seen = new Set<string>();
  for (const token of tokenize(text)) {
    const term = processTerm(token);
    if (term && !seen.has(term)) {
      seen.add(term);
      if (seen.size >= MAX_QUERY_TERMS) break;
    }
  }
  return [...seen];
}

/**
 * BM25+ over weighted fields (MiniSearch). Documents are keyed by recipeId;
 * the caller decides what changed and calls `put` / `remove`.
 */
export class LexicalIndex {
  private readonly mini = new Index({
    idField: "id",
    fields: SEARCH_FIELDS,
    storeFields: [],
    tokenize: (text) => tokenize(text),
    processTerm: (term) => processTerm(term),
    searchOptions: { boost: FIELD_BOOST },
  });

  get size(): number {
    return this.mini.documentCount;
  }

  put(doc: SearchDocument): void {
    if (this.mini.has(doc.id)) this.mini.discard(doc.id);
    this.mini.add(doc);
  }

  remove(id: string): void {
    if (this.mini.has(id)) this.mini.discard(id);
  }

  /** Matches sorted by raw score, ties by id; `accept` filters before ranking. */
  search(text: string, accept: (id: string) => boolean, limit: number): LexicalMatch[] {
    const all = lexicalTerms(text);
    if (all.length === 0) return [];
    const n = this.mini.documentCount;
    const df = all.map((t) => Math.min(n, this.mini.documentFrequency(t)));
    // On a large catalog a word found in most recipes adds almost nothing to
    // BM25 (idf ~0) yet costs a posting per recipe: leave such words out,
    // keeping at least the rarest term.
    const common = Math.max(COMMON_MIN_DOCS, n * COMMON_SHARE);
    const rarest = Math.min(...df);
    const terms = all.filter((_, i) => df[i]! <= common || df[i] === rarest);
    const known = new Set(terms.filter((t) => df[all.indexOf(t)]! > 0));
    const results = this.mini.search(terms.join(" "), {
      // The terms are already processed; re-tokenizing the joined string is
      // idempotent for them, so the same pipeline runs on both sides.
      tokenize: () => terms,
      processTerm: (t) => t,
      // Expansion only for words the index does not hold: a known word's
      // prefix/typo neighbours multiply the postings to score (the bulk of
      // the cost on a large catalog) and rarely improve its ranking.
      prefix: (term) => term.length >= PREFIX_MIN && !known.has(term),
      fuzzy: (term) => (term.length >= FUZZY_MIN && !known.has(term) ? 0.2 : false),
      maxFuzzy: 2,
      filter: (r: SearchResult) => accept(r.id as string),
    });
    const idf = terms.map((t) => {
      const d = df[all.indexOf(t)]!;
      return Math.log(1 + (n - d + 0.5) / (d + 0.5));
    });
    const idfTotal = idf.reduce((a, b) => a + b, 0);
    const matches = results.map((r) => ({
      id: r.id as string,
      raw: r.score,
      coverage: coverage(terms, idf, idfTotal, r),
    }));
    matches.sort((a, b) => b.raw - a.raw || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return matches.slice(0, limit);
  }
}
