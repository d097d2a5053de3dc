/**
 * The Skills extension on a 1.32.2 SDK `Server` (the 2025-era leg), as the
 * extension defines it for 2025-11-25 clients: declared under
 * `capabilities.extensions` (with `resources`, which it depends on), the
 * results without the 2026 cache fields, skill files through resources/read.
 *
 * resources/read and resources/list are shared with the recipe resources
 * (catalog-resources.ts), which the composition root attaches after this
 * runs: a later registration of either method is kept as the fallback of
 * ours instead of replacing it, so `skill://` URIs come here and every other
 * URI goes where it went before, and the first resources/list page lists
 * each skill's SKILL.md ahead of the recipes.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListResourcesRequestSchema, McpError, ReadResourceRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/v4";
import { unwrap } from "../prompts/legacy.js";
import { SKILLS_CAPABILITY, SKILLS_EXTENSION_ID, type SkillsProvider } from "./provider.js";

const params = z.object({}).passthrough().optional();
const SkillsListRequest = z.object({ method: z.literal("skills/list"), params });
const SkillsGetRequest = z.object({ method: z.literal("skills/get"), params });
const DirectoryReadRequest = z.object({ method: z.literal("resources/directory/read"), params });

type Handler = (request: { params?: Record<string, unknown> }, extra: unknown) => unknown;

/** Call before connect (capabilities are fixed then). */
export function attachSkillsLegacy(server: Server, skills: SkillsProvider): void {
  server.registerCapabilities({ resources: {}, extensions: { [SKILLS_EXTENSION_ID]: { ...SKILLS_CAPABILITY } } });
  server.setRequestHandler(SkillsListRequest, async (request) => unwrap(await skills.list(request.params)) as never);
  server.setRequestHandler(SkillsGetRequest, async (request) => unwrap(await skills.get(request.params)) as never);
  server.setRequestHandler(DirectoryReadRequest, async (request) => unwrap(await skills.readDirectory(request.params)) as never);
  routeResources(server, skills);
}

function routeResources(server: Server, skills: SkillsProvider): void {
  const install = server.setRequestHandler.bind(server) as unknown as (schema: unknown, handler: Handler) => void;
  let readOthers: Handler | null = null;
  let listOthers: Handler | null = null;
  install(ReadResourceRequestSchema, async (request, extra) => {
    const uri = request.params?.["uri"];
    if (skills.handles(uri)) return unwrap(await skills.read(request.params));
    if (readOthers !== null) return readOthers(request, extra);
    throw new McpError(-32602, "Resource not found", { uri: String(uri).slice(0, 500) });
  });
  install(ListResourcesRequestSchema, async (request, extra) => {
    const others = (listOthers === null ? { resources: [] } : await listOthers(request, extra)) as { resources: unknown[] };
    return request.params?.["cursor"] === undefined ? { ...others, resources: [...skills.listResources(), ...others.resources] } : others;
  });
  server.setRequestHandler = ((schema: unknown, handler: Handler) => {
    if (schema === ReadResourceRequestSchema) readOthers = handler;
    else if (schema === ListResourcesRequestSchema) listOthers = handler;
    else install(schema, handler);
  }) as unknown as typeof server.setRequestHandler;
}
