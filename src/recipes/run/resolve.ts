/**
 * From a recipe and its inputs to a plan the engine can preflight: every step
 * materialized (placeholders and schema defaults, as `recipes__apply` with
 * `materialize: true` does) and its tool resolved for one DCC.
 *
 * Resolution, for a `dcc: any` pack: a step's canonical tool
 * (`<canonical_namespace>__<verb>`, or the verb itself) is looked up in
 * `tool_routing.tools[verb][<dcc>]`. A `null` route means the adapter has no
 * such tool: the step then runs `tool_routing.scripting_fallback[<dcc>]`
 * with the step's own `fallback_arguments` (the script and whatever the
 * fallback tool takes, materialized like `arguments`), and only when the
 * step supplies them: a fallback without a script would be a guess. A verb
 * the table does not name, or a pack without a table, is a concrete tool
 * name and is called as written.
 *
 * `adapter_recipe_aliases[<dcc>][<recipe>]` names the DCC's own recipe for
 * the same operation; it is preferred when the catalog holds it and the
 * inputs satisfy its schema (its steps and contract are verified against
 * that host), else the cross-adapter recipe runs and the plan says why.
 */
import { materializeSteps } from "../api/materialize.js";
import { isPlainObject as isRecord } from "../../jsonschema/json.js";
import type { YamlRecipe } from "../types.js";
import type { PlannedStep, RouteKind, RunPlan } from "./types.js";

/** Why a recipe cannot run here: `invalid_input` (the recipe or inputs), `preflight_failed` (no tool for this DCC). */
type Refusal = { readonly ok: false; readonly code: "invalid_input" | "preflight_failed"; readonly message: string; readonly detail: Readonly<Record<string, unknown>> };
type Planned = { readonly ok: true; readonly plan: RunPlan } | Refusal;

/** The recipe key naming the step whose result is the receipt: a 0-based index or a step `id`. */
export const RECEIPT_STEP_KEY = "receipt_step";

interface Routing {
  readonly namespace: string | null;
  readonly tools: Readonly<Record<string, unknown>> | null;
  readonly fallback: Readonly<Record<string, unknown>> | null;
}

function routingOf(recipe: YamlRecipe): Routing {
  const table = recipe.pack["tool_routing"];
  const pack = recipe.pack["pack"];
  const namespace = isRecord(pack) && typeof pack["canonical_namespace"] === "string" ? pack["canonical_namespace"] : null;
  if (!isRecord(table)) return { namespace, tools: null, fallback: null };
  return {
    namespace,
    tools: isRecord(table["tools"]) ? table["tools"] : null,
    fallback: isRecord(table["scripting_fallback"]) ? table["scripting_fallback"] : null,
  };
}

/** The routing table's verb for a step tool: `mesh_ops__bevel_edges` → `bevel_edges`; null when the table does not name it. */
function verbOf(routing: Routing, tool: string): string | null {
  if (routing.tools === null) return null;
  if (Object.hasOwn(routing.tools, tool)) return tool;
  const prefix = routing.namespace !== null ? `${routing.namespace}__` : null;
  if (prefix !== null && tool.startsWith(prefix) && Object.hasOwn(routing.tools, tool.slice(prefix.length))) return tool.slice(prefix.length);
  // Without a declared namespace, the part after the first `__` is the verb (core's own convention).
  const at = tool.indexOf("__");
  if (prefix === null && at > 0 && Object.hasOwn(routing.tools, tool.slice(at + 2))) return tool.slice(at + 2);
  return null;
}

type Resolved = { readonly ok: true; readonly tool: string; readonly route: RouteKind; readonly args: Record<string, unknown> } | Refusal;

function resolveStep(routing: Routing, dcc: string, step: Record<string, unknown>, index: number, what: string): Resolved {
  const tool = step["tool"];
  if (typeof tool !== "string" || tool === "") {
    return { ok: false, code: "invalid_input", message: `${what}[${index}] has no tool`, detail: { step: index } };
  }
  const args = argumentsOf(step);
  const verb = verbOf(routing, tool);
  if (verb === null) return { ok: true, tool, route: "direct", args };
  const routes = routing.tools?.[verb];
  if (!isRecord(routes) || !Object.hasOwn(routes, dcc)) {
    return { ok: false, code: "preflight_failed", message: `${what}[${index}]: tool_routing names no route for ${dcc} for verb "${verb}" (${tool})`, detail: { step: index, tool, verb, dcc } };
  }
  const route = routes[dcc];
  if (typeof route === "string" && route !== "") return { ok: true, tool: route, route: "routed", args };
  const fallback = routing.fallback !== null && typeof routing.fallback[dcc] === "string" ? (routing.fallback[dcc] as string) : null;
  const script = step["fallback_arguments"];
  if (fallback !== null && isRecord(script)) return { ok: true, tool: fallback, route: "scripting_fallback", args: { ...script } };
  const how = fallback === null ? "and the pack names no scripting_fallback for it" : `and the step gives no fallback_arguments for ${fallback}`;
  return {
    ok: false,
    code: "preflight_failed",
    message: `${what}[${index}]: ${dcc} publishes no tool for verb "${verb}" (${tool}) ${how}`,
    detail: { step: index, tool, verb, dcc, scripting_fallback: fallback },
  };
}

function argumentsOf(step: Record<string, unknown>): Record<string, unknown> {
  const args = step["arguments"] ?? step["inputs"];
  return isRecord(args) ? { ...args } : {};
}

function plannedSteps(
  recipe: YamlRecipe,
  raw: readonly unknown[],
  inputs: unknown,
  dcc: string,
  what: string,
): { ok: true; steps: PlannedStep[]; manual: string[] } | Refusal {
  const materialized = materializeSteps(raw, inputs, recipe.inputsSchema);
  if (!materialized.ok) {
    const first = materialized.unresolved[0]!;
    return { ok: false, code: "invalid_input", message: `${what}[${first.step}].${first.field}: placeholder ${first.placeholder} names no input`, detail: { unresolved: materialized.unresolved } };
  }
  const routing = routingOf(recipe);
  const steps: PlannedStep[] = [];
  const manual: string[] = [];
  for (const [index, step] of materialized.steps.entries()) {
    if (typeof step === "string") {
      manual.push(prose(step, inputs, recipe.inputsSchema));
      continue;
    }
    if (!isRecord(step)) return { ok: false, code: "invalid_input", message: `${what}[${index}] is neither a step nor a sentence`, detail: { step: index } };
    // A left-out optional input the step needs: only an `optional: true` step may be skipped for it.
    const holes = materialized.unresolved.filter((u) => u.step === index && (u.field.startsWith("arguments") || u.field.startsWith("inputs") || u.field.startsWith("fallback_arguments")));
    if (holes.length > 0 && step["optional"] !== true) {
      return { ok: false, code: "invalid_input", message: `${what}[${index}].${holes[0]!.field}: ${holes[0]!.placeholder} has no value (give the input)`, detail: { unresolved: holes } };
    }
    if (holes.length > 0) continue;
    const resolved = resolveStep(routing, dcc, step, index, what);
    if (!resolved.ok) return resolved;
    steps.push({ index, tool: step["tool"] as string, resolvedTool: resolved.tool, route: resolved.route, arguments: resolved.args });
  }
  return { ok: true, steps, manual };
}

/** Prose with its placeholders filled where the inputs can, for the report. */
function prose(text: string, inputs: unknown, schema: unknown): string {
  const filled = materializeSteps([{ arguments: text }], inputs, schema);
  const first = filled.ok ? filled.steps[0] : undefined;
  return isRecord(first) && typeof first["arguments"] === "string" ? first["arguments"] : text;
}

function receiptIndex(recipe: YamlRecipe): { ok: true; index: number } | Refusal {
  const count = recipe.steps.length;
  const named = recipe.entry[RECEIPT_STEP_KEY];
  if (named === undefined) return { ok: true, index: count - 1 };
  if (typeof named === "number" && Number.isInteger(named) && named >= 0 && named < count) return { ok: true, index: named };
  if (typeof named === "string") {
    const at = recipe.steps.findIndex((step) => isRecord(step) && step["id"] === named);
    if (at >= 0) return { ok: true, index: at };
  }
  return { ok: false, code: "invalid_input", message: `${RECEIPT_STEP_KEY} names no step of ${recipe.recipeId}`, detail: { [RECEIPT_STEP_KEY]: named ?? null } };
}

/** The plan of `recipe` with `inputs` (already valid for its schema) on `dcc`, or why it cannot run there. */
export function planRun(recipe: YamlRecipe, inputs: unknown, dcc: string, alias?: { from: string; to: string }): Planned {
  const receipt = receiptIndex(recipe);
  if (!receipt.ok) return receipt;
  const main = plannedSteps(recipe, recipe.steps, inputs, dcc, "steps");
  if (!main.ok) return main;
  if (main.steps.length === 0) return { ok: false, code: "invalid_input", message: `${recipe.recipeId} has no step to run`, detail: {} };
  const undoRaw = recipe.entry["undo_steps"];
  const undo = plannedSteps(recipe, Array.isArray(undoRaw) ? undoRaw : [], inputs, dcc, "undo_steps");
  if (!undo.ok) return undo;
  const recovery = recipe.entry["recovery"];
  const undoKind = recipe.entry["undo"];
  return {
    ok: true,
    plan: {
      recipeId: recipe.recipeId,
      ...(alias !== undefined ? { alias } : {}),
      steps: main.steps,
      undoSteps: undo.steps,
      manualUndo: [...main.manual, ...undo.manual],
      advice: Array.isArray(recovery) ? recovery : [],
      undo: typeof undoKind === "string" ? undoKind : null,
      receiptStep: receipt.index,
    },
  };
}

/** The DCC's own recipe for `recipe`, when `adapter_recipe_aliases` names one; its name only. */
export function aliasOf(recipe: YamlRecipe, dcc: string): string | null {
  const aliases = recipe.pack["adapter_recipe_aliases"];
  if (!isRecord(aliases)) return null;
  const forDcc = aliases[dcc];
  if (!isRecord(forDcc) || !Object.hasOwn(forDcc, recipe.name)) return null;
  const name = forDcc[recipe.name];
  return typeof name === "string" && name !== "" ? name : null;
}
