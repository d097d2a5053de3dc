import { entryAsYaml } from "./yaml-text.js";
import { objectSchema, READ_ONLY } from "./define.js";
import { ok, type Envelope } from "./envelope.js";
import { recipeTool, withSnapshot } from "./context.js";
import { findPublicRecipe } from "./lookup.js";
import { firstWindow, recordUse } from "./record-use.js";
import { provenanceOf, wholeEntry } from "../../recipes/api/entry-view.js";
import type { Recipe } from "../../recipes/types.js";
import { deepFreeze } from "../../util/stable-json.js";

/**
 * Each recipe's answer as last given, frozen with its revision, so that the
 * registry renders it once (keepsAnswers) instead of emitting the YAML text,
 * walking and serializing the whole entry on every call. Held as weakly as
 * the entry it is built from (packs/yaml-recipe.ts): an answer lives while a
 * collection has not taken it, so memory stays what the catalog's in-use
 * entries already cost. A recipe object outlives revisions (a snapshot
 * derived for a playbook write keeps the others): the revision is checked.
 */
const kept = new WeakMap<Recipe, WeakRef<Envelope>>();

export const recipesGet = recipeTool({
  name: "recipes__get",
  title: "Get a recipe",
  description:
    "Get one recipe of a skill by name: a Markdown anchor's content, or a structured YAML recipe " +
    "with its pack-level keys (`tool_routing` resolves canonical tool names). Use before validate/apply.",
  inputSchema: objectSchema(
    {
      skill: { type: "string", minLength: 1, maxLength: 200 },
      anchor: { type: "string", minLength: 1, maxLength: 500, description: "Anchor heading text or YAML recipe name." },
    },
    ["skill", "anchor"],
  ),
  annotations: READ_ONLY,
  keepsAnswers: true,
  handler: (args, context) =>
    withSnapshot(context, (snapshot) => {
      const { skill, anchor } = args;
      const found = findPublicRecipe(snapshot, skill, anchor);
      if (!found.ok) return found.envelope;
      const recipe = found.value;
      if (firstWindow(args)) recordUse(context, context.library, recipe.recipeId, "get");
      // The answer names the skill as asked; only the recipe's own name is an answer of the recipe alone.
      if (skill !== recipe.skill) return answerOf(recipe, skill, snapshot.revision);
      const known = kept.get(recipe)?.deref();
      if (known !== undefined && known.revision === snapshot.revision) return known;
      const answer = deepFreeze(answerOf(recipe, skill, snapshot.revision));
      kept.set(recipe, new WeakRef(answer));
      return answer;
    }),
});

function answerOf(recipe: Recipe, skill: string, revision: number): Envelope {
  if (recipe.format === "markdown") {
    // Keys in sorted order, as the envelope's (see envelope.ts).
    return ok(`Recipe ${recipe.recipeId}`, { anchor: recipe.name, content: recipe.content, format: "markdown", skill }, revision);
  }
  if (recipe.format === "yaml") {
    return ok(
      `Recipe ${recipe.recipeId}`,
      {
        anchor: recipe.name,
        content: entryAsYaml(recipe.entry),
        format: "yaml",
        pack: recipe.pack,
        provenance: provenanceOf(recipe),
        recipe: wholeEntry(recipe),
        skill,
      },
      revision,
    );
  }
  return ok(`Recipe ${recipe.recipeId}`, { anchor: recipe.name, content: recipe.playbook.document, skill }, revision);
}
