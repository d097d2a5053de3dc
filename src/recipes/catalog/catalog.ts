/**
 * The immutable catalog snapshot of one DCC (docs/skill-packs.md: a request sees one
 * consistent version). Builders return a new frozen snapshot; nothing mutates
 * one after it is published.
 *
 * A snapshot carries its search: `snapshot.search(query)` asks the index it
 * was published with and resolves every hit against the snapshot itself
 * (the index may be one publish ahead: a newer recipe never enters an older
 * revision's answer). One rule ranks for every caller (recipes__search, the
 * `recipe` tool's search, the catalog page): score, then on equal scores the
 * layer order of dcc-mcp-core's rank policy (domain, infrastructure,
 * thin-harness, example), then the engine's order. Browsing (no query) keeps
 * recipeId order.
 */
import path from "node:path";
import { diagnostic, type Diagnostic } from "../../util/diagnostics.js";
import type { SkillInfo } from "../../skills/types.js";
import type { SearchEngine } from "../search/engine.js";
import type { SearchAnswer, SearchHit, SearchMode, SearchQuery } from "../search/types.js";
import type { PrivateRecipe, Recipe } from "../types.js";

export interface CatalogSnapshot {
  readonly dcc: string;
  readonly revision: number;
  /** Skills by name, in discovery (priority) order. */
  readonly skills: ReadonlyMap<string, SkillEntry>;
  readonly recipes: ReadonlyMap<string, Recipe>;
  /** Discovery, loader and private-store diagnostics, in a stable order. */
  readonly diagnostics: readonly Diagnostic[];
  readonly loadedAt: string;
  /** Ranked hits of `query`, each the snapshot's own recipe; synchronous when the index answers synchronously (lexical). */
  search(query: SearchQuery): ResolvedAnswer | Promise<ResolvedAnswer>;
}

export interface ResolvedAnswer {
  readonly mode: SearchMode;
  /** The revision of the snapshot every hit was resolved against. */
  readonly revision: number;
  /** Each hit's recipe is the snapshot's own. */
  readonly hits: readonly SearchHit[];
}

/** What a snapshot searches: the library's engine (absent: a snapshot that finds nothing). */
export type SearchIndex = Pick<SearchEngine, "search">;

/** A skill as loaded; `files` are absolute recipe file paths as the loader resolved them (never sent to clients). */
export interface LoadedSkill {
  readonly info: SkillInfo;
  readonly recipes: readonly Recipe[];
  readonly diagnostics: readonly Diagnostic[];
  readonly files: readonly string[];
}

/** A skill as a snapshot serves it: `recipeIds` in file order (first occurrence wins), `files` skill-relative and `/`-separated. */
export interface SkillEntry extends Omit<LoadedSkill, "recipes"> {
  readonly recipeIds: readonly string[];
}

/** What the incremental catalog (reload.ts) gathers for a snapshot, in discovery order. */
export interface SnapshotInputs {
  readonly skills: readonly LoadedSkill[];
  readonly discoveryDiagnostics: readonly Diagnostic[];
  readonly privateRecipes: readonly PrivateRecipe[];
  readonly privateDiagnostics: readonly Diagnostic[];
}

export interface SnapshotParts extends SnapshotInputs {
  readonly dcc: string;
  readonly revision: number;
  readonly now?: Date;
  /** The index published with this snapshot. */
  readonly index?: SearchIndex;
}

export function buildSnapshot(parts: SnapshotParts): CatalogSnapshot {
  const skills = new Map<string, SkillEntry>();
  const recipes = new Map<string, Recipe>();
  const diagnostics: Diagnostic[] = [...parts.discoveryDiagnostics];
  for (const loaded of parts.skills) {
    const recipeIds: string[] = [];
    for (const recipe of loaded.recipes) {
      if (recipes.has(recipe.recipeId)) {
        // Unreachable with valid skill names; kept so a collision is never silent.
        diagnostics.push(
          diagnostic("warning", "duplicate_recipe", `recipe id "${recipe.recipeId}" is already taken; this one is not served`, {
            skill: recipe.skill,
            file: recipe.file,
            ...(recipe.line !== undefined ? { line: recipe.line } : {}),
          }),
        );
        continue;
      }
      recipes.set(recipe.recipeId, recipe);
      recipeIds.push(recipe.recipeId);
    }
    skills.set(
      loaded.info.name,
      Object.freeze({
        info: loaded.info,
        recipeIds: Object.freeze(recipeIds),
        files: Object.freeze(loaded.files.map((file) => skillRelativePath(loaded.info.dir, file))),
        diagnostics: Object.freeze([...loaded.diagnostics]),
      }),
    );
    diagnostics.push(...loaded.diagnostics);
  }
  for (const recipe of parts.privateRecipes) recipes.set(recipe.recipeId, recipe);
  diagnostics.push(...parts.privateDiagnostics);
  return new IndexedSnapshot(
    {
      dcc: parts.dcc,
      revision: parts.revision,
      skills: freezeMap(skills),
      recipes: freezeMap(recipes),
      diagnostics: Object.freeze(diagnostics),
      loadedAt: (parts.now ?? new Date()).toISOString(),
    },
    parts.index ?? NO_INDEX,
  );
}

/** A snapshot with one private playbook added or replaced, searching the same index. */
export function withPlaybook(
  snapshot: CatalogSnapshot,
  recipe: PrivateRecipe,
  revision: number,
): CatalogSnapshot {
  const recipes = new Map(snapshot.recipes);
  recipes.set(recipe.recipeId, recipe);
  return IndexedSnapshot.derive(snapshot, { revision, recipes: freezeMap(recipes) });
}

const NO_INDEX: SearchIndex = { search: () => ({ mode: "lexical", hits: [] }) };

/** A snapshot's data, frozen, and the index it was published with (a private field: the data stays plain). */
class IndexedSnapshot implements CatalogSnapshot {
  readonly dcc: string;
  readonly revision: number;
  readonly skills: ReadonlyMap<string, SkillEntry>;
  readonly recipes: ReadonlyMap<string, Recipe>;
  readonly diagnostics: readonly Diagnostic[];
  readonly loadedAt: string;
  readonly #index: SearchIndex;

  constructor(data: Omit<CatalogSnapshot, "search">, index: SearchIndex) {
    this.dcc = data.dcc;
    this.revision = data.revision;
    this.skills = data.skills;
    this.recipes = data.recipes;
    this.diagnostics = data.diagnostics;
    this.loadedAt = data.loadedAt;
    this.#index = index;
    Object.freeze(this);
  }

  /** `snapshot` with a new revision and recipes, searching the index `snapshot` searched. */
  static derive(snapshot: CatalogSnapshot, changes: Pick<CatalogSnapshot, "revision" | "recipes">): CatalogSnapshot {
    const { dcc, skills, diagnostics, loadedAt } = snapshot;
    return new IndexedSnapshot({ dcc, skills, diagnostics, loadedAt, ...changes }, snapshot instanceof IndexedSnapshot ? snapshot.#index : NO_INDEX);
  }

  search(query: SearchQuery): ResolvedAnswer | Promise<ResolvedAnswer> {
    const answer = this.#index.search(query);
    const browsing = query.text.trim() === "";
    return answer instanceof Promise ? answer.then((settled) => resolve(settled, this, browsing)) : resolve(answer, this, browsing);
  }
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

export function countDiagnostics(diagnostics: readonly Diagnostic[]): { errors: number; warnings: number } {
  let errors = 0;
  for (const d of diagnostics) if (d.severity === "error") errors += 1;
  return { errors, warnings: diagnostics.length - errors };
}

export { skillServesDcc } from "../../skills/discover.js";

/** Clients see skill-relative, `/`-separated paths only (docs/skill-packs.md). */
function skillRelativePath(skillDir: string, file: string): string {
  return path.isAbsolute(file) ? path.relative(skillDir, file).split(path.sep).join("/") : file;
}

function freezeMap<K, V>(map: Map<K, V>): ReadonlyMap<K, V> {
  // A ReadonlyMap type alone would not stop a cast-and-mutate; the proxy-free
  // way is to disable the mutators on this instance.
  const frozen = map as Map<K, V>;
  const refuse = (): never => {
    throw new TypeError("catalog snapshots are immutable");
  };
  Object.defineProperties(frozen, {
    set: { value: refuse },
    delete: { value: refuse },
    clear: { value: refuse },
  });
  return Object.freeze(frozen);
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
