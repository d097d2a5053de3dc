import { FIELD_BOOST, SEARCH_FIELDS, type SearchDocument } from "./document.js";
import { ensure, f64, i32 } from "./lexical/grow.js";
import { PostingStore } from "./lexical/postings.js";
import { TermDictionary } from "./lexical/terms.js";
import { TokenTable } from "./lexical/tokens.js";
import { TopK } from "./lexical/topk.js";
import { eachTokenRange, processTerm, tokenText, tokenize } from "./tokenize.js";

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

/** Queries beyond this many distinct terms are cut: each term costs a dictionary walk. */
const MAX_QUERY_TERMS = 32;
/** Prefix expansion below this length fans out over most of the vocabulary. */
const PREFIX_MIN = 3;
/** Fuzzy matching below this length turns "uv" into every two-letter word. */
const FUZZY_MIN = 5;
/** Edit bound: this share of the word's length, at most MAX_EDITS. */
const FUZZY_SHARE = 0.2;
const MAX_EDITS = 2;
/** Query words in more than this share (idf below ~2.3) of a catalog of at least COMMON_MIN_DOCS recipes are skipped. */
const COMMON_SHARE = 0.1;
const COMMON_MIN_DOCS = 500;
/**
 * Expansions kept per unknown query word, the closest (shortest) first: a
 * three-letter stub can prefix thousands of terms, each with its postings.
 */
const MAX_EXPANSIONS = 256;

/**
 * BM25+ as MiniSearch 7 scores it (the index this one replaced; the ranking
 * is unchanged): per field, idf over the documents holding the term in that
 * field, k1 1.2, b 0.7, delta 0.5, the field's length counted in unique
 * tokens; a document's sum is multiplied by the number of query words it
 * matched. Expanded terms weigh 0.375 (prefix) or 0.45 (typo), decaying with
 * the distance.
 */
const K1 = 1.2;
const B = 0.7;
const DELTA = 0.5;
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;

const FIELDS = SEARCH_FIELDS.length;
const BOOST = Float64Array.from(SEARCH_FIELDS, (f) => FIELD_BOOST[f]);

/** Delta postings a query may scan linearly before the index compacts. */
const DELTA_LIMIT = 8192;
/** Dead terms the dictionary keeps before renumbering (also at most a quarter of it). */
const DEAD_TERMS = 1024;

export interface LexicalIndexOptions {
  /**
   * Postings added (or removed) since the last compaction that a query
   * tolerates before it compacts first; tests lower it to exercise
   * compaction on small corpora.
   */
  compactAfter?: number;
}
/** Token cache entries beyond this many per live term are dropped at compaction (hostile churn). */
const RAW_PER_TERM = 4;

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

/** A term scored for one query word: itself, or a prefix/typo expansion of it. */
interface Derived {
  readonly term: number;
  readonly weight: number;
  /** Bit of the query word it was reached from. */
  readonly source: number;
  /** Query words it equals / extends (for coverage). */
  readonly exact: number;
  readonly prefix: number;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * BM25+ over weighted fields in a compact in-memory index (term dictionary,
 * typed-array postings, tombstones with periodic compaction). Documents are
 * keyed by recipeId; the caller decides what changed and calls `put` /
 * `remove`. `search` must not be re-entered from its `accept` callback.
 */
export class LexicalIndex {
  private readonly terms = new TermDictionary();
  private readonly store = new PostingStore<SearchDocument>(FIELDS);

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

  // Per-query scratch, indexed by slot; zero outside a search.
  private acc: Float64Array = new Float64Array(0);
  private sourceBits: Int32Array = new Int32Array(0);
  private exactBits: Int32Array = new Int32Array(0);
  private prefixBits: Int32Array = new Int32Array(0);
  private touched: Int32Array = new Int32Array(0);
  private busy = false;
  private readonly compactAfter: number;

  constructor(options: LexicalIndexOptions = {}) {
    this.compactAfter = Math.max(1, options.compactAfter ?? DELTA_LIMIT);
  }

  get size(): number {
    return this.store.liveCount;
  }

  put(doc: SearchDocument): void {
    this.remove(doc.id);
    const slot = this.store.openSlot(doc.id, doc);
    for (let f = 0; f < FIELDS; f++) {
      this.scanField(doc[SEARCH_FIELDS[f]!]);
      this.store.setLength(slot, f, this.unique);
      for (let i = 0; i < this.fieldTermCount; i++) {
        const term = this.fieldTerms[i]!;
        this.store.addPosting(term, slot, f, this.termInfo[2 * term + 1]!);
      }
    }
  }

  remove(id: string): void {
    const slot = this.store.slotOf.get(id);
    if (slot === undefined) return;
    const doc = this.store.doc(slot)!;
    this.store.kill(slot, (visit) => {
      for (let f = 0; f < FIELDS; f++) {
        this.scanField(doc[SEARCH_FIELDS[f]!]);
        for (let i = 0; i < this.fieldTermCount; i++) visit(this.fieldTerms[i]!, f);
      }
    });
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

  /** Matches sorted by raw score, ties by id; `accept` filters before ranking. */
  search(text: string, accept: (id: string) => boolean, limit: number): LexicalMatch[] {
    const k = Math.floor(limit);
    const all = lexicalTerms(text);
    if (all.length === 0 || !(k > 0)) return [];
    if (this.busy) throw new Error("LexicalIndex.search re-entered from its accept callback");
    if (this.store.needsCompaction(this.compactAfter)) this.compact();
    this.busy = true;
    try {
      return this.rank(all, accept, k);
    } finally {
      this.busy = false;
    }
  }

  private rank(all: readonly string[], accept: (id: string) => boolean, k: number): LexicalMatch[] {
    const store = this.store;
    const n = store.liveCount;
    const ids = all.map((t) => this.terms.id(t));
    const df = ids.map((id) => (id === undefined ? 0 : Math.min(n, store.documentFrequency(id))));
    // On a large catalog a word found in most recipes adds almost nothing to
    // BM25 (idf ~0) yet costs a posting per recipe: leave such words out,
    // keeping at least the rarest term.
    const common = Math.max(COMMON_MIN_DOCS, n * COMMON_SHARE);
    const rarest = Math.min(...df);
    const keep = all.map((_, i) => df[i]! <= common || df[i] === rarest);
    const words = all.filter((_, i) => keep[i]);
    const wordIds = ids.filter((_, i) => keep[i]);
    const wordDf = df.filter((_, i) => keep[i]);

    const derived: Derived[] = [];
    const masks = (term: string): { exact: number; prefix: number } => {
      let exact = 0;
      let prefix = 0;
      words.forEach((w, i) => {
        if (term === w) exact |= 1 << i;
        else if (term.startsWith(w)) prefix |= 1 << i;
      });
      return { exact, prefix };
    };
    words.forEach((word, i) => {
      const source = 1 << i;
      if (wordDf[i]! > 0) {
        derived.push({ term: wordIds[i]!, weight: 1, source, ...masks(word) });
        return;
      }
      // Expansion only for words the index does not hold: a known word's
      // prefix/typo neighbours multiply the postings to score (the bulk of
      // the cost on a large catalog) and rarely improve its ranking.
      const expansions: { term: number; text: string; weight: number }[] = [];
      if (word.length >= PREFIX_MIN) {
        this.terms.withPrefix(word, (term, t) => {
          if (t.length === word.length || store.documentFrequency(term) === 0) return;
          expansions.push({ term, text: t, weight: (PREFIX_WEIGHT * t.length) / (t.length + 0.3 * (t.length - word.length)) });
        });
      }
      const edits = word.length >= FUZZY_MIN ? Math.min(MAX_EDITS, Math.round(word.length * FUZZY_SHARE)) : 0;
      if (edits > 0) {
        this.terms.fuzzy(word, edits, (term, t, distance) => {
          // A term that extends the word counts as a prefix match only.
          if (distance === 0 || t.startsWith(word) || store.documentFrequency(term) === 0) return;
          expansions.push({ term, text: t, weight: (FUZZY_WEIGHT * t.length) / (t.length + distance) });
        });
      }
      if (expansions.length > MAX_EXPANSIONS) {
        expansions.sort((a, b) => b.weight - a.weight || (a.text < b.text ? -1 : 1));
        expansions.length = MAX_EXPANSIONS;
      }
      for (const e of expansions) derived.push({ term: e.term, weight: e.weight, source, ...masks(e.text) });
    });
    if (derived.length === 0) return [];

    this.acc = ensure(this.acc, store.slotCount, f64);
    this.sourceBits = ensure(this.sourceBits, store.slotCount, i32);
    this.exactBits = ensure(this.exactBits, store.slotCount, i32);
    this.prefixBits = ensure(this.prefixBits, store.slotCount, i32);
    this.touched = ensure(this.touched, store.slotCount, i32);
    let count = 0;
    try {
      count = this.accumulate(derived);
      return this.select(count, words, wordDf, n, accept, k);
    } finally {
      for (let i = 0; i < count; i++) {
        const slot = this.touched[i]!;
        this.acc[slot] = 0;
        this.sourceBits[slot] = 0;
        this.exactBits[slot] = 0;
        this.prefixBits[slot] = 0;
      }
    }
  }

  /** Adds every live posting of the derived terms into the per-slot scratch; returns how many slots it touched (listed in `touched`). */
  private accumulate(derived: readonly Derived[]): number {
    const store = this.store;
    const { acc, sourceBits, exactBits, prefixBits } = this;
    const { alive, lengths, df, offsets, main } = store;
    const n = store.liveCount;
    // Length normalisation per field: k1 * (1 - b + b * len / avg).
    const base = K1 * (1 - B);
    const perLength = new Float64Array(FIELDS);
    for (let f = 0; f < FIELDS; f++) perLength[f] = n > 0 && store.lengthSum[f]! > 0 ? (K1 * B * n) / store.lengthSum[f]! : 0;
    // factor[d * FIELDS + f]: weight * boost * idf of derived term d in field f.
    const factor = new Float64Array(derived.length * FIELDS);
    derived.forEach((d, i) => {
      for (let f = 0; f < FIELDS; f++) {
        const m = df[d.term * FIELDS + f] ?? 0;
        factor[i * FIELDS + f] = d.weight * BOOST[f]! * Math.log(1 + (n - m + 0.5) / (m + 0.5));
      }
    });
    let count = 0;
    const touched = this.touched;
    const scoreRange = (i: number, postings: Uint32Array, from: number, to: number, stride: number): void => {
      const d = derived[i]!;
      const { source, exact, prefix } = d;
      const at = i * FIELDS;
      for (let p = from; p < to; p += stride) {
        const slot = postings[p]!;
        if (!alive[slot]) continue;
        const meta = postings[p + 1]!;
        const f = meta & 7;
        const tf = meta >>> 3;
        const score = factor[at + f]! * (DELTA + (tf * (K1 + 1)) / (tf + base + perLength[f]! * lengths[slot * FIELDS + f]!));
        if (sourceBits[slot] === 0) touched[count++] = slot;
        acc[slot]! += score;
        sourceBits[slot]! |= source;
        exactBits[slot]! |= exact;
        prefixBits[slot]! |= prefix;
      }
    };
    const mainTerms = store.mainTerms;
    let deltaTerms: Map<number, number[]> | null = null;
    derived.forEach((d, i) => {
      if (d.term < mainTerms) scoreRange(i, main, 2 * offsets[d.term]!, 2 * offsets[d.term + 1]!, 2);
      if (store.deltaCount > 0) {
        deltaTerms ??= new Map();
        const list = deltaTerms.get(d.term);
        if (list) list.push(i);
        else deltaTerms.set(d.term, [i]);
      }
    });
    if (deltaTerms) {
      const terms: Map<number, number[]> = deltaTerms;
      store.eachDeltaChunk((delta, end) => {
        for (let j = 0; j < end; j += 3) {
          const list = terms.get(delta[j]!);
          // A delta triple is (term, slot, meta): score the (slot, meta) pair at j + 1.
          if (list) for (const i of list) scoreRange(i, delta, j + 1, j + 2, 3);
        }
      });
    }
    return count;
  }

  /** Top k accepted documents with their coverage; `accept` runs only for contenders. */
  private select(count: number, words: readonly string[], wordDf: readonly number[], n: number, accept: (id: string) => boolean, k: number): LexicalMatch[] {
    const { acc, sourceBits, exactBits, prefixBits } = this;
    const ids = this.store.ids;
    const top = new TopK(k, ids, this.store.orderedSlots);
    const touched = this.touched;
    for (let i = 0; i < count; i++) {
      const slot = touched[i]!;
      const score = acc[slot]! * popcount(sourceBits[slot]!);
      if (top.admits(score, slot) && accept(ids[slot]!)) top.push(score, slot);
    }
    // Share of the query's information the document matched: each query term
    // weighs its idf, so in a long draft the rare words ("bevel", "chamfer")
    // decide, and a paraphrase's stray matches on common words count little.
    const idf = wordDf.map((d) => Math.log(1 + (n - d + 0.5) / (d + 0.5)));
    const total = idf.reduce((a, b) => a + b, 0);
    return top.drain().map(({ slot, score }) => {
      let sum = 0;
      for (let i = 0; i < words.length; i++) {
        const bit = 1 << i;
        if (exactBits[slot]! & bit) sum += EXACT * idf[i]!;
        else if (prefixBits[slot]! & bit) sum += PREFIX * idf[i]!;
        else if (sourceBits[slot]! & bit) sum += FUZZY * idf[i]!;
      }
      return { id: ids[slot]!, raw: score, coverage: total > 0 ? sum / total : 0 };
    });
  }
}
