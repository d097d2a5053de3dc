import { entryAsYaml } from "./yaml-text.js";
import { objectSchema, READ_ONLY } from "./define.js";
import { ok } from "./envelope.js";
import { firstWindow, recipeTool, recordUse, withSnapshot } from "./context.js";
import { findPublicRecipe } from "./lookup.js";
import { provenanceOf, wholeEntry } from "../../recipes/api/entry-view.js";

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
  handler: (args, context) =>
    withSnapshot(context, (snapshot) => {
      const { skill, anchor } = args;
      const found = findPublicRecipe(snapshot, skill, anchor);
      if (!found.ok) return found.envelope;
      const recipe = found.value;
      if (firstWindow(args)) recordUse(context, context.library, recipe.recipeId, "get");
      if (recipe.format === "markdown") {
        // Keys in sorted order, as the envelope's (see envelope.ts).
        return ok(`Recipe ${recipe.recipeId}`, { anchor: recipe.name, content: recipe.content, format: "markdown", skill });
      }
      if (recipe.format === "yaml") {
        return ok(`Recipe ${recipe.recipeId}`, {
          anchor: recipe.name,
          content: entryAsYaml(recipe.entry),
          format: "yaml",
          pack: recipe.pack,
          provenance: provenanceOf(recipe),
          recipe: wholeEntry(recipe),
          skill,
        });
      }
      return ok(`Recipe ${recipe.recipeId}`, { anchor: recipe.name, content: recipe.playbook.document, skill });
    }),
});
