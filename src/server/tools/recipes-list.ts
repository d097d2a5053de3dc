import { countDiagnostics, type CatalogSnapshot } from "../../recipes/catalog/catalog.js";
import { deepFreeze } from "../../util/stable-json.js";
import { objectSchema, READ_ONLY } from "./define.js";
import { ok, withRevision, type Envelope } from "./envelope.js";
import { firstWindow, recipeTool, withSnapshot } from "./context.js";
import { skillNotFound } from "./lookup.js";
import { recipeEntry, type RecipeEntryView } from "../../recipes/api/entry-view.js";
import type { SkillInfo } from "../../skills/types.js";
import { readRecipeUsage, type RecipeUsage, type UsageReading } from "../../recipes/catalog/usage-report.js";

/**
 * recipes__list. Its answer depends on the snapshot alone, and a long one
 * (every skill of a large catalog: ~200 KB at 1,000 skills) is read a window
 * at a time (docs/tools.md), one call per window. So each snapshot's answers
 * for every skill and for a served skill are kept, frozen, and the registry
 * renders each once (keepsAnswers): building and rendering the full list
 * took ~9 ms of every window's call.
 *
 * One skill's answer also carries its recipes' usage, read anew on a first
 * window; a later window of it (resultStart > 0) is cut from the answer the
 * same user's last first window got, so the windows of one read concatenate.
 */
export function createRecipesList() {
  const kept = new WeakMap<CatalogSnapshot, Map<string | undefined, Envelope>>();
  /** Per snapshot, the last answer with usage per user and skill. */
  const withUsage = new WeakMap<CatalogSnapshot, Map<string, Envelope>>();
  return recipeTool({
    ...recipesListDefinition,
    keepsAnswers: true,
    handler: (args, context) =>
      withSnapshot(context, (snapshot) => {
        const skill = args.skill;
        const answers = kept.get(snapshot) ?? new Map<string | undefined, Envelope>();
        let base = answers.get(skill);
        if (base === undefined) {
          const answer = listAnswer(snapshot, skill);
          // Not-found answers are not kept: their names are the caller's, without bound.
          if (!answer.success) return answer;
          base = deepFreeze(withRevision(answer, snapshot.revision));
          answers.set(skill, base);
          kept.set(snapshot, answers);
        }
        if (skill === undefined) return base;
        const key = `${context.caller?.user ?? ""}\n${skill}`;
        const usageAnswers = withUsage.get(snapshot) ?? new Map<string, Envelope>();
        const previous = usageAnswers.get(key);
        if (previous !== undefined && !firstWindow(args)) return previous;
        const recipeIds = (base.context as { recipes: readonly RecipeEntryView[] }).recipes.map((r) => r.recipeId);
        const caller = context.caller;
        return readRecipeUsage({ library: context.library, ...(caller ? { caller: { user: caller.user, playbooks: caller.playbooks } } : {}) }, recipeIds).then(
          (reading) => {
            const answer = deepFreeze(withUsageOf(base, reading));
            usageAnswers.set(key, answer);
            withUsage.set(snapshot, usageAnswers);
            return answer;
          },
        );
      }),
  });
}

/** A skill's answer with its recipes' usage: `usage: {asOf, complete, recipes: {<recipeId>: {total, mine?}}}`, used recipes only. */
function withUsageOf(base: Envelope, reading: UsageReading): Envelope {
  const recipes: Record<string, RecipeUsage> = {};
  for (const [id, usage] of reading.recipes) recipes[id] = usage;
  const context = { ...(base.context as Record<string, unknown>), usage: { asOf: reading.asOf, complete: reading.complete, recipes } };
  return { context, message: base.message, ...(base.revision !== undefined ? { revision: base.revision } : {}), success: true };
}

const recipesListDefinition = {
  name: "recipes__list",
  title: "List recipes",
  description:
    "List recipe skills. Without `skill`: every skill with its recipe count, plus load diagnostics. " +
    "With `skill`: that skill's anchor names, every recipe whole (Markdown anchors with provenance.format " +
    "\"markdown-anchor\", YAML recipes with inputs_schema, steps, output_contract, toolset_profiles, provenance) " +
    "and recipe file paths, and `usage` of its recipes (gets, applies, validations with pass rate, runs by outcome, " +
    "last used; totals over every user, plus `mine` with a users file). Skills show their layer, depends and products.",
  inputSchema: objectSchema({
    skill: { type: "string", minLength: 1, maxLength: 200, description: "Skill name; omit to list every skill." },
  }),
  annotations: READ_ONLY,
};

function listAnswer(snapshot: CatalogSnapshot, skill: string | undefined): Envelope {
  if (skill === undefined) {
    const skills = [...snapshot.skills.values()].map((entry) => ({
      name: entry.info.name,
      description: entry.info.description,
      dcc: entry.info.dcc,
      ...(entry.info.version !== undefined ? { version: entry.info.version } : {}),
      tags: entry.info.tags,
      ...skillFacts(entry.info),
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
  if (entry === undefined) return skillNotFound(snapshot, skill);
  // Every recipe whole, Markdown anchors included (core's list_recipe_entries); long answers are read by window.
  const anchors: string[] = [];
  const recipes: RecipeEntryView[] = [];
  let structured = 0;
  for (const id of entry.recipeIds) {
    const recipe = snapshot.recipes.get(id);
    if (recipe === undefined || recipe.format === "private") continue;
    if (recipe.format === "markdown") anchors.push(recipe.name);
    else structured += 1;
    recipes.push(recipeEntry(recipe));
  }
  return ok(`${anchors.length} anchor(s), ${structured} structured recipe(s) in ${skill}`, {
    skill,
    ...skillFacts(entry.info),
    anchors,
    recipes,
    paths: entry.files,
    diagnostics: entry.diagnostics,
  });
}

/**
 * What `recipes__list` shows of a skill beyond docs/skill-packs.md (dcc-mcp-core's
 * SkillMetadata fields): its `layer`, the skills it `depends` on
 * (`metadata/depends.md` merged) and the `products` it is for. Always
 * present so a client reads one shape: `null` / `[]` when not set.
 */
function skillFacts(info: SkillInfo): { depends: readonly string[]; layer: string | null; products: readonly string[] } {
  return { depends: info.depends ?? [], layer: info.layer ?? null, products: info.products ?? [] };
}
