/**
 * The child fields of each `recipe` action (docs/tools.md, seed 000): the
 * advertised schema is a passthrough, so these schemas are what actually
 * constrains a call. Constraints are the seed's, verbatim.
 */
import { compileSchema, renderErrors } from "../../jsonschema/index.js";
import type { Validator } from "../../jsonschema/types.js";
import { PLAYBOOK_LIMITS as L } from "../../recipes/store/limits.js";
import type { ObjectOf } from "./define.js";

export const RECIPE_ACTIONS = ["search", "get", "create", "update", "history", "restore", "delete", "promote"] as const;
export type RecipeAction = (typeof RECIPE_ACTIONS)[number];

/** The actions a server offers: promote only when its operator allows it (`--allow-promote`). */
export function offeredActions(allowPromote: boolean): readonly RecipeAction[] {
  return allowPromote ? RECIPE_ACTIONS : RECIPE_ACTIONS.filter((action) => action !== "promote");
}

/** Keys of the advertised schema; never child fields. */
const ENVELOPE_KEYS: ReadonlySet<string> = new Set(["action", "resultStart", "resultEnd"]);

const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

const VISIBILITY = {
  type: "string",
  enum: ["all", "private", "public"],
  default: "all",
  description: "Which recipes to consider: public skill recipes, your private playbooks, or all.",
} as const;

/** dcc-mcp-core's skill layers (metadata.dcc-mcp.layer): a `recipes__search` filter. */
export const LAYER_FILTER = {
  type: "string",
  enum: ["domain", "infrastructure", "thin-harness", "example"],
  description:
    "Only recipes of skills in this layer (metadata.dcc-mcp.layer; a skill naming none counts as domain). " +
    "Without it, equal scores rank domain before infrastructure, thin-harness and example skills.",
} as const;

function text(maxLength?: number, description?: string): { readonly type: "string"; readonly minLength: 1; readonly maxLength?: number; readonly description?: string } {
  return {
    type: "string",
    minLength: 1,
    ...(maxLength !== undefined ? { maxLength } : {}),
    ...(description !== undefined ? { description } : {}),
  };
}

const TAG = { type: "string", maxLength: L.tag } as const;

const REVISION = { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;

const EXPECTED_REVISION = {
  ...REVISION,
  description: "The playbook revision you read; a newer one makes the call a conflict instead of overwriting it.",
} as const;

const STEP = {
  type: "object",
  properties: { title: text(L.stepTitle), detail: text(L.stepDetail) },
  required: ["title", "detail"],
  additionalProperties: false,
} as const;

/** The playbook body fields shared by create (most required) and update (all optional). */
const PLAYBOOK_FIELDS = {
  title: text(L.title, "Short name of the playbook."),
  summary: text(L.summary, "One or two sentences: what the playbook achieves."),
  whenToUse: text(L.whenToUse, "The situations the playbook fits, so a later search can match them."),
  steps: { type: "array", minItems: 1, maxItems: L.steps, items: STEP, description: "Ordered steps, each {title, detail}." },
  acceptanceCriteria: {
    type: "array",
    minItems: 1,
    maxItems: L.acceptanceCriteria,
    items: text(L.criterion),
    description: "Checks that prove the work is done.",
  },
  tags: { type: "array", maxItems: L.tags, items: TAG, default: [] },
  document: text(L.document, "The full playbook as Markdown."),
} as const;

interface ActionSpec {
  readonly properties: Readonly<Record<string, unknown>>;
  readonly required: readonly string[];
}

const ACTION_SPECS = {
  search: {
    properties: {
      // A blank query would list the whole catalog at score 0: not a search.
      query: { ...text(undefined, "Natural language description of the needed reusable playbook."), pattern: "\\S" },
      visibility: VISIBILITY,
      limit: { type: "number", minimum: 1, maximum: 20, default: 5 },
    },
    required: ["query"],
  },
  get: {
    properties: {
      recipeId: text(undefined, "Recipe ID returned by action=search (`<skill>/<name>` or `private/<slug>`)."),
      visibility: VISIBILITY,
      revision: { ...REVISION, description: "Optional, private playbooks only: an earlier revision (from action=history) instead of the current one." },
    },
    required: ["recipeId"],
  },
  create: {
    properties: {
      ...PLAYBOOK_FIELDS,
      // A retry with the same key (after a timeout, a lost answer, a kill -9) answers the first create.
      idempotencyKey: { ...text(L.idempotencyKey, "Optional; send the same key when retrying a create whose answer you did not get, to get the first answer instead of a duplicate."), minLength: 1 },
    },
    required: ["title", "summary", "whenToUse", "steps", "acceptanceCriteria", "document"],
  },
  update: {
    properties: {
      recipeId: text(undefined, "ID of the private playbook (`private/<slug>`)."),
      ...PLAYBOOK_FIELDS,
      tags: { type: "array", maxItems: L.tags, items: TAG },
      expectedRevision: {
        type: "integer",
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description: "The playbook revision you read; a newer one on disk makes the update a conflict instead of overwriting it.",
      },
    },
    required: ["recipeId"],
  },
  history: {
    properties: {
      recipeId: text(undefined, "ID of your private playbook (`private/<slug>`), deleted ones included."),
      start: { type: "integer", minimum: 0, maximum: 100_000, default: 0, description: "Revisions to skip, newest first." },
      limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
    },
    required: ["recipeId"],
  },
  restore: {
    properties: {
      recipeId: text(undefined, "ID of your private playbook (`private/<slug>`), deleted ones included."),
      revision: { ...REVISION, description: "The revision whose content becomes the new current revision (from action=history)." },
      expectedRevision: EXPECTED_REVISION,
    },
    required: ["recipeId", "revision"],
  },
  delete: {
    properties: {
      recipeId: text(undefined, "ID of your private playbook (`private/<slug>`)."),
      expectedRevision: EXPECTED_REVISION,
    },
    required: ["recipeId"],
  },
  promote: {
    properties: {
      recipeId: text(undefined, "ID of your private playbook (`private/<slug>`)."),
      // A name, never a path: the skill is looked up in the catalog, and only skills in the server's skill roots qualify.
      skill: { ...text(200, "The skill whose pack receives the recipe, by name (the `<skill>` of its recipe ids)."), pattern: "^[^/\\\\]+$" },
      revision: { ...REVISION, description: "Optional: promote this revision (from action=history) instead of the current one." },
    },
    required: ["recipeId", "skill"],
  },
} as const satisfies Readonly<Record<RecipeAction, ActionSpec>>;

/** The child fields of `action`, as its schema types them (checked before an action runs). */
export type ChildFields<A extends RecipeAction> = ObjectOf<(typeof ACTION_SPECS)[A]["properties"], (typeof ACTION_SPECS)[A]["required"][number]>;

export function childSchema(action: RecipeAction): Record<string, unknown> {
  const spec: ActionSpec = ACTION_SPECS[action];
  return {
    $schema: DRAFT_2020_12,
    type: "object",
    properties: spec.properties,
    required: [...spec.required],
    additionalProperties: false,
  };
}

type ChildCheck<A extends RecipeAction> =
  | { readonly ok: true; readonly fields: ChildFields<A> }
  | { readonly ok: false; readonly errors: readonly string[] };

interface ChildValidators {
  /** Checks the child fields of `action` in `args`; the advertised keys are ignored. */
  check<A extends RecipeAction>(action: A, args: Readonly<Record<string, unknown>>): ChildCheck<A>;
}

/**
 * Compiles the child schemas once. A refusal is a bug in this file, not
 * input, so it throws (as the registry does for advertised schemas).
 * `offered`: the actions the tool offers, the only ones a misplaced field is
 * said to belong to.
 */
export function compileChildValidators(offered: readonly RecipeAction[] = offeredActions(false)): ChildValidators {
  const validators = new Map<RecipeAction, Validator>();
  for (const action of RECIPE_ACTIONS) {
    const compiled = compileSchema(childSchema(action));
    if (!compiled.ok) throw new Error(`recipe ${action}: child schema refused: ${compiled.error.message}`);
    validators.set(action, compiled.validator);
  }
  const owners = fieldOwners(offered);
  return {
    check(action, args) {
      const fields: Record<string, unknown> = {};
      const errors: string[] = [];
      for (const key of Object.keys(args).sort()) {
        if (ENVELOPE_KEYS.has(key)) continue;
        if (Object.hasOwn(ACTION_SPECS[action].properties, key)) {
          fields[key] = args[key];
          continue;
        }
        // Named here rather than by additionalProperties so the caller learns
        // which action the field belongs to (a recipeId on create means "use update").
        const elsewhere = owners.get(key);
        errors.push(
          elsewhere === undefined
            ? `${fieldPath(key)}: is not a field of any recipe action`
            : `${fieldPath(key)}: is not a field of action "${action}" (it belongs to ${elsewhere.join(", ")})`,
        );
      }
      const result = (validators.get(action) as Validator).validate(fields);
      if (!result.valid) errors.push(...renderErrors(result.errors));
      // The validator just accepted `fields` against the schema ChildFields<A> is derived from.
      return errors.length === 0 ? { ok: true, fields: fields as ChildFields<typeof action> } : { ok: false, errors };
    },
  };
}

function fieldOwners(offered: readonly RecipeAction[]): Map<string, RecipeAction[]> {
  const owners = new Map<string, RecipeAction[]>();
  for (const action of offered) {
    for (const key of Object.keys(ACTION_SPECS[action].properties)) {
      owners.set(key, [...(owners.get(key) ?? []), action]);
    }
  }
  return owners;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The same `$.key` / `$["odd key"]` spelling renderErrors uses; keys are names, never values. */
function fieldPath(key: string): string {
  const shown = key.length > 64 ? `${key.slice(0, 61)}...` : key;
  return IDENTIFIER.test(shown) ? `$.${shown}` : `$[${JSON.stringify(shown)}]`;
}

/** One line per action for the tool description, generated so it never drifts from the schemas. */
export function describeFields(action: RecipeAction): string {
  const spec: ActionSpec = ACTION_SPECS[action];
  return Object.entries(spec.properties)
    .map(([key, raw]) => {
      const schema = raw as Record<string, unknown>;
      const rules: string[] = [];
      if (spec.required.includes(key)) rules.push("required");
      if (Array.isArray(schema.enum)) rules.push(schema.enum.join("|"));
      if (schema.type === "array") {
        rules.push(`${String(schema.minItems ?? 0)}–${String(schema.maxItems)} items`);
        if (key === "steps") rules.push("each {title ≤200, detail ≤8000}");
      } else if (typeof schema.maxLength === "number") {
        rules.push(`≤${schema.maxLength} chars`);
      } else if (typeof schema.maximum === "number" && schema.maximum < 1e6) {
        rules.push(`${String(schema.minimum)}–${schema.maximum}`);
      } else if (typeof schema.minimum === "number") {
        rules.push(`integer ≥${schema.minimum}`);
      }
      if (schema.default !== undefined) rules.push(`default ${JSON.stringify(schema.default)}`);
      return rules.length > 0 ? `${key} (${rules.join(", ")})` : key;
    })
    .join("; ");
}
