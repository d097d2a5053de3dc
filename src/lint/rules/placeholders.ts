/**
 * `${name}` / `${a.b}` placeholders (docs/skill-packs.md, seed 001): the caller fills
 * each from the inputs or else the schema default, so every one must name an
 * input that is required or has a default. Scanned where the materializer
 * substitutes (step `arguments` and `inputs`); prose and `undo_steps` count
 * as uses of an input but are not held to resolvability.
 */
import { isParameterKey, placeholderPath, placeholderRoot, scanPlaceholders, type PathStep } from "../../recipes/packs/placeholders.js";
import type { YamlRecipe } from "../../recipes/types.js";
import { derefSchema, isRecord } from "../schema-walk.js";
import type { EntryPath, RuleHit } from "../types.js";

interface Found {
  readonly name: string;
  readonly at: EntryPath;
  /** The step tolerates a missing optional input: `optional: true`, or a declared fallback. */
  readonly covered: boolean;
}

function strings(value: unknown, at: (string | number)[], out: Array<{ text: string; at: EntryPath }>, depth = 0): void {
  if (depth > 64) return;
  if (typeof value === "string") out.push({ text: value, at });
  else if (Array.isArray(value)) value.forEach((v, i) => strings(v, [...at, i], out, depth + 1));
  else if (isRecord(value)) for (const [k, v] of Object.entries(value)) strings(v, [...at, k], out, depth + 1);
}

type Resolution = { ok: true } | { ok: false; undeclared: boolean; detail: string };

/** One path step into a schema: `properties`, else an array's `prefixItems`/`items`; with whether it is always present. */
function stepInto(root: unknown, cur: unknown, step: PathStep): { schema: unknown; required: boolean } | null {
  if (!isRecord(cur)) return null;
  if ("key" in step) {
    const props = cur["properties"];
    if (isRecord(props) && Object.hasOwn(props, step.key)) {
      const required = Array.isArray(cur["required"]) && (cur["required"] as unknown[]).includes(step.key);
      return { schema: derefSchema(root, props[step.key]), required };
    }
    if (!/^[0-9]+$/.test(step.key)) return null;
  }
  const index = "index" in step ? step.index : Number(step.key);
  const minItems = typeof cur["minItems"] === "number" ? cur["minItems"] : 0;
  const prefix = cur["prefixItems"];
  if (Array.isArray(prefix) && index < prefix.length) return { schema: derefSchema(root, prefix[index]), required: index < minItems };
  if (isRecord(cur["items"])) return { schema: derefSchema(root, cur["items"]), required: index < minItems };
  return null;
}

/** Mirrors materialize.ts: present in inputs (a required chain) or a default at the end of the chain. */
export function resolvePlaceholder(schema: unknown, name: string): Resolution {
  const path = placeholderPath(name);
  let cur: unknown = derefSchema(schema, schema);
  let requiredChain = true;
  for (let i = 0; i < path.length; i++) {
    const next = stepInto(schema, cur, path[i]!);
    if (next === null) {
      const step = path[i]!;
      const what = "key" in step ? `property "${step.key}"` : `items to index [${step.index}]`;
      const owner = i === 0 ? "" : ` property "${name.slice(0, nameEnd(name, i))}"`;
      return { ok: false, undeclared: true, detail: `inputs_schema${owner} declares no ${what}` };
    }
    if (!next.required) requiredChain = false;
    cur = next.schema;
  }
  if (isRecord(cur) && Object.hasOwn(cur, "default")) return { ok: true };
  if (requiredChain) return { ok: true };
  return {
    ok: false,
    undeclared: false,
    detail: path.length === 1 ? `"${name}" is neither required nor given a default` : `"${name}" is not required all the way down and has no default`,
  };
}

/** Length of the text of the first `steps` path steps of `name` (`a.b[0]` → 1 step: "a"). */
function nameEnd(name: string, steps: number): number {
  let seen = 0;
  for (const m of name.matchAll(/[A-Za-z0-9_-]+|\[[0-9]+\]/g)) {
    if (++seen === steps) return m.index + m[0].length;
  }
  return name.length;
}

/** A step that says what happens without its optional inputs: `optional: true`, fallback parameters, or a scripting fallback. */
function toleratesAbsence(step: Record<string, unknown>): boolean {
  return step["optional"] === true || Object.keys(step).some((k) => k.startsWith("fallback_") || k === "scripting_fallback");
}

export function placeholderRule(recipe: YamlRecipe): RuleHit[] {
  const hits: RuleHit[] = [];
  const schema = recipe.inputsSchema;
  const inSteps: Array<{ text: string; at: EntryPath; covered: boolean }> = [];
  recipe.steps.forEach((step, i) => {
    if (!isRecord(step)) return;
    const covered = toleratesAbsence(step);
    for (const k of Object.keys(step)) {
      if (!isParameterKey(k)) continue;
      const found: Array<{ text: string; at: EntryPath }> = [];
      strings(step[k], ["steps", i, k], found);
      for (const f of found) inSteps.push({ ...f, covered });
    }
  });

  const used: Found[] = [];
  const reported = new Set<string>();
  for (const { text, at, covered } of inSteps) {
    const scan = scanPlaceholders(text);
    for (const name of scan.names) used.push({ name, at, covered });
    if (scan.malformed) {
      hits.push({
        code: "placeholder_malformed",
        message: `recipe "${recipe.name}": ${describe(at)} holds "\${" that is not a placeholder the materializer replaces (recipes__apply reports it and leaves it as written)`,
        at,
      });
    }
  }
  for (const { name, at, covered } of used) {
    if (reported.has(name)) continue;
    const r = resolvePlaceholder(schema, name);
    if (r.ok) continue;
    // An optional input left out is kept verbatim and reported by apply; a step that says what to do without it is correct.
    if (!r.undeclared && covered) continue;
    reported.add(name);
    hits.push({
      code: r.undeclared ? "placeholder_undeclared" : "placeholder_unresolvable",
      message: `recipe "${recipe.name}": placeholder \${${name}} in ${describe(at)} cannot be materialized: ${r.detail}`,
      fix: r.undeclared
        ? `declare ${placeholderPath(name).map((p) => ("key" in p ? p.key : "items")).join(".properties.")} in inputs_schema.properties and list it in required or give it a default`
        : `add "${lastKey(name)}" to required${name.includes(".") || name.includes("[") ? " (and its parents)" : ""}, give it a default, or mark the step optional: true`,
      at,
    });
  }
  return hits;
}

function lastKey(name: string): string {
  const keys = placeholderPath(name).filter((p): p is { key: string } => "key" in p);
  return keys.at(-1)?.key ?? name;
}

/**
 * A last step whose verb is `report` and which passes no parameters writes
 * its result from everything the recipe was given (freecad's `fem-review`
 * judges against target_safety_factor, yield_strength … in its report step),
 * so it consumes every input.
 */
function finalReportTakesAll(steps: readonly unknown[]): boolean {
  const last = steps.at(-1);
  if (!isRecord(last) || typeof last["verb"] !== "string" || last["verb"].toLowerCase() !== "report") return false;
  return !Object.keys(last).some(isParameterKey);
}

/** Inputs that no `${…}` anywhere in the entry (steps, prose, undo_steps …) mentions, unless a final report step consumes them all. */
export function unusedInputRule(recipe: YamlRecipe): RuleHit[] {
  const schema = derefSchema(recipe.inputsSchema, recipe.inputsSchema);
  if (!isRecord(schema) || !isRecord(schema["properties"]) || recipe.steps.length === 0) return [];
  const mentioned = new Set<string>();
  const all: Array<{ text: string; at: EntryPath }> = [];
  for (const [k, v] of Object.entries(recipe.entry)) {
    if (k === "inputs_schema" || k === "output_contract") continue;
    strings(v, [k], all);
  }
  for (const { text } of all) for (const name of scanPlaceholders(text).names) mentioned.add(placeholderRoot(name));
  if (finalReportTakesAll(recipe.steps)) return [];
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
