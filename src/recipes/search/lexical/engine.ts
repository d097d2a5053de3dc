import { SEARCH_FIELDS, type SearchDocument } from "../document.js";
import { ensure, i32 } from "./postings.js";
import { ExpansionCache, planQuery } from "./plan.js";
import { PostingStore } from "./postings.js";
import { Scorer } from "./scorer.js";
import { TermDictionary } from "./terms.js";
import { TokenTable } from "./tokens.js";
import { eachTokenRange, processTerm, tokenText, tokenize } from "../tokenize.js";

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

/** Queries beyond this many distinct terms are cut: each term costs a dictionary walk (and one bit per document). */
const MAX_QUERY_TERMS = 32;

const FIELDS = SEARCH_FIELDS.length;

/** Delta postings a query may scan linearly before the index compacts. */
const DELTA_LIMIT = 8192;
/** A run of puts may leave this many times compactAfter delta postings (2M by default) before put compacts by itself. */
const PUT_COMPACT_FACTOR = 256;
/** Dead terms the dictionary keeps before renumbering (also at most a quarter of it). */
const DEAD_TERMS = 1024;
/** Token table entries beyond this many per live term are dropped at compaction (hostile churn). */
const RAW_PER_TERM = 4;

interface LexicalIndexOptions {
  /**
   * Postings added (or removed) since the last compaction that a query
   * tolerates before it compacts first; tests lower it to exercise
   * compaction on small corpora.
   */
  compactAfter?: number;
  /**
   * Postings from which a term's per-document sums are kept between queries
   * (lexical/term-lists.ts); tests lower it to compare kept and direct scoring.
   */
  termListMinPostings?: number;
  /**
   * Term lists a query ranks by walking them side by side (lexical/walk.ts)
   * rather than accumulating per slot; tests set 0 to compare the two.
   */
  walkMaxLists?: number;
}

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
 * BM25+ over weighted fields in a compact in-memory index (term dictionary,
 * typed-array postings, tombstones with periodic compaction). It keeps no
 * document text: a document's terms are found again from its slot's own
 * list. Documents are keyed by recipeId; the caller decides what changed
 * and calls `put` /
 * `remove`. `search` must not be re-entered from its `accept` callback.
 */
export class LexicalIndex {
  private readonly terms = new TermDictionary();
  private readonly store = new PostingStore(FIELDS);

  // Tokenizing: raw token -> id in a table, whose entry names the processed
  // term (-1 for a stop word), so each distinct spelling is processed once.
  private readonly raw = new TokenTable();
  /** Per raw id: (term id or -1, stamp of the field scan that last saw it). */
  private rawInfo: Int32Array = new Int32Array(0);
  /** Per term id: (stamp of the field scan that last saw it, its count in that field). */
  private termInfo: Int32Array = new Int32Array(0);
  private stamp = 0;
  private unique = 0;
  /** Distinct terms of the field being scanned: fieldTerms[0, fieldTermCount). */
  private fieldTerms: Int32Array = new Int32Array(256);
  private fieldTermCount = 0;
  private readonly sink = (text: string, start: number, end: number, joined: boolean): void => this.count(text, start, end, joined);

  private readonly scorer: Scorer;
  private readonly expansions = new ExpansionCache();
  private busy = false;
  private readonly compactAfter: number;

  constructor(options: LexicalIndexOptions = {}) {
    this.compactAfter = Math.max(1, options.compactAfter ?? DELTA_LIMIT);
    this.scorer = new Scorer(options.termListMinPostings, options.walkMaxLists);
  }

  get size(): number {
    return this.store.liveCount;
  }

  put(doc: SearchDocument): void {
    this.remove(doc.id);
    const slot = this.store.openSlot(doc.id);
    for (let f = 0; f < FIELDS; f++) {
      this.scanField(doc[SEARCH_FIELDS[f]!]);
      this.store.setLength(slot, f, this.unique);
      for (let i = 0; i < this.fieldTermCount; i++) {
        const term = this.fieldTerms[i]!;
        this.store.addPosting(term, slot, f, this.termInfo[2 * term + 1]!);
      }
    }
    // Queries compact a grown delta; an index only written to (reloads and
    // no searches) compacts here once the delta outweighs the main postings.
    if (this.store.deltaCount > Math.max(PUT_COMPACT_FACTOR * this.compactAfter, 2 * this.store.mainCount)) this.compact();
  }

  remove(id: string): void {
    if (this.busy) throw new Error("LexicalIndex changed from a search's accept callback");
    const slot = this.store.slotOf.get(id);
    if (slot !== undefined) this.store.kill(slot);
  }

  /** Fills fieldTerms / termTf / unique for one field's text. */
  private scanField(text: string): void {
    if (++this.stamp > 0x3fffffff) {
      for (let i = 1; i < this.rawInfo.length; i += 2) this.rawInfo[i] = 0;
      for (let i = 0; i < this.termInfo.length; i += 2) this.termInfo[i] = 0;
      this.stamp = 1;
    }
    this.unique = 0;
    this.fieldTermCount = 0;
    eachTokenRange(text, this.sink);
  }

  private count(text: string, start: number, end: number, joined: boolean): void {
    let r = this.raw.find(text, start, end, joined);
    if (r < 0) {
      const token = tokenText(text, start, end, joined);
      r = this.raw.add(token);
      if (2 * r + 2 > this.rawInfo.length) this.rawInfo = ensure(this.rawInfo, 2 * r + 2, i32);
      const processed = processTerm(token);
      this.rawInfo[2 * r] = processed ? this.terms.intern(processed) : -1;
    }
    const raw = this.rawInfo;
    // Field length counts distinct raw tokens, stop words and case variants included (as MiniSearch).
    if (raw[2 * r + 1] !== this.stamp) {
      raw[2 * r + 1] = this.stamp;
      this.unique++;
    }
    const term = raw[2 * r]!;
    if (term < 0) return;
    if (2 * term + 2 > this.termInfo.length) this.termInfo = ensure(this.termInfo, 2 * this.terms.count, i32);
    const info = this.termInfo;
    if (info[2 * term] !== this.stamp) {
      info[2 * term] = this.stamp;
      info[2 * term + 1] = 1;
      if (this.fieldTermCount === this.fieldTerms.length) this.fieldTerms = ensure(this.fieldTerms, this.fieldTermCount + 1, i32);
      this.fieldTerms[this.fieldTermCount++] = term;
    } else {
      info[2 * term + 1]!++;
    }
  }

  /** Folds the delta into the main postings and drops removed documents (and dead terms when many). */
  private compact(): void {
    const count = this.terms.count;
    const dead = this.store.deadTerms(count);
    let map: Int32Array | null = null;
    if (dead > Math.min(DEAD_TERMS, this.compactAfter) && dead > count / 4) {
      map = this.terms.retain((t) => this.store.documentFrequency(t) > 0);
      this.raw.clear();
    }
    this.store.compact(count, map);
    if (this.raw.size > RAW_PER_TERM * this.terms.count + 65_536) this.raw.clear();
  }

  /** Compacts now if a query would (after a bulk load: so the first query does not pay for it). */
  maintain(): void {
    if (this.busy) return;
    if (this.store.needsCompaction(this.compactAfter)) this.compact();
  }

  /** Matches sorted by raw score, ties by id; `accept` filters before ranking. */
  search(text: string, accept: (id: string) => boolean, limit: number): LexicalMatch[] {
    const k = Math.floor(limit);
    const all = lexicalTerms(text);
    if (all.length === 0 || !(k > 0)) return [];
    if (this.busy) throw new Error("LexicalIndex.search re-entered from its accept callback");
    if (this.store.needsCompaction(this.compactAfter)) this.compact();
    this.busy = true;
    try {
      return this.scorer.rank(this.store, planQuery(all, this.terms, this.store, this.expansions), accept, k);
    } finally {
      this.busy = false;
    }
  }

}
