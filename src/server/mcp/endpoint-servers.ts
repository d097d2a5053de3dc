/**
 * The two faces of one recipe endpoint, built from one set of options so the
 * eras cannot drift apart: a 1.32.2 `Server` for 2025-era sessions and a v2
 * `Server` for 2026-07-28 requests, both answering from the same registry and
 * the same live catalog.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Server as ModernServer } from "@modelcontextprotocol/server";
import { attachCatalogResources, type CatalogSource } from "./catalog-resources.js";
import { createMcpServer, type McpServerOptions } from "./create-server.js";
import { createModernMcpServer } from "./modern-server.js";
import { attachPromptsAndSkills } from "./prompts/attach.js";
import { createPromptsProvider } from "./prompts/provider.js";
import { createSkillsProvider } from "./skills-extension/provider.js";

export interface EndpointServerOptions<C> extends McpServerOptions<C> {
  readonly catalog: CatalogSource;
}

export interface EndpointServers {
  createServer(): Server;
  createModernServer(): ModernServer;
}

export function endpointServers<C>(options: EndpointServerOptions<C>): EndpointServers {
  // Once per endpoint, not per server: both keep per-snapshot indexes, and a
  // 2026 server lives for one request.
  const prompts = createPromptsProvider({ source: options.catalog, maxArgumentBytes: options.maxArgumentBytes });
  const skills = createSkillsProvider({
    source: options.catalog,
    onLeftOut: (skill, reason) => options.logger.warn({ skill, reason }, "skill left out of the Skills extension"),
  });
  const modern = { ...options, prompts, skills };
  return {
    createServer: () => attachPromptsAndSkills(attachCatalogResources(createMcpServer(options), options.catalog), { prompts, skills, catalog: options.catalog }),
    createModernServer: () => createModernMcpServer(modern),
  };
}
