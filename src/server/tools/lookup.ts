import type { CatalogSnapshot } from "../../recipes/catalog/catalog.js";
import type { Recipe } from "../../recipes/types.js";
import { fail, type Envelope } from "./envelope.js";
import { closeNames, notFoundMessage } from "./suggest.js";

export type Lookup<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly envelope: Envelope };

/** A public recipe by skill + name, or a not_found envelope with close names. */
export function findPublicRecipe(snapshot: CatalogSnapshot, skill: string, name: string): Lookup<Recipe> {
  const entry = snapshot.skills.get(skill);
  if (entry === undefined) return { ok: false, envelope: skillNotFound(snapshot, skill) };
  const recipe = snapshot.recipes.get(`${skill}/${name}`);
  if (recipe === undefined || recipe.visibility !== "public") {
    const names = entry.recipeIds.map((id) => snapshot.recipes.get(id)?.name ?? "").filter((n) => n !== "");
    const suggestions = closeNames(name, names);
    return { ok: false, envelope: fail("not_found", notFoundMessage(`recipe in skill "${skill}"`, name, suggestions), { skill, suggestions }) };
  }
  return { ok: true, value: recipe };
}

/** The not_found envelope for an unknown skill, with close names. */
export function skillNotFound(snapshot: CatalogSnapshot, skill: string): Envelope {
  const suggestions = closeNames(skill, snapshot.skills.keys());
  return fail("not_found", notFoundMessage("skill", skill, suggestions), { skill, suggestions });
}
