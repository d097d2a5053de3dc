/**
 * Every recipe, public or private, seen through the playbook shape of the
 * `recipe` tool (docs/tools.md): public Markdown anchors and YAML recipes are
 * mapped onto title/summary/whenToUse/steps/acceptanceCriteria/tags/document.
 */
import { entryAsYaml } from "./yaml-text.js";
import { playbookFields } from "../../recipes/store/playbook-values.js";
import { figuresOf, type Tally } from "../../recipes/store/usage-counts.js";
import type { Recipe } from "../../recipes/types.js";
import { PLAYBOOK_LIMITS } from "../../recipes/store/limits.js";

export interface RecipeSummary {
  readonly recipeId: string;
  readonly title: string;
  readonly summary: string;
  readonly visibility: "public" | "private";
  readonly skill?: string;
  readonly tags: readonly string[];
  readonly score: number;
}

/**
 * A search (or `similar`) hit; `skill` only for public recipes. Hits list
 * many recipes in one answer, so each is held to the stored-string bounds
 * (limits.ts) even when what it was read from is older or hand-written and
 * longer: one oversized playbook cannot swell every answer it appears in.
 */
export function summarize(recipe: Recipe, score: number): RecipeSummary {
  return {
    recipeId: recipe.recipeId,
    title: clip(recipe.format === "private" ? recipe.playbook.title : recipe.name, PLAYBOOK_LIMITS.title),
    summary: clip(recipe.format === "private" ? recipe.playbook.summary : recipe.description, PLAYBOOK_LIMITS.summary),
    visibility: recipe.visibility,
    ...(recipe.visibility === "public" ? { skill: recipe.skill } : {}),
    tags: recipe.tags.slice(0, PLAYBOOK_LIMITS.tags).map((tag) => clip(tag, PLAYBOOK_LIMITS.tag)),
    score,
  };
}

/** At most `max` UTF-16 units, never splitting a surrogate pair, with "…" when cut. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 2] ?? "") ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}

/** The full playbook view `get` returns. */
export function playbookView(recipe: Recipe, usage: Tally | undefined): Record<string, unknown> {
  // Totals as this process knows them (usage-store.ts `get`): every user's uses, read at start and kept up by its own.
  const used = figuresOf(usage);
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
