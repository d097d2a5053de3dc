/**
 * recipes__run: runs a public YAML recipe on the DCC's own MCP server and
 * proves the result against its output_contract (the engine is
 * src/recipes/run). Listed only on the endpoints of DCCs with a
 * `--dcc-endpoint`. The answer's context is the run report:
 * `{run_id, status, steps, receipt, output_valid, output_errors, recovery?}`.
 */
import { planRun, aliasOf } from "../../recipes/run/resolve.js";
import type { RunOutcome } from "../../recipes/run/types.js";
import type { YamlRecipe } from "../../recipes/types.js";
import type { CatalogSnapshot } from "../../recipes/catalog/catalog.js";
import { objectSchema } from "./define.js";
import { fail, ok, type Envelope } from "./envelope.js";
import { recipeTool, recordUse, withSnapshot, type RecipeToolContext } from "./context.js";
import { findPublicRecipe } from "./lookup.js";
import { RUN_COUNTER } from "../../recipes/store/usage-counts.js";
import { checkAgainst, STRUCTURED_RECIPE_FIELDS } from "./structured.js";

/** The longest whole-run bound a caller may ask for; the server's request timeout still ends the call earlier. */
const MAX_RUN_TIMEOUT_MS = 3_600_000;

/** The DCC's own recipe `adapter_recipe_aliases` names, when the catalog holds it and `inputs` satisfy it. */
function preferredRecipe(snapshot: CatalogSnapshot, recipe: YamlRecipe, dcc: string, inputs: unknown): { recipe: YamlRecipe; alias?: { from: string; to: string } } {
  const name = aliasOf(recipe, dcc);
  if (name === null) return { recipe };
  for (const candidate of snapshot.recipes.values()) {
    if (candidate.format !== "yaml" || candidate.visibility !== "public" || candidate.name !== name || candidate.dcc !== dcc) continue;
    const check = checkAgainst(candidate.inputValidator, inputs, "input");
    if (check.ok && check.errors.length === 0) return { recipe: candidate, alias: { from: recipe.recipeId, to: candidate.recipeId } };
  }
  return { recipe };
}

/**
 * A recipe whose undo is `none` runs with `confirm: true`, or once the
 * client's user says yes (elicitation, where the client declared it);
 * null: go ahead, else the refusal. Nothing has reached the DCC yet.
 */
async function confirmIrreversible(context: RecipeToolContext, recipe: YamlRecipe, dcc: string): Promise<Envelope | null> {
  const facts = { skill: recipe.skill, recipe: recipe.name, undo: "none" };
  const why = `${recipe.recipeId} declares undo: none (its changes cannot be rolled back)`;
  if (context.confirm === undefined) {
    return fail("invalid_input", `${why}: pass confirm: true to run it (this client cannot be asked: it declared no elicitation capability)`, { ...facts, confirmation: "unsupported" });
  }
  const answer = await context.confirm(`Run ${recipe.recipeId} on ${dcc}? ${why}.`, context.signal);
  if (answer.kind === "confirmed") return null;
  if (answer.kind === "asked") return fail("invalid_input", `${why}: waiting for the user's confirmation`, { ...facts, confirmation: "asked" });
  return fail("invalid_input", `${why}: not run, ${answer.message}; pass confirm: true to run it`, { ...facts, confirmation: answer.reason });
}

function answer(outcome: RunOutcome, facts: Record<string, unknown>): Envelope {
  const context = { ...outcome.report, ...facts, ...(outcome.detail ?? {}) };
  return outcome.error === undefined ? ok(outcome.message, context) : fail(outcome.error, outcome.message, context);
}

async function run(
  context: RecipeToolContext,
  snapshot: CatalogSnapshot,
  args: { skill: string; recipe: string; inputs: unknown; dryRun?: boolean; confirm?: boolean; timeoutMs?: number },
): Promise<Envelope> {
  const runner = context.runner;
  if (runner === undefined) return fail("invalid_input", "This endpoint's DCC has no --dcc-endpoint: recipes cannot run here; use recipes__apply");
  if (args.skill === "private" || args.recipe.startsWith("private/")) {
    return fail("invalid_input", "Only public YAML recipes run; a private playbook is prose for an agent to follow", { skill: args.skill, recipe: args.recipe });
  }
  const found = findPublicRecipe(snapshot, args.skill, args.recipe);
  if (!found.ok) return found.envelope;
  if (found.value.format !== "yaml") {
    return fail("invalid_input", `Recipe "${found.value.recipeId}" is a Markdown anchor; only structured YAML recipes run`, { skill: args.skill, recipe: args.recipe });
  }
  const chosen = preferredRecipe(snapshot, found.value, runner.dcc, args.inputs);
  const recipe = chosen.recipe;
  const check = checkAgainst(recipe.inputValidator, args.inputs, "input");
  if (!check.ok || check.errors.length > 0) {
    const message = check.ok ? `Invalid inputs for ${recipe.recipeId}: ${check.errors.slice(0, 3).join("; ")}` : "Recipe input schema is invalid";
    return fail("invalid_input", message, { errors: check.errors, skill: recipe.skill, recipe: recipe.name });
  }
  const dryRun = args.dryRun === true;
  const planned = planRun(recipe, args.inputs, runner.dcc, chosen.alias);
  if (!planned.ok) return fail(planned.code, planned.message, { ...planned.detail, skill: recipe.skill, recipe: recipe.name });
  if (recipe.entry["undo"] === "none" && args.confirm !== true && !dryRun) {
    const refused = await confirmIrreversible(context, recipe, runner.dcc);
    if (refused !== null) return refused;
  }

  const started = performance.now();
  const outcome = await runner.run({
    plan: planned.plan,
    contract: recipe.outputValidator,
    dryRun,
    ...(args.timeoutMs !== undefined ? { timeoutMs: args.timeoutMs } : {}),
    ...(context.signal !== undefined ? { signal: context.signal } : {}),
    ...(context.progress !== undefined ? { progress: context.progress } : {}),
  });
  const { report } = outcome;
  // One line per run: outcome and timings, never arguments, results or headers.
  context.logger.info(
    {
      run_id: report.run_id,
      dcc: runner.dcc,
      recipeId: recipe.recipeId,
      status: report.status,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      steps: report.steps.filter((s) => s.status !== "not_run").length,
      output_valid: report.output_valid,
      ms: Math.round(performance.now() - started),
      ...(context.caller !== undefined ? { user: context.caller.user } : {}),
    },
    "recipe run",
  );
  // A run that never reached the DCC (busy, unreachable) says nothing about the recipe.
  if (outcome.error !== "busy" && outcome.error !== "dcc_unavailable") recordUse(context, context.library, recipe.recipeId, RUN_COUNTER[report.status]);
  return answer(outcome, {
    skill: recipe.skill,
    recipe: recipe.name,
    dcc: runner.dcc,
    ...(planned.plan.alias !== undefined ? { alias: planned.plan.alias } : {}),
  });
}

export const recipesRun = recipeTool({
  name: "recipes__run",
  title: "Run a recipe on the DCC",
  description:
    "Run a structured recipe on this DCC and prove the result: validates `inputs`, materializes every step, resolves " +
    "each step's tool for this DCC (tool_routing), checks every tool exists and accepts its arguments (preflight), runs " +
    "the steps in order, and validates the observed receipt against the recipe's output_contract (a receipt that fails " +
    "the contract is a failed run). On failure the recipe's undo steps run and are reported. `dryRun: true` stops " +
    "after preflight and returns the resolved plan. A recipe with `undo: none` runs only with `confirm: true` or once " +
    "the user confirms when asked (elicitation, where the client supports it). " +
    "One run at a time per DCC; a full queue answers `busy`.",
  inputSchema: objectSchema(
    {
      ...STRUCTURED_RECIPE_FIELDS,
      inputs: { description: "Inputs for the recipe's inputs_schema." },
      dryRun: { type: "boolean", default: false, description: "Resolve, materialize and preflight only; nothing runs on the DCC." },
      confirm: { type: "boolean", default: false, description: "Runs a recipe whose undo is `none` without asking; else the user is asked (elicitation) where the client supports it." },
      timeoutMs: { type: "integer", minimum: 100, maximum: MAX_RUN_TIMEOUT_MS, description: "Bound on the whole run (default 55000)." },
    },
    ["skill", "recipe", "inputs"],
  ),
  // It changes the DCC's scene: destructive, not idempotent, and it reaches outside this server.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  handler: (args, context) => withSnapshot(context, (snapshot) => run(context, snapshot, args)),
});
