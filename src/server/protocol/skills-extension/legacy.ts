/**
 * The Skills extension on a 1.32.2 SDK `Server` (the 2025-era leg), as the
 * extension defines it for 2025-11-25 clients: declared under
 * `capabilities.extensions` (with `resources`, which it depends on), the
 * results without the 2026 cache fields, skill files through resources/read.
 *
 * resources/list and resources/read serve recipes and skill files alike, so
 * this replaces the recipe-only handlers of catalog-resources.ts with ones
 * that route `skill://` URIs here and every other URI to the recipe
 * resources, and list each served skill's SKILL.md on the first page.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListResourcesRequestSchema, ReadResourceRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/v4";
import { listResourcesFor, readResourceFor, type CatalogSource } from "../catalog-resources.js";
import { unwrap } from "../prompts/legacy.js";
import { SKILLS_CAPABILITY, SKILLS_EXTENSION_ID, type SkillsProvider } from "./provider.js";

const params = z.object({}).passthrough().optional();
const SkillsListRequest = z.object({ method: z.literal("skills/list"), params });
const SkillsGetRequest = z.object({ method: z.literal("skills/get"), params });
const DirectoryReadRequest = z.object({ method: z.literal("resources/directory/read"), params });

/** Call before connect (capabilities are fixed then), after attachCatalogResources if that is used. */
export function attachSkillsLegacy(server: Server, skills: SkillsProvider, catalog: CatalogSource): Server {
  server.registerCapabilities({ resources: { listChanged: true }, extensions: { [SKILLS_EXTENSION_ID]: { ...SKILLS_CAPABILITY } } });
  server.setRequestHandler(SkillsListRequest, async (request) => unwrap(await skills.list(request.params)) as never);
  server.setRequestHandler(SkillsGetRequest, async (request) => unwrap(await skills.get(request.params)) as never);
  server.setRequestHandler(DirectoryReadRequest, async (request) => unwrap(await skills.readDirectory(request.params)) as never);
  server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => {
    const cursor = request.params?.cursor;
    const recipes = await listResourcesFor(catalog, cursor, extra.authInfo?.clientId);
    return cursor === undefined ? { ...recipes, resources: [...skills.listResources(), ...recipes.resources] } : recipes;
  });
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const { uri } = request.params;
    if (skills.handles(uri)) return unwrap(await skills.read(request.params)) as never;
    return readResourceFor(catalog, uri, extra.authInfo?.clientId);
  });
  return server;
}
