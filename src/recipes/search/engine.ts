import type { Recipe } from "../types.js";
import { contentHash, embeddingViews, textHash, toDocument, type SearchDocument } from "./document.js";
import { DEFAULT_FUSION, fuse, type FusionOptions } from "./fusion.js";
import { LexicalIndex } from "./lexical/engine.js";
import { SemanticIndex, type SemanticEntry, type SemanticView } from "./semantic.js";
import { silentLogger, type SearchAnswer, type SearchEngine, type SearchEngineOptions, type SearchHit } from "./types.js";

export type { SearchEngine, SearchEngineOptions, SearchStatus, SimilarOptions } from "./types.js";

/** Candidates taken from each side before fusion. */
const FUSION_DEPTH = 100;
/**
 * Longest stretch of background indexing between two turns of the event
 * loop: requests (a readiness probe, a list, a get) keep flowing while the
 * index of a load that was just published fills.
 */
const INDEX_SLICE_MS = 8;
/** Lower bounds for `similar`: below these a match is not worth offering. */
const SIMILAR_MIN_COSINE = 0.55;
const SIMILAR_MIN_COVERAGE = 0.6;

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const ACCEPT_ALL = (): boolean => true;

function round(score: number): number {
  return Math.round(score * 1000) / 1000;
}

export function createSearchEngine(options: SearchEngineOptions): SearchEngine {
  const logger = options.logger ?? silentLogger;
  const fusion: FusionOptions = { ...DEFAULT_FUSION, ...options.fusion };
  const ranking = options.ranking ?? "fused";
  const lexical = new LexicalIndex();
  const semantic = options.provider ? new SemanticIndex(options.provider, options.cacheDir, logger) : null;
  /** The served recipes by id (what searches may answer). */
  let indexed = new Map<string, Recipe>();
  /**
   * `indexed`'s ids in id order, sorted on the first empty query after it
   * changed: browsing with an empty query sorted all of them on every call
   * (~11 ms at 20,000 recipes).
   */
  let browseOrder: { readonly of: ReadonlyMap<string, Recipe>; readonly ids: readonly string[] } | null = null;
  const idsInOrder = (snapshot: ReadonlyMap<string, Recipe>): readonly string[] => {
    if (browseOrder?.of !== snapshot) browseOrder = { of: snapshot, ids: [...snapshot.keys()].sort(compareIds) };
    return browseOrder.ids;
  };
  /**
   * The skills and DCCs `indexed` serves, gathered on the first filtered
   * search after it changed: a filter naming neither (a typo, a hostile
   * caller) answers at once instead of ranking every match only to reject
   * it (~5–10 ms per call at 20,000 recipes).
   */
  let served: { readonly of: ReadonlyMap<string, Recipe>; readonly skills: ReadonlySet<string>; readonly dccs: ReadonlySet<string> } | null = null;
  const matchesNothing = (filter: Filter, snapshot: ReadonlyMap<string, Recipe>): boolean => {
    if (filter.skill === undefined && filter.dcc === undefined) return false;
    if (served?.of !== snapshot) {
      const skills = new Set<string>();
      const dccs = new Set<string>();
      for (const recipe of snapshot.values()) {
        skills.add(recipe.skill);
        dccs.add(recipe.dcc);
      }
      served = { of: snapshot, skills, dccs };
    }
    if (filter.skill !== undefined && !served.skills.has(filter.skill)) return true;
    // As acceptor: `any` and `python` recipes match every DCC filter.
    return filter.dcc !== undefined && !served.dccs.has(filter.dcc) && !served.dccs.has("any") && !served.dccs.has("python");
  };
  /** How many of `indexed` are not public (private playbooks). */
  let notPublic = 0;
  /**
   * The recipe object whose document the lexical index holds, or is queued
   * to hold (in `unindexed`), by id (served or warmed).
   */
  const lexicalHolds = new Map<string, Recipe>();
  /**
   * Documents waiting to be put in the lexical index, in the order they came.
   * Tokenizing 20,000 recipes is the largest part of a load on the thread
   * that serves requests (a third of it), so a load publishes without it:
   * the index fills in slices after the publish (`indexSoon`), and a ranked
   * search puts whatever is still queued first (`indexNow`), so every answer
   * is the one a fully built index gives.
   */
  const unindexed = new Map<string, Recipe>();
  let indexing: NodeJS.Immediate | null = null;
  const indexNow = (): void => {
    for (const recipe of unindexed.values()) lexical.put(toDocument(recipe));
    unindexed.clear();
  };
  const indexSlice = (): void => {
    indexing = null;
    if (closed) return;
    const until = performance.now() + INDEX_SLICE_MS;
    for (const [id, recipe] of unindexed) {
      lexical.put(toDocument(recipe));
      unindexed.delete(id);
      if (performance.now() > until) break;
    }
    // A load leaves its postings in the delta log; compacting them once the
    // queue is empty spares the first query (~0.2 s at 20,000 recipes).
    if (unindexed.size > 0) indexSoon();
    else lexical.maintain();
  };
  const indexSoon = (): void => {
    if (indexing !== null || closed) return;
    indexing = setImmediate(indexSlice);
    indexing.unref();
  };
  const queue = (recipe: Recipe): void => {
    // A re-queued id moves to the end, where a put of its new document belongs.
    unindexed.delete(recipe.recipeId);
    unindexed.set(recipe.recipeId, recipe);
  };
  const unqueue = (id: string): void => {
    unindexed.delete(id);
    lexical.remove(id);
  };
  // Catalog snapshots reuse the frozen Recipe objects of unchanged files, so a
  // reload only pays document building and hashing for what it replaced. The
  // content hash is computed only when a new object replaces an indexed one
  // (a first load hashes nothing); views only with a semantic side.
  const hashes = new WeakMap<Recipe, string>();
  const hashOf = (recipe: Recipe, doc?: SearchDocument): string => {
    let hash = hashes.get(recipe);
    if (hash === undefined) {
      hash = contentHash(doc ?? toDocument(recipe));
      hashes.set(recipe, hash);
    }
    return hash;
  };
  const viewsKnown = new WeakMap<Recipe, readonly SemanticView[]>();
  const viewsOf = (recipe: Recipe, doc: () => SearchDocument): readonly SemanticView[] => {
    let views = viewsKnown.get(recipe);
    if (views === undefined) {
      views = embeddingViews(doc()).map((text) => ({ text, hash: textHash(text) }));
      viewsKnown.set(recipe, views);
    }
    return views;
  };
  let revision = 0;
  let closed = false;

  /**
   * Whether `filter` accepts every document the lexical index holds: nothing to filter on,
   * and the index holds only served recipes (no warmed ones awaiting their publish). Read
   * in the same turn as the lexical pass, before any await.
   */
  function acceptsAllHeld(filter: Filter): boolean {
    if (filter.excludeId !== undefined || filter.dcc !== undefined || filter.skill !== undefined || filter.layer !== undefined) return false;
    const v = filter.visibility;
    if (v && v !== "all" && !(v === "public" && notPublic === 0)) return false;
    // Every served id is held (update() keeps them in step), so equal sizes mean equal sets.
    return lexicalHolds.size === indexed.size;
  }

  function hit(snapshot: ReadonlyMap<string, Recipe>, id: string, score: number): SearchHit {
    return { recipe: snapshot.get(id)!, score: round(score) };
  }

  interface Ranking {
    readonly answer: SearchAnswer;
    readonly cosine: ReadonlyMap<string, number>;
    readonly coverage: ReadonlyMap<string, number>;
  }

  /** Synchronous unless a query embedding has to be awaited. */
  function rank(text: string, filter: Filter, limit: number): Ranking | Promise<Ranking> {
    const snapshot = indexed;
    const accept = acceptor(filter, snapshot);
    // The query embedding runs in the provider (a worker or a server) while
    // the lexical side ranks here: start it first so the two overlap.
    const wantSemantic = semantic !== null && semantic.state === "ready" && ranking !== "lexical";
    const queryVector = wantSemantic ? semantic.embedQuery(text) : null;
    // Handled below; without this a rejection during the lexical pass would count as unhandled.
    queryVector?.catch(() => undefined);
    // Fusion needs candidates beyond the page; a lexical answer only its page.
    // A filter with nothing to reject costs a Map lookup per candidate document: skipped.
    const lexicalAccept = acceptsAllHeld(filter) ? ACCEPT_ALL : accept;
    if (ranking !== "semantic") indexNow();
    const lex = ranking === "semantic" ? [] : lexical.search(text, lexicalAccept, queryVector ? FUSION_DEPTH : limit);
    const coverage = new Map(lex.map((m) => [m.id, m.coverage]));
    const lexicalOnly = (): Ranking => {
      // Display score: share of the best raw score, scaled by how much of the
      // query the hit covers, so a lone weak match does not read as 1.0;
      // capped by the previous hit's so scores never rise down the list.
      const top = lex[0]?.raw ?? 1;
      let previous = 1;
      const hits = lex.slice(0, limit).map((m) => hit(snapshot, m.id, (previous = Math.min(previous, (m.raw / top) * m.coverage))));
      return { answer: { mode: "lexical", hits }, cosine: new Map(), coverage };
    };
    if (semantic === null || queryVector === null) return lexicalOnly();
    return queryVector
      .then((vector) => semantic.rank(vector, accept, FUSION_DEPTH, options.semanticViews))
      .then(
        (sem) => {
          const cosine = new Map(sem.map((r) => [r.id, r.score]));
          const lexRanked = lex.map((m) => ({ id: m.id, score: m.raw, coverage: m.coverage }));
          const fused = ranking === "semantic" ? sem.map((r) => ({ id: r.id, score: Math.max(0, r.score) })) : fuse(lexRanked, sem, fusion);
          return { answer: { mode: "hybrid", hits: fused.slice(0, limit).map((f) => hit(snapshot, f.id, f.score)) }, cosine, coverage };
        },
        (err: unknown) => {
          logger.warn({ err: (err as Error).message }, "query embedding failed; answering lexically");
          return lexicalOnly();
        },
      );
  }

  return {
    update(recipes, rev) {
      if (closed) return;
      const next = new Map<string, Recipe>();
      const entries = new Map<string, SemanticEntry>();
      let nextNotPublic = 0;
      for (const recipe of recipes) {
        // Catalog ids are unique; should a duplicate slip through, the first wins.
        if (next.has(recipe.recipeId)) continue;
        const previous = indexed.get(recipe.recipeId);
        let built: SearchDocument | undefined;
        const doc = (): SearchDocument => (built ??= toDocument(recipe));
        const held = lexicalHolds.get(recipe.recipeId);
        // Same object as the index holds: nothing to do. Otherwise compare
        // content with what was served (a reload that re-read an unchanged
        // file); a recipe object seen before but not indexed now (a skill
        // dropped and restored) is indexed afresh.
        if (held !== recipe) {
          if (previous === undefined || previous !== held || hashOf(previous) !== hashOf(recipe, doc())) queue(recipe);
          lexicalHolds.set(recipe.recipeId, recipe);
        }
        next.set(recipe.recipeId, recipe);
        if (recipe.visibility !== "public") nextNotPublic++;
        if (semantic) entries.set(recipe.recipeId, { id: recipe.recipeId, views: viewsOf(recipe, doc) });
      }
      for (const id of lexicalHolds.keys()) {
        if (next.has(id)) continue;
        unqueue(id);
        lexicalHolds.delete(id);
      }
      indexed = next;
      // The old order and facets hold the replaced snapshot: not kept until the next search.
      browseOrder = null;
      served = null;
      notPublic = nextNotPublic;
      revision = rev;
      semantic?.setEntries(entries);
      indexSoon();
    },

    warm(recipes) {
      if (closed) return;
      for (const recipe of recipes) {
        if (indexed.has(recipe.recipeId) || lexicalHolds.get(recipe.recipeId) === recipe) continue;
        // Queued only: the load that warms them is on this thread, and its publish starts the indexing.
        queue(recipe);
        lexicalHolds.set(recipe.recipeId, recipe);
      }
    },

    search(query) {
      const limit = Math.max(0, Math.floor(query.limit));
      const filter: Filter = { dcc: query.dcc, skill: query.skill, layer: query.layer, visibility: query.visibility };
      if (matchesNothing(filter, indexed)) {
        return { mode: query.text.trim() !== "" && semantic !== null && semantic.state === "ready" && ranking !== "lexical" ? "hybrid" : "lexical", hits: [] };
      }
      if (query.text.trim() === "") {
        const snapshot = indexed;
        const accept = acceptor(filter, snapshot);
        const hits: SearchHit[] = [];
        for (const id of idsInOrder(snapshot)) {
          if (hits.length >= limit) break;
          if (accept(id)) hits.push(hit(snapshot, id, 0));
        }
        return { mode: "lexical", hits };
      }
      const ranked = rank(query.text, filter, limit);
      return ranked instanceof Promise ? ranked.then((r) => r.answer) : ranked.answer;
    },

    async similar(text, opts) {
      if (text.trim() === "") return [];
      const filter: Filter = { visibility: opts.visibility, excludeId: opts.excludeId };
      const { answer, cosine, coverage } = await rank(text, filter, Math.max(opts.limit * 4, 20));
      return answer.hits
        .filter((h) => {
          const id = h.recipe.recipeId;
          return (cosine.get(id) ?? 0) >= SIMILAR_MIN_COSINE || (coverage.get(id) ?? 0) >= SIMILAR_MIN_COVERAGE;
        })
        .slice(0, opts.limit);
    },

    status() {
      return {
        lexical: indexed.size === 0 ? "empty" : "ready",
        semantic: semantic ? semantic.state : "off",
        embedded: semantic ? semantic.embedded : 0,
        total: indexed.size,
        revision,
      };
    },

    whenSemanticReady() {
      return semantic ? semantic.whenReady() : Promise.resolve();
    },

    async close() {
      closed = true;
      if (indexing !== null) clearImmediate(indexing);
      indexing = null;
      await semantic?.close();
    },
  };
}

/**
 * Which recipes a search's filters accept (engine.ts): DCC, skill, layer,
 * visibility, one excluded id.
 */

export interface Filter {
  readonly dcc?: string;
  readonly skill?: string;
  readonly layer?: string;
  readonly visibility?: "all" | "public" | "private";
  readonly excludeId?: string;
}

// Searches read one snapshot of `indexed` throughout: an update() landing
// while a query embedding is awaited must not pull recipes from under it.
export function acceptor(filter: Filter, snapshot: ReadonlyMap<string, Recipe>): (id: string) => boolean {
  return (id) => {
    if (id === filter.excludeId) return false;
    const r = snapshot.get(id);
    if (!r) return false;
    // `python` (dcc-mcp-core's default for a skill naming no host) is served
    // to every DCC, so a DCC filter must not hide it either.
    if (filter.dcc !== undefined && r.dcc !== filter.dcc && r.dcc !== "any" && r.dcc !== "python") return false;
    if (filter.skill !== undefined && r.skill !== filter.skill) return false;
    // dcc-mcp-core ranks a skill naming no layer as a domain skill.
    if (filter.layer !== undefined && (r.layer ?? "domain") !== filter.layer) return false;
    if (filter.visibility && filter.visibility !== "all" && r.visibility !== filter.visibility) return false;
    return true;
  };
}
