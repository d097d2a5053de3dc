import { createHash, hash } from "node:crypto";
import type { Recipe, YamlIndexText } from "../types.js";

/** The searchable text of one recipe, split into weighted fields. */
export interface SearchDocument {
  readonly id: string;
  readonly name: string;
  /** Search aliases and example prompts, the skill's and the recipe's own. */
  readonly aliases: string;
  readonly tags: string;
  readonly hint: string;
  readonly description: string;
  readonly steps: string;
  readonly body: string;
  readonly skill: string;
}

/** Field weights: a hit in the name says far more than one deep in a body. */
export const FIELD_BOOST: Readonly<Record<Exclude<keyof SearchDocument, "id">, number>> = {
  name: 6,
  // Near the name's: authors write aliases and example prompts as what users will ask (dcc-mcp-core
  // indexes aliases beside the name). bench/relevance: 5 moved three lexical paraphrase hits down, 4 one;
  // blending aliases into the embedded text (after the hint, or after the body) lowered the hybrid MRR.
  aliases: 4,
  tags: 3,
  hint: 3,
  description: 2,
  steps: 1.5,
  skill: 1,
  body: 1,
};

export const SEARCH_FIELDS = Object.keys(FIELD_BOOST) as (keyof typeof FIELD_BOOST)[];

/** Bodies can be long playbooks; the head carries the signal and bounds index size. */
const BODY_LIMIT = 4000;
const STEPS_LIMIT = 4000;
/** What the embedding model sees; USE-Lite degrades on long inputs anyway. */
const EMBED_LIMIT = 400;

/** Entry keys (every spelling core and real packs use) of a recipe's own aliases and example prompts. */
const ALIAS_KEYS = ["search-aliases", "search_aliases", "aliases", "example-prompts", "example_prompts", "examplePrompts"];
const ALIASES_LIMIT = 2000;

/** Step keys whose string values name what the step does. */
const STEP_TEXT_KEYS = ["tool", "verb", "id", "name", "action", "title", "description", "note", "detail"];
/** Step keys whose object keys are argument names. */
const STEP_ARG_KEYS = ["arguments", "inputs", "params", "args"];
/** YAML entry keys already indexed elsewhere or pure machinery. */
const ENTRY_SKIP = new Set(["name", "dcc", "description", "steps", "inputs_schema", "output_contract", "toolset_profiles", "toolset_profile", ...ALIAS_KEYS]);

function yamlStepsText(steps: readonly unknown[]): string {
  const parts: string[] = [];
  for (const step of steps) {
    if (typeof step === "string") {
      parts.push(step);
      continue;
    }
    if (!isRecord(step)) continue;
    for (const key of STEP_TEXT_KEYS) {
      const value = step[key];
      if (typeof value === "string") parts.push(value);
    }
    for (const key of STEP_ARG_KEYS) {
      const value = step[key];
      if (isRecord(value)) parts.push(Object.keys(value).join(" "));
    }
  }
  return parts.join(" ");
}

function schemaPropertyText(schema: unknown): string {
  if (!isRecord(schema) || !isRecord(schema.properties)) return "";
  const parts: string[] = [];
  for (const [key, value] of Object.entries(schema.properties)) {
    parts.push(key);
    if (isRecord(value) && typeof value.description === "string") parts.push(value.description);
  }
  return parts.join(" ");
}

/** Every string leaf of a value, depth-first, bounded. */
function stringLeaves(value: unknown, out: string[], budget: { left: number }, depth = 0): void {
  if (budget.left <= 0 || depth > 8) return;
  if (typeof value === "string") {
    out.push(value);
    budget.left -= value.length;
  } else if (Array.isArray(value)) {
    for (const item of value) stringLeaves(item, out, budget, depth + 1);
  } else if (isRecord(value)) {
    for (const item of Object.values(value)) stringLeaves(item, out, budget, depth + 1);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clip(text: string, limit: number): string {
  return text.length > limit ? text.slice(0, limit) : text;
}

/**
 * The steps and body text of a YAML entry, as toDocument indexes them. The
 * loader computes it when it parses a pack (and caches it with the pack),
 * so indexing never has to read the entries back.
 */
export function yamlEntryText(
  entry: Readonly<Record<string, unknown>>,
  stepList: readonly unknown[] = Array.isArray(entry["steps"]) ? entry["steps"] : [],
  inputsSchema: unknown = entry["inputs_schema"] ?? {},
): YamlIndexText {
  const steps = [yamlStepsText(stepList), schemaPropertyText(inputsSchema)].join(" ");
  const extra: string[] = [];
  const budget = { left: BODY_LIMIT };
  for (const [key, value] of Object.entries(entry)) {
    if (!ENTRY_SKIP.has(key)) stringLeaves(value, extra, budget);
  }
  const aliases: string[] = [];
  const aliasBudget = { left: ALIASES_LIMIT };
  for (const key of ALIAS_KEYS) if (Object.hasOwn(entry, key)) stringLeaves(entry[key], aliases, aliasBudget);
  return { steps: clip(steps, STEPS_LIMIT), body: clip(extra.join(" "), BODY_LIMIT), aliases: clip(aliases.join(" "), ALIASES_LIMIT) };
}

export function toDocument(recipe: Recipe): SearchDocument {
  let name = recipe.name;
  let description = recipe.description;
  let steps = "";
  let body = "";
  let own = "";
  switch (recipe.format) {
    case "markdown":
      body = recipe.content;
      break;
    case "yaml":
      ({ steps, body, aliases: own } = recipe.indexText ?? yamlEntryText(recipe.entry, recipe.steps, recipe.inputsSchema));
      break;
    case "private": {
      const p = recipe.playbook;
      name = `${recipe.name} ${p.title}`;
      description = [...new Set([recipe.description, p.summary, p.whenToUse].filter(Boolean))].join(" ");
      steps = p.steps.map((s) => `${s.title} ${s.detail}`).join(" ");
      body = [p.document, p.acceptanceCriteria.join(" ")].join(" ");
      break;
    }
  }
  const aliases = [recipe.searchAliases?.join(" ") ?? "", recipe.examplePrompts?.join(" ") ?? "", own].filter((t) => t !== "").join(" ");
  return {
    id: recipe.recipeId,
    name,
    aliases: clip(aliases, ALIASES_LIMIT),
    tags: recipe.tags.join(" "),
    hint: recipe.searchHint ?? "",
    description,
    steps: clip(steps, STEPS_LIMIT),
    body: clip(body, BODY_LIMIT),
    skill: recipe.skill,
  };
}

/**
 * The text handed to the embedding model: name in words, description, hint,
 * tags, then prose and code comments of the body and the step text, cut at
 * EMBED_LIMIT. USE-Lite's cost grows steeply with length and code tokens
 * only dilute its sentence vector (bench/relevance measured 400 prose
 * characters as good as 1,500 raw ones at a fraction of the warm-up time).
 */
export function embeddingText(doc: SearchDocument): string {
  return blend(doc, humanise(doc.name));
}

/** embeddingText with the name already humanised (embeddingViews needs it twice). */
function blend(doc: SearchDocument, name: string): string {
  // Parts are built only while the text is short of EMBED_LIMIT (every
  // recipe pays this at start-up) and collapsed one by one, not the whole
  // text again per part. The result equals joining all parts, collapsing
  // whitespace and clipping: test/recipes/search/document.test.ts checks it.
  let text = "";
  for (let i = 0; i < EMBED_PARTS && text.length < EMBED_LIMIT; i++) {
    const part = i === 0 ? name : embedPart(doc, i);
    if (part.trim() === "") continue;
    const piece = part.replace(/\s+/g, " ");
    // A piece opening with a space merges with the separator's, as in a collapse of the joined text.
    text = text === "" ? piece : text + (piece.charCodeAt(0) === 32 ? "." : ". ") + piece;
  }
  return clip(text, EMBED_LIMIT);
}

const EMBED_PARTS = 6;

/** Part i (from 1) of the blended text, in order: (name), description, hint, tags, prose of the body, steps. */
function embedPart(doc: SearchDocument, i: number): string {
  switch (i) {
    case 1:
      return doc.description;
    case 2:
      return doc.hint;
    case 3:
      return doc.tags;
    case 4:
      return prose(doc.body, EMBED_LIMIT);
    default:
      return humanise(doc.steps);
  }
}

/** The short view: what a recipe is called and what it says it does. */
const SUMMARY_LIMIT = 300;

/**
 * The texts embedded for one recipe, each scored on its own against a query
 * (the recipe takes the best). USE-Lite compares texts of similar length
 * best: a short paraphrase ("soften sharp corners") lands nearer the name
 * and one-line description ("bevel edges. Bevel bounded edge indices…")
 * than the 400-character blend of hint, tags, prose and steps, which still
 * answers the longer, keyword-rich queries. bench/relevance measured the
 * paraphrase MRR of the semantic side at 0.22 with the blend alone and
 * 0.30 with both; adding each body sentence as a further view gained
 * nothing over these two and costs a vector apiece.
 * The first view is the primary one: the index pre-ranks large catalogs by it.
 */
export function embeddingViews(doc: SearchDocument): string[] {
  const name = humanise(doc.name);
  const whole = blend(doc, name);
  const summary = clip([name, doc.description].filter((p) => p.trim() !== "").join(". ").replace(/\s+/g, " "), SUMMARY_LIMIT);
  return summary.trim() === "" || summary === whole ? [whole] : [whole, summary];
}

function humanise(text: string): string {
  return text.replace(/[_\-]+/g, " ").replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2");
}

/**
 * Markdown without fenced code, keeping `#` comment lines from inside
 * fences. With `enough`, stops once the text holds that many characters
 * after whitespace collapses (a prefix of the whole).
 */
function prose(body: string, enough = Number.POSITIVE_INFINITY): string {
  const out: string[] = [];
  let fence: string | null = null;
  let raw = 0;
  for (let start = 0; start <= body.length; ) {
    const newline = body.indexOf("\n", start);
    const end = newline < 0 ? body.length : newline;
    const line = body.slice(start, end);
    start = end + 1;
    // Collapsed length never exceeds raw length: only then is the exact check worth its join.
    if (raw >= enough && out.join(" ").replace(/\s+/g, " ").length >= enough) break;
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence === null ? marker : null;
      continue;
    }
    let kept: string | undefined;
    if (fence !== null) kept = /^\s*(?:#|\/\/)\s?(.*)$/.exec(line)?.[1] || undefined;
    else if (!/^\s*(?:-{3,}|#{1,6}\s)/.test(line)) kept = line.replace(/[*`>|]/g, " ");
    if (kept !== undefined) {
      out.push(kept);
      raw += kept.length + 1;
    }
  }
  return out.join(" ");
}

const HASHED_FIELDS = ["id", ...SEARCH_FIELDS] as const;

/** Identity of a document's indexed content: equal hash, nothing to redo. */
export function contentHash(doc: SearchDocument): string {
  // One update of the joined fields: per-field updates cost more than the hashing at 20,000 documents.
  const h = createHash("sha256").update(HASHED_FIELDS.map((field) => doc[field]).join("\u0000"));
  // Hex of the first 16 bytes directly: a slice of the full hex string would keep all of it alive.
  return h.digest().toString("hex", 0, 16);
}

/** Key of an embedding: the exact text the model reads. */
export function textHash(text: string): string {
  // One-shot: no Hash object per text (40,000 of them at start-up).
  return hash("sha256", text).slice(0, 32);
}
