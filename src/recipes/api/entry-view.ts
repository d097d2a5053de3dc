/**
 * A recipe as dcc-mcp-core's `list_recipe_entries` returns it (its
 * `RecipeDefinition.to_dict()`, or the Markdown-anchor form), plus our
 * extras (`recipeId`, `file`, `line`, `format`). Core's `provenance.path`
 * is absolute; ours is skill-relative, since no absolute path reaches a
 * client.
 */
import type { MarkdownRecipe, YamlRecipe } from "../types.js";

interface Provenance {
  readonly format: "recipe-pack" | "markdown-anchor";
  readonly skill: string;
  /** Skill-relative file. */
  readonly path: string;
  readonly line?: number;
}

export function provenanceOf(recipe: MarkdownRecipe | YamlRecipe): Provenance {
  return {
    format: recipe.format === "yaml" ? "recipe-pack" : "markdown-anchor",
    ...(recipe.line !== undefined ? { line: recipe.line } : {}),
    path: recipe.file,
    skill: recipe.skill,
  };
}

/** A recipe as `list_recipe_entries` returns it, plus our `recipeId`, `format`, `file`, `line`. */
export interface RecipeEntryView {
  readonly dcc: string;
  readonly description: string;
  /** Skill-relative file. */
  readonly file: string;
  readonly format: "markdown" | "yaml";
  readonly inputs_schema: unknown;
  readonly line?: number;
  readonly name: string;
  /** A schema, a legacy label, `"markdown_recipe"` for an anchor, or null. */
  readonly output_contract: unknown;
  readonly provenance: Provenance;
  readonly recipeId: string;
  readonly steps: readonly unknown[];
  readonly toolset_profiles: readonly string[];
}

/** Keys in sorted order, as the envelope's (see the tools' envelope.ts). */
export function recipeEntry(recipe: MarkdownRecipe | YamlRecipe): RecipeEntryView {
  const anchor = recipe.format === "markdown";
  return {
    dcc: recipe.dcc,
    description: recipe.description,
    file: recipe.file,
    format: recipe.format,
    inputs_schema: anchor ? {} : recipe.inputsSchema,
    ...(recipe.line !== undefined ? { line: recipe.line } : {}),
    name: recipe.name,
    // Core's label for an anchor, which has no contract of its own.
    output_contract: anchor ? "markdown_recipe" : (recipe.outputContract ?? null),
    provenance: provenanceOf(recipe),
    recipeId: recipe.recipeId,
    steps: anchor ? [] : recipe.steps,
    toolset_profiles: anchor ? [] : recipe.toolsetProfiles,
  };
}

/**
 * The entry as written (every key: `undo`, `recovery` …) with what core's
 * `to_dict` always carries: `toolset_profiles` a list (`[]` when none),
 * `inputs_schema` and `steps` present, and `provenance`. Keys in sorted
 * order; built from the recipe's sorted entry where it keeps one, so that
 * only this top level is new.
 */
export function wholeEntry(recipe: YamlRecipe): Record<string, unknown> {
  const entry = recipe.sortedEntry ?? recipe.entry;
  const sorted = recipe.sortedEntry !== undefined;
  const steps = entry["steps"];
  // In sorted key order, as these four names sort.
  const carried: ReadonlyArray<readonly [string, unknown]> = [
    ["inputs_schema", sorted && entry["inputs_schema"] !== undefined ? entry["inputs_schema"] : recipe.inputsSchema],
    ["provenance", provenanceOf(recipe)],
    ["steps", sorted && Array.isArray(steps) ? steps : recipe.steps],
    ["toolset_profiles", recipe.toolsetProfiles],
  ];
  // A merge of two sorted key lists: the answer is in sorted order (as stable-json
  // writes it) with no copy below this level.
  const out: Record<string, unknown> = {};
  const put = (key: string, value: unknown): void => {
    if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  };
  let next = 0;
  for (const key of Object.keys(entry)) {
    while (next < carried.length && carried[next]![0] <= key) {
      put(carried[next]![0], carried[next]![1]);
      next += 1;
    }
    if (key !== "inputs_schema" && key !== "provenance" && key !== "steps" && key !== "toolset_profiles") put(key, entry[key]);
  }
  for (; next < carried.length; next += 1) put(carried[next]![0], carried[next]![1]);
  return out;
}
