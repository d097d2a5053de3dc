/**
 * The seed's Recipes API (dcc-mcp-core `dcc_mcp_core.recipes`) as async
 * TypeScript functions over a scanned skill. None throws for a missing or
 * malformed file: they return what the seed says (empty list, null); the
 * daemon and lint report the problems as diagnostics.
 */
import path from "node:path";
import { stat } from "node:fs/promises";
import { resolveRecipePaths } from "../../skills/recipe-paths.js";
import type { SkillInfo } from "../../skills/types.js";
import { isYamlFile, loadRecipeFile, loadSkillRecipes } from "../packs/loader.js";
import { recipeEntry, type RecipeEntryView } from "./entry-view.js";
import type { Recipe, YamlRecipe } from "../types.js";

/** A structured YAML recipe, as the seed's `RecipeDefinition`. */
export type RecipeDefinition = YamlRecipe;

/**
 * One row of `listRecipeEntries`: the entry whole as dcc-mcp-core's
 * `list_recipe_entries` returns it (a Markdown anchor with
 * `provenance.format: "markdown-anchor"`), plus our `recipeId`, `format`,
 * `file`, `line`.
 */
export type RecipeEntry = RecipeEntryView;

/** Absolute paths of every recipe file the skill's metadata names (names and globs, sorted, de-duplicated). */
export async function getRecipesPaths(skill: SkillInfo): Promise<string[]> {
  return (await resolveRecipePaths(skill.dir, skill.recipePatterns, skill.name)).files;
}

/** The first recipe file of the skill, or null when it names none that exists. */
export async function getRecipesPath(skill: SkillInfo): Promise<string | null> {
  return (await getRecipesPaths(skill))[0] ?? null;
}

/**
 * Structured recipes of one YAML pack file. The skill is the one containing
 * the file when given, else a stand-in named after the file's directory.
 */
export async function loadRecipePack(file: string, skill?: SkillInfo): Promise<RecipeDefinition[]> {
  const absolute = path.resolve(file);
  if (!isYamlFile(absolute)) return [];
  const exists = await stat(absolute).then((s) => s.isFile(), () => false);
  if (!exists) return [];
  const result = await loadRecipeFile(skill ?? standInSkill(path.dirname(absolute)), absolute);
  return result.recipes.filter((r): r is YamlRecipe => r.format === "yaml");
}

/** Every recipe of a skill (Markdown anchors and YAML entries) as summary rows. */
export async function listRecipeEntries(skill: SkillInfo): Promise<RecipeEntry[]> {
  const { recipes } = await loadSkillRecipes(skill);
  return recipes.filter(isPublic).map((r) => recipeEntry(r));
}

/** The full recipe of a skill by name (anchor text or YAML name), or null. */
export async function findRecipeEntry(skill: SkillInfo, name: string): Promise<Recipe | null> {
  const { recipes } = await loadSkillRecipes(skill);
  return recipes.find((r) => r.name === name) ?? null;
}

function isPublic(recipe: Recipe): recipe is Exclude<Recipe, { format: "private" }> {
  return recipe.format !== "private";
}

function standInSkill(dir: string): SkillInfo {
  return {
    name: path.basename(dir),
    dir,
    root: dir,
    rootIndex: 0,
    description: "",
    dcc: "python",
    tags: [],
    recipePatterns: [],
    dccMetadata: {},
    metadata: {},
    body: "",
  };
}
