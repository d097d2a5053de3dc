/**
 * Recipes as prompts and the Skills extension on a session's (or stateless
 * request's) 1.32.2 `Server`: the one call createMcpServer makes. It finds
 * the catalog the way the tools do, through the tool context's `library`
 * (a server whose context has none gets neither), and tells the session
 * `notifications/prompts/list_changed` on the reloads that announce
 * `resources/list_changed` (a visible catalog change), until the server closes.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Logger } from "pino";
import type { CatalogSnapshot } from "../../../recipes/catalog.js";
import type { CatalogListener } from "../../../recipes/library.js";
import { attachSkillsLegacy } from "../skills-extension/legacy.js";
import { createSkillsProvider } from "../skills-extension/provider.js";
import { attachPromptsLegacy } from "./legacy.js";
import { createPromptsProvider } from "./provider.js";

export interface CatalogFeed {
  current(): CatalogSnapshot | null;
  onChange(listener: CatalogListener): () => void;
}

export interface SurfaceOptions<C> {
  readonly contextFor: (signal: AbortSignal) => C;
  readonly logger: Logger;
  readonly maxArgumentBytes: number;
}

export function attachPromptsAndSkills<C>(server: Server, options: SurfaceOptions<C>): void {
  const library = feedOf(options.contextFor(new AbortController().signal));
  if (library === null) return;
  const logger = options.logger;
  attachPromptsLegacy(
    server,
    createPromptsProvider({
      source: library,
      maxArgumentBytes: options.maxArgumentBytes,
      onInvalidSchema: (recipeId) => logger.warn({ recipeId }, "prompt inputs_schema fails closed"),
    }),
  );
  attachSkillsLegacy(server, createSkillsProvider({ source: library, onLeftOut: (skill, reason) => logger.debug({ skill, reason }, "skill not served by the Skills extension") }));
  const unsubscribe = library.onChange((_snapshot, previous, change) => {
    // A session without a GET stream cannot receive it; that is not an error.
    if (previous !== null && change.visible) server.sendPromptListChanged().catch(() => undefined);
  });
  const closed = server.onclose;
  server.onclose = () => {
    unsubscribe();
    closed?.();
  };
}

function feedOf(context: unknown): CatalogFeed | null {
  if (typeof context !== "object" || context === null || !("library" in context)) return null;
  const library = (context as { library: unknown }).library as Partial<CatalogFeed> | null;
  return typeof library?.current === "function" && typeof library.onChange === "function" ? (library as CatalogFeed) : null;
}
