/**
 * The run contract (what `recipes__run` needs of a pack): every step tool a
 * route resolves for each DCC the routing table claims (or the DCC has a
 * scripting fallback, which a step may supply `fallback_arguments` for), executable
 * `undo_steps` that name tools the table knows, placeholders in `undo_steps`
 * and `recovery` that the inputs can fill, and a `receipt_step` that names a
 * step. Mirrors src/recipes/run/resolve.ts.
 */
import { scanPlaceholders } from "../../recipes/packs/placeholders.js";
import { RECEIPT_STEP_KEY } from "../../recipes/run/resolve.js";
import type { YamlRecipe } from "../../recipes/types.js";
import { isRecord } from "../schema-walk.js";
import type { EntryPath, RuleHit } from "../types.js";
import { resolvePlaceholder } from "./placeholders.js";

interface Table {
  readonly tools: Record<string, unknown>;
  readonly adapters: readonly string[];
  readonly fallback: Record<string, unknown>;
  readonly namespace: string | null;
}

function tableOf(recipe: YamlRecipe): Table | null {
  const routing = recipe.pack["tool_routing"];
  if (!isRecord(routing) || !isRecord(routing["tools"])) return null;
  const pack = recipe.pack["pack"];
  const tools = routing["tools"];
  const listed = Array.isArray(routing["adapters"]) ? routing["adapters"].filter((a): a is string => typeof a === "string") : [];
  const adapters = listed.length > 0 ? listed : [...new Set(Object.values(tools).flatMap((r) => (isRecord(r) ? Object.keys(r) : [])))];
  return {
    tools,
    adapters,
    fallback: isRecord(routing["scripting_fallback"]) ? routing["scripting_fallback"] : {},
    namespace: isRecord(pack) && typeof pack["canonical_namespace"] === "string" ? pack["canonical_namespace"] : null,
  };
}

/** The table's verb for a step tool, or null when the tool is a concrete name the table does not route. */
function verbOf(table: Table, tool: string): string | null {
  if (Object.hasOwn(table.tools, tool)) return tool;
  const prefix = table.namespace !== null ? `${table.namespace}__` : null;
  if (prefix !== null && tool.startsWith(prefix)) return tool.slice(prefix.length);
  const at = tool.indexOf("__");
  if (prefix === null && at > 0 && Object.hasOwn(table.tools, tool.slice(at + 2))) return tool.slice(at + 2);
  return null;
}

/** Steps whose tool no route resolves for an adapter the table claims; one hit per step. */
function routeHits(recipe: YamlRecipe, table: Table): RuleHit[] {
  const hits: RuleHit[] = [];
  recipe.steps.forEach((step, i) => {
    if (!isRecord(step) || typeof step["tool"] !== "string") return;
    const verb = verbOf(table, step["tool"]);
    if (verb === null) return;
    const routes = table.tools[verb];
    const stuck = table.adapters.filter((dcc) => {
      if (!isRecord(routes) || !Object.hasOwn(routes, dcc)) return true;
      const route = routes[dcc];
      if (typeof route === "string" && route !== "") return false;
      // A null route beside a declared scripting fallback is core's documented contract ("use the
      // fallback"): recipes__run refuses it at run time unless the step supplies fallback_arguments,
      // and says so; lint flags only what no declaration covers.
      return typeof table.fallback[dcc] !== "string";
    });
    if (stuck.length === 0) return;
    const unknownVerb = !Object.hasOwn(table.tools, verb);
    hits.push({
      code: "run_no_route",
      message: unknownVerb
        ? `recipe "${recipe.name}": steps[${i}] tool ${step["tool"]} is in the ${table.namespace ?? ""} namespace but tool_routing has no verb "${verb}": recipes__run cannot resolve it on any DCC`
        : `recipe "${recipe.name}": recipes__run cannot run steps[${i}] (${verb}) on ${stuck.join(", ")}: tool_routing gives no route there and no scripting_fallback`,
      at: ["steps", i, "tool"],
    });
  });
  return hits;
}

function undoToolHits(recipe: YamlRecipe, table: Table | null): RuleHit[] {
  const undo = recipe.entry["undo_steps"];
  if (!Array.isArray(undo)) return [];
  const hits: RuleHit[] = [];
  undo.forEach((step, i) => {
    if (typeof step === "string") return;
    const tool = isRecord(step) ? step["tool"] : undefined;
    if (typeof tool !== "string" || tool === "") {
      hits.push({ code: "undo_step_unknown_tool", message: `recipe "${recipe.name}": undo_steps[${i}] is neither a sentence nor a step with a tool`, at: ["undo_steps", i] });
      return;
    }
    if (table === null) return;
    const verb = verbOf(table, tool);
    if (verb !== null && !Object.hasOwn(table.tools, verb)) {
      hits.push({ code: "undo_step_unknown_tool", message: `recipe "${recipe.name}": undo_steps[${i}] tool ${tool} names no verb of tool_routing ("${verb}")`, at: ["undo_steps", i, "tool"] });
    }
  });
  return hits;
}

function strings(value: unknown, at: (string | number)[], out: Array<{ text: string; at: EntryPath }>, depth = 0): void {
  if (depth > 32) return;
  if (typeof value === "string") out.push({ text: value, at });
  else if (Array.isArray(value)) value.forEach((v, i) => strings(v, [...at, i], out, depth + 1));
  else if (isRecord(value)) for (const [k, v] of Object.entries(value)) strings(v, [...at, k], out, depth + 1);
}

/** Placeholders in undo_steps and recovery that no input declares: they reach the report as written. */
function placeholderHits(recipe: YamlRecipe): RuleHit[] {
  const found: Array<{ text: string; at: EntryPath }> = [];
  for (const key of ["undo_steps", "recovery"]) strings(recipe.entry[key], [key], found);
  const hits: RuleHit[] = [];
  const reported = new Set<string>();
  for (const { text, at } of found) {
    for (const name of scanPlaceholders(text).names) {
      if (reported.has(name)) continue;
      const r = resolvePlaceholder(recipe.inputsSchema, name);
      if (r.ok || !r.undeclared) continue;
      reported.add(name);
      hits.push({ code: "run_placeholder_unresolvable", message: `recipe "${recipe.name}": \${${name}} in ${at[0]} cannot be filled: ${r.detail}`, at });
    }
  }
  return hits;
}

function receiptHits(recipe: YamlRecipe): RuleHit[] {
  if (!Object.hasOwn(recipe.entry, RECEIPT_STEP_KEY)) return [];
  const named = recipe.entry[RECEIPT_STEP_KEY];
  const ok =
    (typeof named === "number" && Number.isInteger(named) && named >= 0 && named < recipe.steps.length) ||
    (typeof named === "string" && recipe.steps.some((s) => isRecord(s) && s["id"] === named));
  return ok ? [] : [{ code: "receipt_step_unknown", message: `recipe "${recipe.name}": ${RECEIPT_STEP_KEY} ${JSON.stringify(named)} names no step (a 0-based index or a step id)`, at: [RECEIPT_STEP_KEY] }];
}

export function runContractRule(recipe: YamlRecipe): RuleHit[] {
  const table = tableOf(recipe);
  return [...(table !== null ? routeHits(recipe, table) : []), ...undoToolHits(recipe, table), ...placeholderHits(recipe), ...receiptHits(recipe)];
}
