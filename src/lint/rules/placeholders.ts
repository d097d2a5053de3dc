/**
 * `${name}` / `${a.b}` placeholders (SPEC §4.4, seed 001): the caller fills
 * each from the inputs or else the schema default, so every one must name an
 * input that is required or has a default. Scanned where the materializer
 * substitutes (step `arguments` and `inputs`); prose and `undo_steps` count
 * as uses of an input but are not held to resolvability.
 */
import type { YamlRecipe } from "../../recipes/types.js";
import { derefSchema, isRecord } from "../schema-walk.js";
import type { EntryPath, RuleHit } from "../types.js";

const PARAM_KEYS = ["arguments", "inputs"] as const;
const PLACEHOLDER = /\$\{([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)\}/g;

interface Found {
  readonly name: string;
  readonly at: EntryPath;
}

function strings(value: unknown, at: (string | number)[], out: Array<{ text: string; at: EntryPath }>, depth = 0): void {
  if (depth > 64) return;
  if (typeof value === "string") out.push({ text: value, at });
  else if (Array.isArray(value)) value.forEach((v, i) => strings(v, [...at, i], out, depth + 1));
  else if (isRecord(value)) for (const [k, v] of Object.entries(value)) strings(v, [...at, k], out, depth + 1);
}

type Resolution = { ok: true } | { ok: false; undeclared: boolean; detail: string };

/** Mirrors materialize.ts: present in inputs (a required chain) or a default at the end of the properties chain. */
export function resolvePlaceholder(schema: unknown, name: string): Resolution {
  const path = name.split(".");
  let cur: unknown = derefSchema(schema, schema);
  let requiredChain = true;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    const owner = path.slice(0, i).join(".");
    const props = isRecord(cur) ? cur["properties"] : undefined;
    if (!isRecord(props) || !Object.hasOwn(props, key)) {
      return {
        ok: false,
        undeclared: true,
        detail: i === 0 ? `inputs_schema declares no property "${key}"` : `inputs_schema property "${owner}" declares no property "${key}"`,
      };
    }
    const required = isRecord(cur) && Array.isArray(cur["required"]) ? (cur["required"] as unknown[]) : [];
    if (!required.includes(key)) requiredChain = false;
    cur = derefSchema(schema, props[key]);
  }
  if (isRecord(cur) && Object.hasOwn(cur, "default")) return { ok: true };
  if (requiredChain) return { ok: true };
  return {
    ok: false,
    undeclared: false,
    detail: path.length === 1 ? `"${name}" is neither required nor given a default` : `"${name}" is not required all the way down and has no default`,
  };
}

export function placeholderRule(recipe: YamlRecipe): RuleHit[] {
  const hits: RuleHit[] = [];
  const schema = recipe.inputsSchema;
  const inSteps: Array<{ text: string; at: EntryPath }> = [];
  recipe.steps.forEach((step, i) => {
    if (!isRecord(step)) return;
    for (const k of PARAM_KEYS) if (Object.hasOwn(step, k)) strings(step[k], ["steps", i, k], inSteps);
  });

  const used: Found[] = [];
  const reported = new Set<string>();
  for (const { text, at } of inSteps) {
    if (!text.includes("${")) continue;
    for (const m of text.matchAll(PLACEHOLDER)) used.push({ name: m[1]!, at });
    const leftover = text.replace(PLACEHOLDER, "");
    if (leftover.includes("${")) {
      hits.push({
        code: "placeholder_malformed",
        message: `recipe "${recipe.name}": ${describe(at)} holds "\${" that is not a placeholder the materializer replaces`,
        at,
      });
    }
  }
  for (const { name, at } of used) {
    if (reported.has(name)) continue;
    const r = resolvePlaceholder(schema, name);
    if (r.ok) continue;
    reported.add(name);
    hits.push({
      code: r.undeclared ? "placeholder_undeclared" : "placeholder_unresolvable",
      message: `recipe "${recipe.name}": placeholder \${${name}} in ${describe(at)} cannot be materialized: ${r.detail}`,
      fix: r.undeclared
        ? `declare ${name.split(".").join(".properties.")} in inputs_schema.properties and list it in required or give it a default`
        : `add "${name.split(".").at(-1)}" to required${name.includes(".") ? " (and its parents)" : ""}, or give it a default`,
      at,
    });
  }
  return hits;
}

/** Inputs that no `${…}` anywhere in the entry (steps, prose, undo_steps …) mentions. */
export function unusedInputRule(recipe: YamlRecipe): RuleHit[] {
  const schema = derefSchema(recipe.inputsSchema, recipe.inputsSchema);
  if (!isRecord(schema) || !isRecord(schema["properties"]) || recipe.steps.length === 0) return [];
  const mentioned = new Set<string>();
  const all: Array<{ text: string; at: EntryPath }> = [];
  for (const [k, v] of Object.entries(recipe.entry)) {
    if (k === "inputs_schema" || k === "output_contract") continue;
    strings(v, [k], all);
  }
  for (const { text } of all) for (const m of text.matchAll(PLACEHOLDER)) mentioned.add(m[1]!.split(".")[0]!);
  return Object.keys(schema["properties"])
    .filter((name) => !mentioned.has(name))
    .map((name) => ({
      code: "input_unused",
      message: `recipe "${recipe.name}": input "${name}" is declared but no step mentions \${${name}}`,
      fix: `pass it to a step as "\${${name}}", or remove it from inputs_schema`,
      at: ["inputs_schema", "properties", name],
      atKey: true,
    }));
}

function describe(at: EntryPath): string {
  return at.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
}
