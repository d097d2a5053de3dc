/**
 * `registerRecipesTools`: put the five recipes__* tools on a caller's own MCP
 * server (the SDK's `McpServer` or low-level `Server`), answering from a
 * live recipe library, as dcc-mcp-core's `register_recipes_tools` does.
 */
import os from "node:os";
import path from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import pino, { type Logger } from "pino";
import * as z from "zod/v4";
import { RecipeLibrary } from "../recipes/library.js";
import { createSearchEngine } from "../recipes/search/engine.js";
import type { SkillInfo } from "../skills/types.js";
import { resolveDataDir } from "../skills/roots.js";
import { installToolHandlers, runToolCall, type ToolHandlerOptions } from "./mcp/create-server.js";
import type { RecipeToolContext } from "./tools/context.js";
import { coreRecipeToolDefinitions } from "./tools/index.js";
import { createToolRegistry } from "./tools/registry.js";

export interface RegisterRecipesToolsOptions {
  /** Skills to serve, e.g. from `scanSkills` (each is loaded from its directory). */
  readonly skills: readonly SkillInfo[];
  readonly dccName?: string;
  /** Where usage counts are kept; default `<data dir>/recipe-server/<dcc>`. */
  readonly stateDir?: string;
  readonly logger?: Logger;
  /** Per-call argument size bound (default 1 MiB). */
  readonly maxArgumentBytes?: number;
}

export interface RecipesToolsHandle {
  readonly library: RecipeLibrary;
  /** Resolves once the catalog has loaded (tools answer not_ready before). */
  readonly ready: Promise<void>;
  /** Re-read every skill from disk; tools see the new catalog at once. */
  reload(): Promise<void>;
  /** Flush usage counts and stop background work. */
  close(): Promise<void>;
}

export function registerRecipesTools(server: McpServer | Server, options: RegisterRecipesToolsOptions): RecipesToolsHandle {
  const dcc = (options.dccName ?? "dcc").toLowerCase();
  const logger = options.logger ?? pino({ level: "silent" });
  const stateDir = options.stateDir ?? path.join(resolveDataDir(process.env, os.homedir(), process.platform), "recipe-server", dcc);
  const library = new RecipeLibrary({
    settings: {
      dcc,
      // A root that itself holds SKILL.md is that skill, so each skill dir
      // as a root reproduces exactly the skills given.
      skillRoots: [...new Set(options.skills.map((skill) => skill.dir))],
      privateDir: path.join(stateDir, "private"),
      stateDir,
    },
    search: createSearchEngine({ provider: null, logger }),
    logger,
  });
  const registry = createToolRegistry<RecipeToolContext>(coreRecipeToolDefinitions(), (tool, error) =>
    logger.error({ tool, err: error }, "tool handler failed"),
    (context) => context.library.current()?.revision,
  );
  const handlerOptions: ToolHandlerOptions<RecipeToolContext> = {
    registry,
    contextFor: () => ({ library, logger }),
    logger,
    maxArgumentBytes: options.maxArgumentBytes ?? 1024 * 1024,
  };

  if (server instanceof McpServer) {
    for (const tool of registry.list()) {
      // McpServer only takes zod schemas; a catch-all object whose JSON Schema
      // is overridden by metadata advertises our exact Draft 2020-12 schema,
      // and the registry validates with the project's validator.
      const inputSchema = z.object({}).catchall(z.unknown()).meta({ ...tool.inputSchema });
      server.registerTool(
        tool.name,
        { title: tool.title, description: tool.description, inputSchema, annotations: tool.annotations },
        (args, extra) => runToolCall(handlerOptions, tool.name, args, extra.signal),
      );
    }
  } else {
    server.registerCapabilities({ tools: { listChanged: true } });
    installToolHandlers(server, handlerOptions);
  }

  const ready = library.load().then(() => undefined);
  ready.catch((error: unknown) => logger.error({ err: error }, "recipe catalog load failed"));
  return {
    library,
    ready,
    async reload() {
      await library.load();
    },
    async close() {
      await library.flush();
      await library.search.close();
    },
  };
}
