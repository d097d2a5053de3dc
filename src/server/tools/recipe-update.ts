/** `recipe` action=update: patch a private playbook; public recipes are read-only. */
import type { CatalogSnapshot } from "../../recipes/catalog/catalog.js";
import type { PlaybookPatch } from "../../recipes/store/playbook-values.js";
import type { ChildFields } from "./recipe-schemas.js";
import { playbooksOf, sourceOf, type RecipeToolContext } from "./context.js";
import { fail, ok, type Envelope } from "./envelope.js";
import { notFound } from "./recipe-get.js";
import { storeFailure } from "./recipe-create.js";
import type { KeyedMutex } from "../../util/concurrency.js";

const PRIVATE_PREFIX = "private/";
const PATCH_KEYS = ["title", "summary", "whenToUse", "steps", "acceptanceCriteria", "tags", "document"] as const;

export async function recipeUpdate(
  fields: ChildFields<"update">,
  snapshot: CatalogSnapshot,
  context: RecipeToolContext,
  /**
   * Updates queued per playbook in front of the store. The store serializes
   * them too, but only after taking its file lock and re-reading the file;
   * waiting here lets each queued update with a stale expectedRevision be
   * answered from the catalog instead, so a storm of retries does not clog
   * the playbook's write path. One per tool instance.
   */
  queue: KeyedMutex,
  since?: number,
): Promise<Envelope> {
  const { recipeId, expectedRevision: expected, ...patch } = fields;
  if (!recipeId.startsWith(PRIVATE_PREFIX)) {
    const recipe = snapshot.recipes.get(recipeId);
    if (recipe !== undefined && recipe.visibility === "public") {
      return fail(
        "read_only",
        `Recipe ${recipeId} is a public skill recipe and cannot be changed here; create a private playbook instead`,
        { recipeId },
      );
    }
    return notFound(snapshot, recipeId, "private");
  }
  // The caller's own playbooks (single-user: the DCC's library and this snapshot).
  const own = sourceOf(context, snapshot, recipeId);
  const slug = recipeId.slice(PRIVATE_PREFIX.length);
  const changed = PATCH_KEYS.filter((key) => patch[key] !== undefined);
  return queue.run(`${context.library.dcc}\u0000${context.caller?.user ?? ""}\u0000${slug}`, async () => {
    // The catalog as it is now, after the updates queued before this one.
    const known = (own.library.current() ?? own.snapshot).recipes.get(recipeId);
    if (expected !== undefined && known?.format === "private" && known.playbook.revision > expected) {
      // Revisions only grow: a newer one in the catalog is already a conflict.
      return fail(
        "conflict",
        `playbook "${slug}" is at revision ${known.playbook.revision}, not the expected ${expected}; get it again and reapply the change`,
        { recipeId, currentRevision: known.playbook.revision, expectedRevision: expected },
      );
    }
    return write(context, own.snapshot, recipeId, slug, patch, changed, expected, since);
  });
}

async function write(
  context: RecipeToolContext,
  snapshot: CatalogSnapshot,
  recipeId: string,
  slug: string,
  patch: PlaybookPatch,
  changed: readonly string[],
  expected: number | undefined,
  since: number | undefined,
): Promise<Envelope> {
  const playbooks = playbooksOf(context);
  const result = await playbooks.updatePlaybook(slug, patch, expected, since === undefined ? undefined : { since });
  if (!result.ok) {
    if (result.code === "not_found") return notFound(playbooks.current() ?? snapshot, recipeId, "private");
    if (result.code === "conflict") {
      // The store's revision, not the snapshot's: the store is what the next attempt races against.
      const currentRevision = result.currentRevision ?? (await playbooks.store.loadOne(slug)).playbook?.revision ?? null;
      return storeFailure(result, {
        recipeId,
        currentRevision,
        ...(expected !== undefined ? { expectedRevision: expected } : {}),
      });
    }
    return storeFailure(result, { recipeId });
  }
  const message = changed.length === 0 ? `Nothing to change in ${recipeId}` : `Updated ${recipeId}: ${changed.join(", ")}`;
  return ok(
    message,
    { recipeId, revision: result.playbook.revision, updated: changed },
    playbooks.current()?.revision,
  );
}
