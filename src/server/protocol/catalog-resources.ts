/**
 * The catalog as read-only MCP resources, one per recipe
 * (`recipe://<dcc>/<skill>/<name>`), so that a catalog change has an honest
 * MCP notification: `notifications/resources/list_changed`. Tools never
 * change when recipes do, so `tools/list_changed` would send every client to
 * re-read an identical tool list.
 */
import type { CatalogSnapshot } from "../../recipes/catalog/catalog.js";
import type { Recipe } from "../../recipes/types.js";
import { thenMaybe, type MaybePromise } from "../tools/define.js";
import { JSONRPC } from "../transport/refusals.js";
import { echoed, failure, INVALID_PARAMS, success, type Outcome } from "./outcome.js";

export interface CatalogSource {
  readonly dcc: string;
  current(): CatalogSnapshot | null;
  /**
   * With a users file: one user's own playbooks, served beside `current()`'s
   * public recipes to that user only (made and loading on the first call).
   * Absent (single user): the playbooks are in `current()`, as before.
   */
  playbooksOf?(user: string): UserPlaybooks;
}

/** One user's playbook library as resources need it. */
interface UserPlaybooks {
  current(): CatalogSnapshot | null;
  /** Settles once the first load has published (or failed). */
  readonly loaded: Promise<unknown>;
}

const PAGE_SIZE = 500;

// Type aliases, not interfaces: the SDKs' result types are open objects, and
// only an alias is assignable to an index signature.
type ListedResources = {
  readonly resources: Array<{ uri: string; name: string; description?: string; mimeType: string }>;
  readonly nextCursor?: string;
};

type ReadRecipe = {
  readonly contents: Array<{ uri: string; mimeType: string; text: string }>;
};

export function recipeUri(dcc: string, recipe: Pick<Recipe, "skill" | "name">): string {
  return `recipe://${encodeURIComponent(dcc)}/${encodeURIComponent(recipe.skill)}/${encodeURIComponent(recipe.name)}`;
}

function mimeType(recipe: Recipe): string {
  return recipe.format === "yaml" ? "application/json" : "text/markdown";
}

function text(recipe: Recipe): string {
  if (recipe.format === "markdown") return recipe.content;
  if (recipe.format === "yaml") return JSON.stringify(recipe.entry, null, 2);
  return `# ${recipe.playbook.title}\n\n${recipe.playbook.document}`;
}

/**
 * What `user` sees beside the public recipes: their own playbooks, once
 * loaded. Synchronous when there is no user or their first load is done (an
 * answer ready at once reaches the 2026 leg's adapter in one write: see
 * tools/define.ts); a first request waits for the load, so a new
 * session's first list already holds what the user wrote before.
 */
function ownPlaybooks(source: CatalogSource, user: string | null | undefined): MaybePromise<CatalogSnapshot | null> {
  if (user === null || user === undefined || source.playbooksOf === undefined) return null;
  const own = source.playbooksOf(user);
  const now = own.current();
  return now !== null ? now : own.loaded.then(() => own.current());
}

/**
 * One page of resources/list (cursor: the offset as a decimal string); with
 * `own`, the caller's playbooks sorted in among the public recipes.
 */
export function listRecipeResources(source: CatalogSource, cursor: unknown, own: CatalogSnapshot | null = null): Outcome<ListedResources> {
  const start = cursor === undefined ? 0 : typeof cursor === "string" && cursor.length <= 16 ? Number.parseInt(cursor, 10) : Number.NaN;
  if (!Number.isSafeInteger(start) || start < 0 || String(start) !== (cursor ?? "0")) return failure(INVALID_PARAMS, "Invalid cursor");
  const snapshot = source.current();
  if (snapshot === null) return success({ resources: [] });
  const ids = own === null ? [...snapshot.recipes.keys()].sort() : [...new Set([...snapshot.recipes.keys(), ...own.recipes.keys()])].sort();
  const page = ids.slice(start, start + PAGE_SIZE);
  return success({
    resources: page.map((id) => {
      const recipe = own?.recipes.get(id) ?? snapshot.recipes.get(id)!;
      return {
        uri: recipeUri(snapshot.dcc, recipe),
        name: recipe.recipeId,
        ...(recipe.description !== "" ? { description: recipe.description } : {}),
        mimeType: mimeType(recipe),
      };
    }),
    ...(start + PAGE_SIZE < ids.length ? { nextCursor: String(start + PAGE_SIZE) } : {}),
  });
}

/** resources/list as `user` (the users file's id, or none) sees it. */
export function listResourcesFor(source: CatalogSource, cursor: unknown, user: string | null | undefined): MaybePromise<Outcome<ListedResources>> {
  return thenMaybe(ownPlaybooks(source, user), (own) => listRecipeResources(source, cursor, own));
}

/** resources/read as `user` (the users file's id, or none) may read. */
export function readResourceFor(source: CatalogSource, uri: string, user: string | null | undefined): MaybePromise<Outcome<ReadRecipe>> {
  return thenMaybe(ownPlaybooks(source, user), (own) => readRecipeResource(source, uri, own));
}

/**
 * resources/read of one recipe URI: a public recipe, or one of `own` (the
 * caller's playbooks). A miss is JSONRPC.RESOURCE_NOT_FOUND with `data.uri`: the
 * 2025 answer; the v2 SDK turns it into the 2026 one (-32602). Another
 * user's playbook is a miss like any unknown URI: it is in no snapshot the
 * caller can reach, whatever the URI's encoding.
 */
function readRecipeResource(source: CatalogSource, uri: string, own: CatalogSnapshot | null = null): Outcome<ReadRecipe> {
  const snapshot = source.current();
  const match = /^recipe:\/\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(uri);
  let recipe: Recipe | undefined;
  if (snapshot !== null && match !== null) {
    try {
      const [dcc, skill, name] = [match[1]!, match[2]!, match[3]!].map(decodeURIComponent) as [string, string, string];
      if (dcc === snapshot.dcc) recipe = own?.recipes.get(`${skill}/${name}`) ?? snapshot.recipes.get(`${skill}/${name}`);
    } catch {
      recipe = undefined; // malformed percent-encoding: not a resource of ours
    }
  }
  if (recipe === undefined) return failure(JSONRPC.RESOURCE_NOT_FOUND, "Resource not found", { uri: echoed(uri) });
  return success({ contents: [{ uri, mimeType: mimeType(recipe), text: text(recipe) }] });
}
