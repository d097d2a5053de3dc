/**
 * The grouped `recipe` tool (docs/tools.md, seed 000): search / get / create /
 * update over public recipes and private playbooks. The advertised schema is
 * a passthrough (only `action` and the window); each action's child fields are
 * checked here against the seed's schemas before the action runs.
 */
import type { CatalogSnapshot } from "../../recipes/catalog/catalog.js";
import { recipeTool, snapshotOf, type RecipeToolContext } from "./context.js";
import { objectSchema, type MaybePromise, type ToolArgs } from "./define.js";
import { fail, type Envelope } from "./envelope.js";
import { recipeCreate } from "./recipe-create.js";
import { recipeGet } from "./recipe-get.js";
import { compileChildValidators, describeFields, offeredActions, type ChildFields, type RecipeAction } from "./recipe-schemas.js";
import { recipeSearch } from "./recipe-search.js";
import { recipeUpdate } from "./recipe-update.js";
import { recipeDelete, recipeGetRevision, recipeHistory, recipeRestore } from "./recipe-history.js";
import { recipePromote } from "./recipe-promote.js";
import { KeyedMutex } from "../../util/concurrency.js";

export const WARMING_UP_MESSAGE = "AI Search is warming up; continue without recipes";

const ACTION_GUIDE: Readonly<Record<RecipeAction, string>> = {
  search:
    "finds reusable playbooks by natural-language query. Try it before tackling a substantive task so an existing " +
    "recipe can guide the work.",
  get:
    "loads one recipeId (from search) as a structured playbook and records its use. Use it before applying a recipe.",
  create:
    "writes a new private playbook. Search first to avoid duplicates; when a close match exists, update it instead. " +
    "The answer lists `similar` recipes.",
  update:
    "patches an existing private playbook (`private/<slug>`) with any subset of the create fields; pass " +
    "expectedRevision (from get) to get a conflict instead of overwriting someone else's change. Public recipes are read-only.",
  history:
    "lists the kept revisions of your private playbook (time, user, event, changed fields), newest first; get with " +
    "revision reads one, restore brings one back.",
  restore:
    "makes an earlier revision's content the new current revision (also undeleting); pass expectedRevision (the current " +
    "revision) to get a conflict instead of overwriting a change made meanwhile.",
  delete:
    "removes your private playbook from search, lists and prompts; its history stays, and restore brings it back.",
  promote:
    "makes your private playbook (or one revision of it) a public recipe of a skill pack in this server's skill roots, " +
    "linted first and never overwriting a file; search finds it once the catalog reloads. Only for a playbook that has proved itself.",
};

function description(actions: readonly RecipeAction[]): string {
  const lines = actions.map(
    (action) => `action=${action} ${ACTION_GUIDE[action]} Fields: ${describeFields(action)}.`,
  );
  return [
    "Reusable playbooks (public skill recipes and your private playbooks). Send the chosen action's fields on the same call.",
    ...lines,
    `If a call answers not_ready ("${WARMING_UP_MESSAGE}"), AI Search is still warming up: continue the task without ` +
      "recipes, skip creating or updating them, and do not retry until later.",
  ].join("\n");
}

type Action<A extends RecipeAction> = (
  fields: ChildFields<A>,
  snapshot: CatalogSnapshot,
  context: RecipeToolContext,
  continued: boolean,
  /** performance.now() when the call reached the tool: a write's deadline counts from it. */
  since: number,
) => MaybePromise<Envelope>;

function schemaOf(actions: readonly RecipeAction[]) {
  return objectSchema(
    {
      action: {
        type: "string",
        enum: [...actions],
        description: `${actions.join(" | ")}; the other fields depend on it (see the tool description).`,
      },
    },
    ["action"],
    { additionalProperties: true },
  );
}

type Schema = ReturnType<typeof schemaOf>;

export interface RecipeToolOptions {
  /** Offer action=promote (`--allow-promote`); without it the action is neither listed nor accepted. */
  readonly allowPromote?: boolean;
}

/** Builds the tool; compiles the child schemas once, so call it once per registry. */
export function createRecipeTool(options: RecipeToolOptions = {}) {
  const offered = offeredActions(options.allowPromote === true);
  const schema = schemaOf(offered);
  const children = compileChildValidators(offered);
  const updates = new KeyedMutex();
  const promotes = new KeyedMutex();
  // A mapped type, so that actions[action] for a generic action takes that action's fields.
  const actions: { readonly [A in RecipeAction]: Action<A> } = {
    search: recipeSearch,
    get: (fields, snapshot, context, continued) =>
      fields.revision === undefined ? recipeGet(fields, snapshot, context, continued) : recipeGetRevision(fields.recipeId, fields.revision, snapshot, context),
    create: (fields, _snapshot, context, _continued, since) => recipeCreate(fields, context, since),
    update: (fields, snapshot, context, _continued, since) => recipeUpdate(fields, snapshot, context, updates, since),
    history: (fields, snapshot, context) => recipeHistory(fields, snapshot, context),
    restore: (fields, snapshot, context, _continued, since) => recipeRestore(fields, snapshot, context, since),
    delete: (fields, snapshot, context, _continued, since) => recipeDelete(fields, snapshot, context, since),
    promote: (fields, snapshot, context) => recipePromote(fields, snapshot, context, promotes),
  };
  const run = <A extends RecipeAction>(action: A, fields: ChildFields<A>, args: ToolArgs<Schema>, context: RecipeToolContext, since: number): MaybePromise<Envelope> => {
    const snapshot = snapshotOf(context);
    // Search answers from the index; before the first catalog is indexed there is nothing to match or dedupe against.
    if (snapshot === null || context.library.search.status().revision === 0) {
      return fail("not_ready", WARMING_UP_MESSAGE, { action });
    }
    // resultStart > 0 reads on in a result already produced once.
    const continued = args.resultStart !== undefined && args.resultStart > 0;
    return actions[action](fields, snapshot, context, continued, since);
  };
  const dispatch = <A extends RecipeAction>(action: A, args: ToolArgs<Schema>, context: RecipeToolContext): MaybePromise<Envelope> => {
    const since = performance.now();
    const checked = children.check(action, args);
    if (!checked.ok) {
      return fail("invalid_input", `Invalid arguments for action=${action}: ${checked.errors.join("; ")}`, {
        action,
        errors: checked.errors,
      });
    }
    // A user's playbooks load on their first call: that call waits for them.
    const caller = context.caller;
    if (caller !== undefined && caller.playbooks.current() === null) return caller.loaded.then(() => run(action, checked.fields, args, context, since));
    return run(action, checked.fields, args, context, since);
  };
  return recipeTool({
    name: "recipe",
    title: "Recipes and playbooks",
    description: description(offered),
    inputSchema: schema,
    // create/update/restore/delete write private playbooks; a delete is a tombstone that restore undoes; promote only adds a file.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: (args, context) => dispatch(args.action, args, context),
  });
}
