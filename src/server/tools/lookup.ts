/**
 * Finding what a call names (a public recipe, a skill), or the not_found
 * answer with close names: case-insensitive edit distance or containment.
 */
import type { CatalogSnapshot } from "../../recipes/catalog/catalog.js";
import type { Recipe } from "../../recipes/types.js";
import { fail, type Envelope } from "./envelope.js";

type Lookup<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly envelope: Envelope };

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

/** Close names for not-found answers: case-insensitive edit distance or containment. */
export function closeNames(wanted: string, candidates: Iterable<string>, max = 5): string[] {
  const needle = wanted.toLowerCase();
  const scored: Array<{ name: string; score: number }> = [];
  for (const name of candidates) {
    const hay = name.toLowerCase();
    const distance = editDistance(needle, hay, Math.max(2, Math.floor(needle.length / 3)));
    const contains = needle.length >= 3 && (hay.includes(needle) || needle.includes(hay));
    if (distance !== null) scored.push({ name, score: distance });
    else if (contains) scored.push({ name, score: 100 + Math.abs(hay.length - needle.length) });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return scored.slice(0, max).map((s) => s.name);
}

/** Levenshtein distance, or null once it exceeds `limit` (keeps long names cheap). */
function editDistance(a: string, b: string, limit: number): number | null {
  if (Math.abs(a.length - b.length) > limit) return null;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return null;
    previous = current;
  }
  const result = previous[b.length]!;
  return result <= limit ? result : null;
}

export function notFoundMessage(kind: string, name: string, suggestions: readonly string[]): string {
  const base = `No ${kind} named "${truncate(name)}"`;
  return suggestions.length > 0 ? `${base}. Did you mean: ${suggestions.join(", ")}?` : base;
}

/** Names come from the caller; keep echoed ones short. */
function truncate(value: string): string {
  return value.length > 120 ? `${value.slice(0, 117)}...` : value;
}
