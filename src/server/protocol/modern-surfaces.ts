/**
 * Prompts and the Skills extension on a v2 (2026-07-28) server: the
 * protocol-neutral providers (prompts/, skills-extension/) answer, this file
 * only turns their outcomes into results or thrown JSON-RPC errors and adds
 * the cache fields the revision wants on the extension's own results.
 */
import type { Server as ModernServer, StandardSchemaV1 } from "@modelcontextprotocol/server";
import {
  GetSkillRequestParamsSchema,
  ListSkillsRequestParamsSchema,
  ReadResourceDirectoryRequestParamsSchema,
  RESOURCES_DIRECTORY_READ_METHOD,
  SKILLS_EXTENSION_ID,
  SKILLS_GET_METHOD,
  SKILLS_LIST_METHOD,
} from "@modelcontextprotocol/core/ext/skills";
import type { PromptsProvider } from "./prompts/provider.js";
import { unwrap } from "./prompts/legacy.js";
import type { SkillsProvider } from "./skills-extension/provider.js";

/** A skill's files follow hot reload like the recipe lists: short and private. */
const SKILLS_CACHE = { ttlMs: 5_000, cacheScope: "private" } as const;

export function installModernPrompts(server: ModernServer, prompts: PromptsProvider): void {
  server.registerCapabilities({ prompts: { listChanged: true } });
  // The providers' result types are readonly views of plain JSON; the SDK's are mutable.
  server.setRequestHandler("prompts/list", (request) => unwrap(prompts.list(request.params)) as never);
  server.setRequestHandler("prompts/get", (request) => unwrap(prompts.get(request.params)) as never);
}

/**
 * skills/list, skills/get and resources/directory/read, declared under
 * `capabilities.extensions`. resources/read and resources/list of skill
 * files go through `readResource`/`listResources` (one handler per method
 * serves both recipe and skill URIs: see modern-server.ts).
 */
export function installModernSkills(server: ModernServer, skills: SkillsProvider): void {
  server.registerCapabilities({ extensions: { [SKILLS_EXTENSION_ID]: { directoryRead: true } } });
  const params = <T>(schema: T): { params: T & StandardSchemaV1 } => ({ params: schema as T & StandardSchemaV1 });
  server.setRequestHandler(SKILLS_LIST_METHOD, params(ListSkillsRequestParamsSchema), async (request) => ({
    ...unwrap(await skills.list(request)),
    ...SKILLS_CACHE,
  }));
  server.setRequestHandler(SKILLS_GET_METHOD, params(GetSkillRequestParamsSchema), async (request) => ({
    ...unwrap(await skills.get(request)),
    ...SKILLS_CACHE,
  }));
  server.setRequestHandler(RESOURCES_DIRECTORY_READ_METHOD, params(ReadResourceDirectoryRequestParamsSchema), async (request) => ({
    ...unwrap(await skills.readDirectory(request)),
    ...SKILLS_CACHE,
  }));
}
