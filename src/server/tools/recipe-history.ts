/**
 * `recipe` actions over a private playbook's revisions: history, get at a
 * revision, restore and delete. They reach only the caller's own playbooks
 * (another user's playbook is not_found here as everywhere); public recipes
 * have no history and cannot be restored or deleted through the tool.
 */
import type { CatalogSnapshot } from "../../recipes/catalog/catalog.js";
import type { StoreFailure } from "../../recipes/store/contract.js";
import { playbookFields } from "../../recipes/store/playbook-values.js";
import type { Playbook } from "../../recipes/types.js";
import { playbooksOf, sourceOf, type RecipeToolContext } from "./context.js";
import { fail, ok, type Envelope } from "./envelope.js";
import { notFound } from "./recipe-get.js";
import { storeFailure } from "./recipe-create.js";
import type { ChildFields } from "./recipe-schemas.js";

const PRIVATE_PREFIX = "private/";

type Target = { readonly slug: string } | { readonly answer: Envelope };

/** The slug of a private id; a public id is read_only for writes and not_found for reads. */
function target(recipeId: string, snapshot: CatalogSnapshot, context: RecipeToolContext, write: boolean): Target {
  if (recipeId.startsWith(PRIVATE_PREFIX)) return { slug: recipeId.slice(PRIVATE_PREFIX.length) };
  const recipe = snapshot.recipes.get(recipeId);
  if (write && recipe?.visibility === "public") {
    return { answer: fail("read_only", `Recipe ${recipeId} is a public skill recipe and cannot be changed here`, { recipeId }) };
  }
  return { answer: notFound(sourceOf(context, snapshot, PRIVATE_PREFIX).snapshot, recipeId, "private") };
}

/** A store refusal as the tool answers it: not_found with the caller's own close ids, conflicts with the revisions. */
function refused(result: StoreFailure, context: RecipeToolContext, snapshot: CatalogSnapshot, recipeId: string, expected?: number): Envelope {
  if (result.code === "not_found" && result.message.startsWith("no private playbook")) {
    return notFound(playbooksOf(context).current() ?? snapshot, recipeId, "private");
  }
  const extra = result.code === "conflict" && result.currentRevision !== undefined ? { currentRevision: result.currentRevision } : {};
  return storeFailure(result, { recipeId, ...extra, ...(expected !== undefined ? { expectedRevision: expected } : {}) });
}

export async function recipeHistory(fields: ChildFields<"history">, snapshot: CatalogSnapshot, context: RecipeToolContext): Promise<Envelope> {
  const { recipeId, start = 0, limit = 20 } = fields;
  const t = target(recipeId, snapshot, context, false);
  if ("answer" in t) return t.answer;
  const result = await playbooksOf(context).store.history(t.slug, { start, limit });
  if (!result.ok) return refused(result, context, snapshot, recipeId);
  const { entries, total, deleted } = result.page;
  const shown = entries.length === 0 ? "none" : `${entries[0]!.revision}…${entries.at(-1)!.revision}`;
  return ok(`History of ${recipeId}${deleted ? " (deleted)" : ""}: ${total} kept revision(s), showing ${shown}`, { recipeId, deleted, total, start, entries });
}

export async function recipeGetRevision(recipeId: string, revision: number, snapshot: CatalogSnapshot, context: RecipeToolContext): Promise<Envelope> {
  const t = target(recipeId, snapshot, context, false);
  if ("answer" in t) return t.answer;
  const result = await playbooksOf(context).store.loadRevision(t.slug, revision);
  if (!result.ok) return refused(result, context, snapshot, recipeId);
  const note = result.deleted ? " (the playbook is deleted; action=restore brings this revision back)" : "";
  return ok(`Recipe ${recipeId} at revision ${revision}${note}`, { ...revisionView(recipeId, result.playbook), deleted: result.deleted });
}

export async function recipeRestore(fields: ChildFields<"restore">, snapshot: CatalogSnapshot, context: RecipeToolContext, since: number): Promise<Envelope> {
  const { recipeId, revision, expectedRevision } = fields;
  const t = target(recipeId, snapshot, context, true);
  if ("answer" in t) return t.answer;
  const playbooks = playbooksOf(context);
  const result = await playbooks.restorePlaybook(t.slug, revision, expectedRevision, { since });
  if (!result.ok) return refused(result, context, snapshot, recipeId, expectedRevision);
  return ok(
    `Restored ${recipeId} to the content of revision ${revision}, as revision ${result.playbook.revision}`,
    { recipeId, revision: result.playbook.revision, restoredFrom: revision },
    playbooks.current()?.revision,
  );
}

export async function recipeDelete(fields: ChildFields<"delete">, snapshot: CatalogSnapshot, context: RecipeToolContext, since: number): Promise<Envelope> {
  const { recipeId, expectedRevision } = fields;
  const t = target(recipeId, snapshot, context, true);
  if ("answer" in t) return t.answer;
  const playbooks = playbooksOf(context);
  const result = await playbooks.deletePlaybook(t.slug, expectedRevision, { since });
  if (!result.ok) return refused(result, context, snapshot, recipeId, expectedRevision);
  const last = result.playbook.revision - 1;
  return ok(
    `Deleted ${recipeId}; action=restore with revision ${last} brings it back`,
    { recipeId, revision: result.playbook.revision, restorable: last },
    playbooks.current()?.revision,
  );
}

function revisionView(recipeId: string, p: Playbook): Record<string, unknown> {
  return { recipeId, visibility: "private", format: "private", ...playbookFields(p), revision: p.revision, createdAt: p.createdAt, updatedAt: p.updatedAt };
}
