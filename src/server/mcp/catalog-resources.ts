/**
 * The catalog as read-only MCP resources, one per recipe
 * (`recipe://<dcc>/<skill>/<name>`), so that a catalog change has an honest
 * MCP notification: `notifications/resources/list_changed`. Tools never
 * change when recipes do, so `tools/list_changed` would send every client to
 * re-read an identical tool list.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListResourcesRequestSchema, McpError, ReadResourceRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { CatalogSnapshot } from "../../recipes/catalog.js";
import type { Recipe } from "../../recipes/types.js";
import { JSONRPC } from "../http/jsonrpc.js";

export interface CatalogSource {
  readonly dcc: string;
  current(): CatalogSnapshot | null;
}

const PAGE_SIZE = 500;

// Type aliases, not interfaces: the SDKs' result types are open objects, and
// only an alias is assignable to an index signature.
export type ListedResources = {
  readonly resources: Array<{ uri: string; name: string; description?: string; mimeType: string }>;
  readonly nextCursor?: string;
};

export type ReadRecipe = {
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

/** One page of resources/list (cursor: the offset as a decimal string). */
export function listRecipeResources(source: CatalogSource, cursor: string | undefined): ListedResources {
  const snapshot = source.current();
  if (snapshot === null) return { resources: [] };
  const ids = [...snapshot.recipes.keys()].sort();
  const start = cursor === undefined ? 0 : Number.parseInt(cursor, 10);
  if (!Number.isSafeInteger(start) || start < 0 || String(start) !== (cursor ?? "0")) {
    throw new McpError(JSONRPC.invalidParams, "Invalid cursor");
  }
  const page = ids.slice(start, start + PAGE_SIZE);
  return {
    resources: page.map((id) => {
      const recipe = snapshot.recipes.get(id)!;
      return {
        uri: recipeUri(snapshot.dcc, recipe),
        name: recipe.recipeId,
        ...(recipe.description !== "" ? { description: recipe.description } : {}),
        mimeType: mimeType(recipe),
      };
    }),
    ...(start + PAGE_SIZE < ids.length ? { nextCursor: String(start + PAGE_SIZE) } : {}),
  };
}

/**
 * resources/read of one recipe URI. A miss throws RESOURCE_NOT_FOUND with
 * `data.uri`: the 2025 answer; the v2 SDK turns it into the 2026 one (-32602).
 */
export function readRecipeResource(source: CatalogSource, uri: string): ReadRecipe {
  const snapshot = source.current();
  const match = /^recipe:\/\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(uri);
  let recipe: Recipe | undefined;
  if (snapshot !== null && match !== null) {
    try {
      const [dcc, skill, name] = [match[1]!, match[2]!, match[3]!].map(decodeURIComponent) as [string, string, string];
      if (dcc === snapshot.dcc) recipe = snapshot.recipes.get(`${skill}/${name}`);
    } catch {
      recipe = undefined; // malformed percent-encoding: not a resource of ours
    }
  }
  if (recipe === undefined) throw new McpError(JSONRPC.RESOURCE_NOT_FOUND, "Resource not found", { uri: uri.slice(0, 500) });
  return { contents: [{ uri, mimeType: mimeType(recipe), text: text(recipe) }] };
}

/** Declares `resources.listChanged` and answers resources/list and resources/read. Call before connect. */
export function attachCatalogResources(server: Server, source: CatalogSource): Server {
  server.registerCapabilities({ resources: { listChanged: true } });
  server.setRequestHandler(ListResourcesRequestSchema, async (request) => listRecipeResources(source, request.params?.cursor));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => readRecipeResource(source, request.params.uri));
  return server;
}

/**
 * Tells every live session server that the resource list changed. A session
 * without an open GET stream cannot receive it; that is not an error.
 */
export function notifyResourceListChanged(servers: Iterable<Server>): number {
  let sent = 0;
  for (const server of servers) {
    sent += 1;
    server.sendResourceListChanged().catch(() => undefined);
  }
  return sent;
}
