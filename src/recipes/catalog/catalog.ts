/**
 * The immutable catalog snapshot of one DCC (docs/skill-packs.md: a request sees one
 * consistent version). Builders return a new frozen snapshot; nothing mutates
 * one after it is published.
 */
import path from "node:path";
import { diagnostic, type Diagnostic } from "../../util/diagnostics.js";
import type { SkillInfo } from "../../skills/types.js";
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
}

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
  return Object.freeze({
    dcc: parts.dcc,
    revision: parts.revision,
    skills: freezeMap(skills),
    recipes: freezeMap(recipes),
    diagnostics: Object.freeze(diagnostics),
    loadedAt: (parts.now ?? new Date()).toISOString(),
  });
}

/** A snapshot with one private playbook added or replaced. */
export function withPlaybook(
  snapshot: CatalogSnapshot,
  recipe: PrivateRecipe,
  revision: number,
): CatalogSnapshot {
  const recipes = new Map(snapshot.recipes);
  recipes.set(recipe.recipeId, recipe);
  return Object.freeze({ ...snapshot, revision, recipes: freezeMap(recipes) });
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
