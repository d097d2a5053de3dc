/**
 * The 2026-07-28 face of an endpoint: a low-level v2 SDK `Server` per request
 * whose tools/list, tools/call, resources/list and resources/read read the
 * same registry and catalog as the 2025 leg (create-server.ts). Tool input
 * schemas go out as the Draft 2020-12 JSON Schema they are; arguments are
 * validated by the registry with src/jsonschema, never by the SDK.
 */
import { Server as ModernServer, type CacheHint, type ListToolsResult, type ServerCapabilities } from "@modelcontextprotocol/server";
import { JSONRPC } from "../transport/jsonrpc.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { listResourcesFor, readResourceFor, type CatalogSource } from "./catalog-resources.js";
import { NO_HOOKS, runToolCall, type ToolCallHooks, type ToolHandlerOptions } from "./create-server.js";
import { thenMaybe } from "../tools/maybe-promise.js";
import { installModernPrompts, installModernSkills } from "./modern-surfaces.js";
import { unwrap } from "./prompts/legacy.js";
import type { PromptsProvider } from "./prompts/provider.js";
import type { SkillsProvider } from "./skills-extension/provider.js";

/** An hour: the tool list is fixed for the life of the process and the same for every caller. */
const TOOLS_CACHE: CacheHint = { ttlMs: 3_600_000, cacheScope: "public" };
/**
 * Recipe lists follow hot reload (and may hold a caller's private
 * playbooks): a short, private lifetime, and a list_changed on every change.
 */
const CATALOG_CACHE: CacheHint = { ttlMs: 5_000, cacheScope: "private" };

export interface ModernServerOptions<C> extends ToolHandlerOptions<C> {
  readonly name: string;
  readonly version: string;
  readonly instructions?: string;
  /** Serve the catalog as resources too (the daemon does; the library entry does not). */
  readonly catalog?: CatalogSource;
  /** Recipes as prompts (made once per endpoint: providers keep per-snapshot indexes). */
  readonly prompts?: PromptsProvider;
  /** The Skills extension; its files are resources beside the recipes. */
  readonly skills?: SkillsProvider;
}

export function createModernMcpServer<C>(options: ModernServerOptions<C>): ModernServer {
  // No tools.listChanged here: the tool list never changes while the process
  // lives, and a 2026 client would otherwise ask a listen stream for changes
  // that cannot come. (The 2025 leg keeps declaring it, as it always has.)
  const capabilities: ServerCapabilities = { tools: {} };
  if (options.catalog !== undefined) capabilities.resources = { listChanged: true };
  const server = new ModernServer(
    { name: options.name, version: options.version },
    {
      capabilities,
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
      cacheHints: {
        "tools/list": TOOLS_CACHE,
        "server/discover": TOOLS_CACHE,
        "resources/list": CATALOG_CACHE,
        "resources/read": CATALOG_CACHE,
        "resources/templates/list": TOOLS_CACHE,
        "prompts/list": CATALOG_CACHE,
      },
    },
  );
  installModernToolHandlers(server, options);
  if (options.catalog !== undefined) installModernResources(server, options.catalog, options.skills);
  if (options.prompts !== undefined) installModernPrompts(server, options.prompts);
  if (options.skills !== undefined) installModernSkills(server, options.skills);
  return server;
}

/** tools/list and tools/call on a v2 low-level server, answered from the registry. */
export function installModernToolHandlers<C>(server: ModernServer, options: ToolHandlerOptions<C>): void {
  // The registry's schemas are JSON Schema objects with `type: "object"` (each
  // compiled at start-up); the SDK's type spells that out, ours keeps them opaque.
  const tools = (): ListToolsResult["tools"] => [...options.registry.list()] as unknown as ListToolsResult["tools"];
  server.setRequestHandler("tools/list", () => ({ tools: tools() }));
  server.setRequestHandler("tools/call", (request, ctx) => {
    const { name, arguments: args } = request.params;
    // The SDK reads `code` and `data` off whatever is thrown: one error class serves both legs.
    if (!options.registry.has(name)) throw new McpError(JSONRPC.invalidParams, `Unknown tool: ${name}`);
    const token = ctx.mcpReq._meta?.progressToken;
    const hooks: ToolCallHooks =
      token === undefined
        ? NO_HOOKS
        : {
            progress: (done, total, message) => {
              ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: done, total, message } }).catch(() => undefined);
            },
          };
    return runToolCall(options, name, args, ctx.mcpReq.signal, ctx.http?.authInfo?.clientId ?? null, hooks);
  });
}

/**
 * Recipes (`recipe://`) and, with the Skills extension, each served skill's
 * SKILL.md on the first page and every skill file readable (`skill://`).
 */
function installModernResources(server: ModernServer, source: CatalogSource, skills?: SkillsProvider): void {
  server.setRequestHandler("resources/list", (request, ctx) => {
    const cursor = request.params?.cursor;
    return thenMaybe(listResourcesFor(source, cursor, ctx.http?.authInfo?.clientId), (recipes) => {
      if (skills === undefined || cursor !== undefined) return recipes;
      return { ...recipes, resources: [...skills.listResources(), ...recipes.resources] };
    });
  });
  // Recipes have fixed URIs: no templates, but a declared `resources` owes the method an answer.
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [] }));
  server.setRequestHandler("resources/read", async (request, ctx) => {
    const { uri } = request.params;
    if (skills?.handles(uri) === true) return unwrap(await skills.read(request.params)) as never;
    return readResourceFor(source, uri, ctx.http?.authInfo?.clientId);
  });
}
