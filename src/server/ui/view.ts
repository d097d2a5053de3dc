/**
 * What the catalog page shows, as plain JSON built from one immutable
 * catalog snapshot: skills, public recipes, diagnostics, and one recipe's
 * view. Read-only: viewing a recipe here records no usage (recipes__get
 * does; a person browsing is not an agent using a recipe).
 */
import type { CatalogSnapshot } from "../../recipes/catalog/catalog.js";
import type { Recipe } from "../../recipes/types.js";
import { entryAsYaml } from "../tools/yaml-text.js";

interface CatalogView {
  readonly dcc: string;
  readonly revision: number;
  readonly loadedAt: string;
  readonly skills: readonly { name: string; description: string; dcc: string; version: string | null; tags: readonly string[]; recipes: number; diagnostics: number }[];
  readonly recipes: readonly { recipeId: string; skill: string; name: string; format: string; description: string }[];
  readonly diagnostics: CatalogSnapshot["diagnostics"];
}

export function catalogView(snapshot: CatalogSnapshot): CatalogView {
  const skills = [...snapshot.skills.values()].map((s) => ({
    name: s.info.name,
    description: s.info.description,
    dcc: s.info.dcc,
    version: s.info.version ?? null,
    tags: s.info.tags ?? [],
    recipes: s.recipeIds.length,
    diagnostics: s.diagnostics.length,
  }));
  const recipes = [];
  for (const r of snapshot.recipes.values()) {
    if (r.visibility !== "public") continue;
    recipes.push({ recipeId: r.recipeId, skill: r.skill, name: r.name, format: r.format, description: r.description });
  }
  return { dcc: snapshot.dcc, revision: snapshot.revision, loadedAt: snapshot.loadedAt, skills, recipes, diagnostics: snapshot.diagnostics };
}

type RecipeView =
  | { readonly format: "markdown"; readonly recipeId: string; readonly skill: string; readonly name: string; readonly file: string; readonly markdown: string }
  | {
      readonly format: "yaml";
      readonly recipeId: string;
      readonly skill: string;
      readonly name: string;
      readonly file: string;
      readonly description: string;
      readonly yaml: string;
      readonly inputsSchema: unknown;
      readonly outputContract: unknown;
      /** The recipe's `undo` (`single-step`, `none`, `manual` …): `none` needs an explicit confirm to run. */
      readonly undo: string | null;
    };

/** The public recipe `recipeId`, or null. */
export function recipeView(snapshot: CatalogSnapshot, recipeId: string): RecipeView | null {
  const recipe: Recipe | undefined = snapshot.recipes.get(recipeId);
  if (recipe === undefined || recipe.visibility !== "public") return null;
  const base = { recipeId: recipe.recipeId, skill: recipe.skill, name: recipe.name, file: recipe.file };
  if (recipe.format === "markdown") return { format: "markdown", ...base, markdown: recipe.content };
  if (recipe.format === "yaml") {
    return {
      format: "yaml",
      ...base,
      description: recipe.description,
      yaml: entryAsYaml(recipe.entry),
      inputsSchema: recipe.inputsSchema,
      outputContract: recipe.outputContract ?? null,
      undo: typeof recipe.entry["undo"] === "string" ? recipe.entry["undo"] : null,
    };
  }
  return null;
}
