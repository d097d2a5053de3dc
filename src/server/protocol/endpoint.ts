/**
 * The two faces of one recipe endpoint, built from one surface table so the
 * eras cannot drift apart: a 1.32.2 `Server` for 2025-era sessions and a v2
 * `Server` for 2026-07-28 requests, both answering from the same registry and
 * the same live catalog.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Server as ModernServer } from "@modelcontextprotocol/server";
import type { CatalogSource } from "./catalog-resources.js";
import { legacyServers } from "./legacy-server.js";
import { modernServers } from "./modern-server.js";
import { createPromptsProvider } from "./prompts/provider.js";
import { createSkillsProvider } from "./skills-extension/provider.js";
import { createSurface, type ServerInfo, type ToolCallOptions } from "./surface.js";

interface EndpointOptions<C> extends ServerInfo {
  readonly tools: ToolCallOptions<C>;
  /** The catalog as resources, prompts and skills (absent: tools only). */
  readonly catalog?: CatalogSource;
  /** Bound on the arguments of one prompts/get. */
  readonly maxPromptArgumentBytes?: number;
}

interface EndpointServers {
  /** `user`: who opened the session or sent the request (users file); their playbooks start loading, so their changes can be announced. */
  createServer(user?: string): Server;
  /** `method`: the one method the request calls, when known: the server then carries that method's handler only. */
  createModernServer(user?: string, method?: string): ModernServer;
}

export function endpointServers<C>(options: EndpointOptions<C>): EndpointServers {
  const { catalog } = options;
  // Once per endpoint, not per server: the providers keep per-snapshot
  // indexes, and a 2026 server lives for one request.
  const surface = createSurface({
    tools: options.tools,
    ...(catalog !== undefined
      ? {
          catalog,
          prompts: createPromptsProvider({
            source: catalog,
            // A recipe's prompt points at recipes__run where this endpoint can run it, else at recipes__apply.
            canRun: options.tools.registry.has("recipes__run"),
            ...(options.maxPromptArgumentBytes !== undefined ? { maxArgumentBytes: options.maxPromptArgumentBytes } : {}),
          }),
          skills: createSkillsProvider({
            source: catalog,
            onLeftOut: (skill, reason) => options.tools.logger.warn({ skill, reason }, "skill left out of the Skills extension"),
          }),
        }
      : {}),
  });
  const legacy = legacyServers(surface, options);
  const modern = modernServers(surface, options);
  // A user's library follows their store (a PostgreSQL NOTIFY, their directory) only once
  // made: a session or listen stream opened before any call must hear their changes too.
  const attend = (user: string | undefined): void => {
    if (user !== undefined) catalog?.playbooksOf?.(user);
  };
  return {
    createServer: (user) => {
      attend(user);
      return legacy.create();
    },
    createModernServer: (user, method) => {
      attend(user);
      return modern.create(method);
    },
  };
}
