/** `recipe` action=create: a new private playbook, plus close matches to update instead. */
import type { StoreResult } from "../../recipes/store/contract.js";
import { playbooksOf, type RecipeToolContext } from "./context.js";
import { fail, ok, type Envelope } from "./envelope.js";
import type { RecipeSummary } from "./playbook-view.js";
import type { ChildFields } from "./recipe-schemas.js";
import { mergeByScore, summaries } from "./recipe-search.js";

const SIMILAR_LIMIT = 3;

export async function recipeCreate(fields: ChildFields<"create">, context: RecipeToolContext, since?: number): Promise<Envelope> {
  const { idempotencyKey: key, tags = [], ...rest } = fields;
  const draft = { ...rest, tags };
  const playbooks = playbooksOf(context);
  const timing = since === undefined ? {} : { since };
  const result = await playbooks.createPlaybook(draft, key === undefined ? timing : { idempotencyKey: key, ...timing });
  if (!result.ok) return storeFailure(result);
  const recipeId = `private/${result.playbook.slug}`;
  const similar = await findSimilar(context, `${draft.title}\n${draft.summary}\n${draft.whenToUse}`, recipeId);
  const advice = similar.length > 0 ? `; ${similar.length} similar recipe(s) exist: consider action=update on one of them next time` : "";
  // A replay answers what the first create answered: creates are revision 1 with the title they were sent.
  return ok(
    `Created ${recipeId}${advice}`,
    { recipeId, revision: result.replayed === true ? 1 : result.playbook.revision, title: result.replayed === true ? draft.title : result.playbook.title, similar },
    // The catalog revision that already contains the new playbook.
    playbooks.current()?.revision,
  );
}

async function findSimilar(context: RecipeToolContext, text: string, excludeId: string): Promise<RecipeSummary[]> {
  const options = { limit: SIMILAR_LIMIT, excludeId };
  const caller = context.caller;
  if (caller === undefined) return summaries(await context.library.search.similar(text, { ...options, visibility: "all" }));
  // Public recipes are everyone's; of the private ones, only the caller's own.
  const [pub, mine] = await Promise.all([
    context.library.search.similar(text, { ...options, visibility: "public" }),
    caller.playbooks.search.similar(text, { ...options, visibility: "private" }),
  ]);
  return mergeByScore([summaries(pub), summaries(mine)], SIMILAR_LIMIT);
}

/** Store outcomes are data with the same codes as the tool table. */
export function storeFailure(result: StoreResult & { ok: false }, context?: Record<string, unknown>): Envelope {
  // Verbatim: the store's messages start with field names ("summary contains …").
  return fail(result.code, result.message, context);
}
