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
  /** `user`: who opened the session or sent the request (users file); their playbooks start loading, so their changes can be announced. */
  createServer(user?: string): Server;
  createModernServer(user?: string): ModernServer;
}

export function endpointServers<C>(options: EndpointServerOptions<C>): EndpointServers {
  // Once per endpoint, not per server: both keep per-snapshot indexes, and a
  // 2026 server lives for one request.
  const prompts = createPromptsProvider({ source: options.catalog, maxArgumentBytes: options.maxArgumentBytes, canRun: options.registry.has("recipes__run") });
  const skills = createSkillsProvider({
    source: options.catalog,
    onLeftOut: (skill, reason) => options.logger.warn({ skill, reason }, "skill left out of the Skills extension"),
  });
  const modern = { ...options, prompts, skills };
  // A user's library follows their store (a PostgreSQL NOTIFY, their directory) only once
  // made: a session or listen stream opened before any call must hear their changes too.
  const attend = (user: string | undefined): void => {
    if (user !== undefined) options.catalog.playbooksOf?.(user);
  };
  return {
    createServer: (user) => {
      attend(user);
      return attachPromptsAndSkills(attachCatalogResources(createMcpServer(options), options.catalog), { prompts, skills, catalog: options.catalog });
    },
    createModernServer: (user) => {
      attend(user);
      return createModernMcpServer(modern);
    },
  };
}
