import { type PostingStore } from "./postings.js";
import { type TermDictionary } from "./terms.js";

/**
 * Values derived from a posting store, kept for one store generation (any
 * put, removal or compaction starts afresh), within a budget of weighed
 * values and evicted least recently used first. A value heavier than the
 * whole budget is handed back without being kept.
 */
class GenerationCache<K, V> {
  private store: PostingStore | null = null;
  private generation = -1;
  private readonly values = new Map<K, V>();
  private held = 0;

  constructor(
    private readonly budget: number,
    private readonly weigh: (value: V) => number = () => 1,
  ) {}

  /** The value for `key` in the store's current generation, built by `build` when absent. */
  get(store: PostingStore, key: K, build: () => V): V {
    if (this.store !== store || this.generation !== store.generation) {
      this.values.clear();
      this.held = 0;
      this.store = store;
      this.generation = store.generation;
    }
    const known = this.values.get(key);
    if (known !== undefined) {
      // Map order is insertion order: re-inserting marks it most recently used.
      this.values.delete(key);
      this.values.set(key, known);
      return known;
    }
    const value = build();
    const weight = this.weigh(value);
    if (weight > this.budget) return value;
    for (const [oldest, evicted] of this.values) {
      if (this.held + weight <= this.budget) break;
      this.values.delete(oldest);
      this.held -= this.weigh(evicted);
    }
    this.values.set(key, value);
    this.held += weight;
    return value;
  }

  get size(): number {
    return this.values.size;
  }
}

/**
 * A term's live documents with the term's whole contribution to each (its
 * fields' BM25 parts summed): what scoring a long posting list computes on
 * every query, kept for the store generation it was computed in.
 */
export interface TermList {
  /** In ascending order. */
  readonly slots: Int32Array;
  readonly scores: Float64Array;
  /** The largest of scores (0 when empty): bounds what the term adds to any document. */
  readonly max: number;
}

/**
 * Term lists of long posting lists, for one store generation at a time (any
 * put, removal or compaction starts afresh), bounded in documents held and
 * evicted least recently used first. The cost of a query is its terms'
 * posting lengths, and the long lists are the common words that recur from
 * one query to the next: those are worth keeping; a rare word's short list
 * is scored directly.
 */
export class TermListCache extends GenerationCache<number, TermList> {
  constructor(
    /** Postings (fields included) from which a term's list is kept. */
    readonly minPostings = 512,
    /** Documents held over all lists: 12 bytes each. */
    maxDocs = 262_144,
  ) {
    super(maxDocs, (list) => list.slots.length);
  }
}

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
/** Weights of an expanded term (MiniSearch's), decaying with its distance from the word. */
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;

/** A term scored for one query word: itself, or a prefix/typo expansion of it. */
export interface Derived {
  readonly term: number;
  readonly weight: number;
  /** Bit of the query word it was reached from. */
  readonly source: number;
  /** Bits of the query words it equals / extends (for coverage). */
  readonly exact: number;
  readonly prefix: number;
}

export interface QueryPlan {
  /** Query words kept (at most 32: one bit each), with their document frequencies. */
  readonly words: readonly string[];
  readonly df: readonly number[];
  readonly derived: readonly Derived[];
}

/**
 * Which terms a query scores. `all` are its distinct processed words; words
 * the index holds score as themselves, unknown ones through their prefix
 * and typo neighbours.
 */
/** An unknown word's prefix and typo neighbours, with their weights. */
interface Expansion {
  readonly term: number;
  readonly text: string;
  readonly weight: number;
}

/**
 * Expansions of unknown words for one store generation, least recently used
 * out first. Finding a word's typo neighbours walks the dictionary (~0.1 ms
 * at 20,000 recipes, more for the two-edit bound of long words), and the
 * words agents use that no recipe holds ("smoother", "quickly") recur from
 * one query to the next.
 */
export class ExpansionCache extends GenerationCache<string, readonly Expansion[]> {
  constructor(capacity = 1024) {
    super(capacity);
  }

  expand(word: string, terms: TermDictionary, store: PostingStore): readonly Expansion[] {
    return this.get(store, word, () => expansions(word, terms, store));
  }
}

export function planQuery(all: readonly string[], terms: TermDictionary, store: PostingStore, cache?: ExpansionCache): QueryPlan {
  const n = store.liveCount;
  const ids = all.map((t) => terms.id(t));
  const allDf = ids.map((id) => (id === undefined ? 0 : Math.min(n, store.documentFrequency(id))));
  // On a large catalog a word found in most recipes adds almost nothing to
  // BM25 (idf ~0) yet costs a posting per recipe: leave such words out,
  // keeping at least the rarest term.
  const common = Math.max(COMMON_MIN_DOCS, n * COMMON_SHARE);
  const rarest = Math.min(...allDf);
  const keep = all.map((_, i) => allDf[i]! <= common || allDf[i] === rarest);
  const words = all.filter((_, i) => keep[i]);
  const wordIds = ids.filter((_, i) => keep[i]);
  const df = allDf.filter((_, i) => keep[i]);

  const masks = (term: string): { exact: number; prefix: number } => {
    let exact = 0;
    let prefix = 0;
    words.forEach((w, i) => {
      if (term === w) exact |= 1 << i;
      else if (term.startsWith(w)) prefix |= 1 << i;
    });
    return { exact, prefix };
  };
  const derived: Derived[] = [];
  words.forEach((word, i) => {
    const source = 1 << i;
    if (df[i]! > 0) {
      derived.push({ term: wordIds[i]!, weight: 1, source, ...masks(word) });
      return;
    }
    // Expansion only for words the index does not hold: a known word's
    // prefix/typo neighbours multiply the postings to score (the bulk of
    // the cost on a large catalog) and rarely improve its ranking.
    for (const e of cache ? cache.expand(word, terms, store) : expansions(word, terms, store)) derived.push({ term: e.term, weight: e.weight, source, ...masks(e.text) });
  });
  return { words, df, derived };
}

function expansions(word: string, terms: TermDictionary, store: PostingStore): Expansion[] {
  const out: Expansion[] = [];
  if (word.length >= PREFIX_MIN) {
    terms.withPrefix(word, (term, t) => {
      if (t.length === word.length || store.documentFrequency(term) === 0) return;
      out.push({ term, text: t, weight: (PREFIX_WEIGHT * t.length) / (t.length + 0.3 * (t.length - word.length)) });
    });
  }
  const edits = word.length >= FUZZY_MIN ? Math.min(MAX_EDITS, Math.round(word.length * FUZZY_SHARE)) : 0;
  if (edits > 0) {
    terms.fuzzy(word, edits, (term, t, distance) => {
      // A term that extends the word counts as a prefix match only.
      if (distance === 0 || t.startsWith(word) || store.documentFrequency(term) === 0) return;
      out.push({ term, text: t, weight: (FUZZY_WEIGHT * t.length) / (t.length + distance) });
    });
  }
  if (out.length > MAX_EXPANSIONS) {
    out.sort((a, b) => b.weight - a.weight || (a.text < b.text ? -1 : 1));
    out.length = MAX_EXPANSIONS;
  }
  return out;
}
