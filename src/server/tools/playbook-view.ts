/**
 * Every recipe, public or private, seen through the playbook shape of the
 * `recipe` tool (docs/tools.md): public Markdown anchors and YAML recipes are
 * mapped onto title/summary/whenToUse/steps/acceptanceCriteria/tags/document.
 */
import { entryAsYaml } from "./yaml-text.js";
import { playbookFields } from "../../recipes/store/playbook-values.js";
import type { UsageEntry } from "../../recipes/store/usage.js";
import type { Recipe } from "../../recipes/types.js";

export interface RecipeSummary {
  readonly recipeId: string;
  readonly title: string;
  readonly summary: string;
  readonly visibility: "public" | "private";
  readonly skill?: string;
  readonly tags: readonly string[];
  readonly score: number;
}

/** A search (or `similar`) hit; `skill` only for public recipes. */
export function summarize(recipe: Recipe, score: number): RecipeSummary {
  return {
    recipeId: recipe.recipeId,
    title: recipe.format === "private" ? recipe.playbook.title : recipe.name,
    summary: recipe.format === "private" ? recipe.playbook.summary : recipe.description,
    visibility: recipe.visibility,
    ...(recipe.visibility === "public" ? { skill: recipe.skill } : {}),
    tags: [...recipe.tags],
    score,
  };
}

/** The full playbook view `get` returns. */
export function playbookView(recipe: Recipe, usage: UsageEntry | undefined): Record<string, unknown> {
  const used = { count: usage?.count ?? 0, lastUsedAt: usage?.lastUsedAt ?? null };
  if (recipe.format === "private") {
    const p = recipe.playbook;
    return {
      recipeId: recipe.recipeId,
      visibility: "private",
      format: "private",
      ...playbookFields(p),
      revision: p.revision,
      createdAt: p.createdAt,
      updatedAt: p.updatedAt,
      usage: used,
    };
  }
  const common = {
    recipeId: recipe.recipeId,
    visibility: "public",
    skill: recipe.skill,
    title: recipe.name,
    summary: recipe.description,
    // A public recipe has no whenToUse of its own; the skill's search hint says when to reach for it.
    whenToUse: recipe.searchHint ?? recipe.description,
    acceptanceCriteria: [],
    tags: [...recipe.tags],
    usage: used,
  };
  if (recipe.format === "markdown") {
    return { ...common, format: "markdown", steps: [], document: recipe.content };
  }
  return {
    ...common,
    format: "yaml",
    steps: recipe.steps,
    inputs_schema: recipe.inputsSchema,
    output_contract: recipe.outputContract ?? null,
    pack: recipe.pack,
    document: entryAsYaml(recipe.entry),
  };
}
