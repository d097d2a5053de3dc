/**
 * Semantic propagation between two replicas for bench/replicas.ts: writer A
 * ranks lexically only, reader B with the local model. Each sample creates a
 * playbook on A (the tyre text of test/e2e/paraphrases.ts) and then updates it
 * to the cat text; B is timed twice per write: when it publishes the change
 * (the lexical leg: searchable by its words) and when its search for a
 * paraphrase sharing no word with the text answers it (the semantic leg:
 * B has embedded the new text). A's lexical search for both paraphrases is
 * checked to miss, so only B's vectors can answer them; and a document is
 * ranked semantically only once its current primary view is embedded, so the
 * update is timed on the new text's vector, not the old one's.
 */
import type { RecipeLibrary } from "../../src/recipes/catalog/library.js";
import type { PlaybookDraft } from "../../src/recipes/store/playbook-values.js";
import { CAT, TYRE, type Topic } from "../../test/e2e/paraphrases.js";

/** B's semantic side ranks at most this many candidates (engine.ts FUSION_DEPTH): every sample must fit. */
const SEMANTIC_DEPTH = 100;
/** How often B's search is polled for the semantic leg: its resolution. Each poll at 20,000 recipes scans every vector (~2 ms): polling every 2 ms kept B busy with the bench's own searches. */
const POLL_MS = 10;

export interface LegTimes {
  readonly lexical: number[];
  readonly semantic: number[];
}

const draftOf = (t: Topic): PlaybookDraft => t.patch as unknown as PlaybookDraft;

/** Resolves (performance.now()) when `library` publishes `recipeId` at `revision` or later. */
export function published(library: RecipeLibrary, recipeId: string, revision: number): Promise<number> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      const r = library.current()?.recipes.get(recipeId);
      return r?.format === "private" && r.playbook.revision >= revision;
    };
    if (check()) return resolve(performance.now());
    const off = library.onChange(() => {
      if (check()) {
        off();
        resolve(performance.now());
      }
    });
  });
}

async function answers(library: RecipeLibrary, query: string, recipeId: string): Promise<boolean> {
  const found = await library.search.search({ text: query, limit: SEMANTIC_DEPTH, visibility: "private" });
  return found.mode === "hybrid" && found.hits.some((h) => h.recipe.recipeId === recipeId);
}

/** Resolves (performance.now()) when B's search for `query` answers `recipeId`; rejects after `timeoutMs`. */
async function semanticallyFound(library: RecipeLibrary, query: string, recipeId: string, timeoutMs = 30_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (!(await answers(library, query, recipeId))) {
    if (performance.now() > deadline) throw new Error(`B's semantic search never answered ${recipeId} for "${query}"`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return performance.now();
}

async function lexicalMisses(a: RecipeLibrary, recipeId: string): Promise<void> {
  for (const q of [TYRE.query, CAT.query]) {
    const found = await a.search.search({ text: q, limit: SEMANTIC_DEPTH, visibility: "private" });
    if (found.hits.some((h) => h.recipe.recipeId === recipeId)) throw new Error(`A's lexical search finds ${recipeId} for "${q}": not a semantic-only query`);
  }
}

export async function semanticPropagation(a: RecipeLibrary, b: RecipeLibrary, samples: number): Promise<{ create: LegTimes; update: LegTimes }> {
  await b.search.whenSemanticReady();
  if (b.search.status().semantic !== "ready") throw new Error(`B's semantic side is ${b.search.status().semantic}`);
  const create: LegTimes = { lexical: [], semantic: [] };
  const update: LegTimes = { lexical: [], semantic: [] };
  for (let i = 0; i < samples; i++) {
    const held = [...(b.current()?.recipes.values() ?? [])].filter((r) => r.format === "private").length;
    if (held >= SEMANTIC_DEPTH) throw new Error(`B holds ${held} playbooks: its semantic side ranks only ${SEMANTIC_DEPTH}, a new one could be missed`);
    const t0 = performance.now();
    const made = await a.createPlaybook(draftOf(TYRE));
    if (!made.ok) throw new Error(made.message);
    const id = `private/${made.playbook.slug}`;
    create.lexical.push((await published(b, id, 1)) - t0);
    create.semantic.push((await semanticallyFound(b, TYRE.query, id)) - t0);
    if (i === 0) await lexicalMisses(a, id);

    const t1 = performance.now();
    const changed = await a.updatePlaybook(made.playbook.slug, draftOf(CAT), 1);
    if (!changed.ok) throw new Error(changed.message);
    update.lexical.push((await published(b, id, 2)) - t1);
    // Polled only once B serves revision 2: until then the old text's vector answers every query too.
    update.semantic.push((await semanticallyFound(b, CAT.query, id)) - t1);
    if (i === 0) await lexicalMisses(a, id);
  }
  return { create, update };
}
