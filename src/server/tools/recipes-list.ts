import { countDiagnostics } from "../../recipes/catalog.js";
import { objectSchema, READ_ONLY, type ToolDefinition } from "./define.js";
import { fail, ok } from "./envelope.js";
import { withSnapshot, type RecipeToolContext } from "./context.js";
import { closeNames, notFoundMessage } from "./suggest.js";

export const recipesList: ToolDefinition<RecipeToolContext> = {
  name: "recipes__list",
  title: "List recipes",
  description:
    "List recipe skills. Without `skill`: every skill with its recipe count, plus load diagnostics. " +
    "With `skill`: that skill's Markdown anchors, structured YAML recipes and recipe file paths.",
  inputSchema: objectSchema({
    skill: { type: "string", minLength: 1, maxLength: 200, description: "Skill name; omit to list every skill." },
  }),
  annotations: READ_ONLY,
  handler: (args, context) =>
    withSnapshot(context, (snapshot) => {
      const skill = args.skill as string | undefined;
      if (skill === undefined) {
        const skills = [...snapshot.skills.values()].map((entry) => ({
          name: entry.info.name,
          description: entry.info.description,
          dcc: entry.info.dcc,
          ...(entry.info.version !== undefined ? { version: entry.info.version } : {}),
          tags: entry.info.tags,
          recipe_count: entry.recipeIds.length,
          paths: entry.files,
        }));
        const totals = countDiagnostics(snapshot.diagnostics);
        return ok(`${skills.length} skill(s), ${snapshot.recipes.size} recipe(s)`, {
          dcc: snapshot.dcc,
          skills,
          diagnostics: snapshot.diagnostics,
          diagnostic_totals: totals,
        });
      }
      const entry = snapshot.skills.get(skill);
      if (entry === undefined) {
        const suggestions = closeNames(skill, snapshot.skills.keys());
        return fail("not_found", notFoundMessage("skill", skill, suggestions), { skill, suggestions });
      }
      const anchors: string[] = [];
      const recipes: Array<Record<string, unknown>> = [];
      for (const id of entry.recipeIds) {
        const recipe = snapshot.recipes.get(id);
        if (recipe === undefined) continue;
        if (recipe.format === "markdown") anchors.push(recipe.name);
        else if (recipe.format === "yaml") {
          recipes.push({ name: recipe.name, dcc: recipe.dcc, description: recipe.description, file: recipe.file });
        }
      }
      return ok(`${anchors.length} anchor(s), ${recipes.length} structured recipe(s) in ${skill}`, {
        skill,
        anchors,
        recipes,
        paths: entry.files,
        diagnostics: entry.diagnostics,
      });
    }),
};
