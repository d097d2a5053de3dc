/**
 * `registerRecipesTools`: put the five recipes__* tools on a caller's own MCP
 * server, answering from a live recipe library, as dcc-mcp-core's
 * `register_recipes_tools` does. Either SDK line: the 1.x
 * `@modelcontextprotocol/sdk` `McpServer` / `Server` (most DCC bridges) or
 * the v2 `@modelcontextprotocol/server` `McpServer` / `Server`. Nothing here
 * reads the environment: whatever it needs comes in the options.
 */
import os from "node:os";
import path from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  fromJsonSchema,
  McpServer as ModernMcpServer,
  Server as ModernServer,
  type JsonSchemaType,
  type JsonSchemaValidator,
  type jsonSchemaValidator,
} from "@modelcontextprotocol/server";
import pino, { type Logger } from "pino";
import * as z from "zod/v4";
import type { RecipeLibrary } from "../recipes/catalog/library.js";
import { coreRecipeToolDefinitions, openLibrary, recipeRegistry } from "./catalogs.js";
import type { SkillInfo } from "../skills/types.js";
import { resolveDataDir } from "../skills/roots.js";
import { answerLegacy, legacyServers } from "../server/protocol/legacy-server.js";
import { answerModern, installModern } from "../server/protocol/modern-server.js";
import { createSurface } from "../server/protocol/surface.js";
import { recipeContext } from "../server/tools/context.js";

export interface RegisterRecipesToolsOptions {
  /** Skills to serve, e.g. from `scanSkills` (each is loaded from its directory). */
  readonly skills: readonly SkillInfo[];
  readonly dccName?: string;
  /**
   * Where usage counts are kept; default `<data dir>/recipe-server/<dcc>`,
   * the data dir resolved from `env` (XDG_DATA_HOME, LOCALAPPDATA) and the
   * home directory.
   */
  readonly stateDir?: string;
  /** The environment the default `stateDir` is resolved from (pass `process.env` to honour XDG_DATA_HOME); default none. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly logger?: Logger;
  /** Per-call argument size bound (default 1 MiB). */
  readonly maxArgumentBytes?: number;
}

export interface RecipesToolsHandle {
  readonly library: RecipeLibrary;
  /** Resolves once the catalog has loaded (tools answer not_ready before). */
  readonly ready: Promise<void>;
  /**
   * Put the same tools, on the same library, on another server: for a v2
   * `createMcpHandler` factory, which builds a fresh server per request.
   */
  register(server: RecipesToolsHost): void;
  /** Re-read every skill from disk; tools see the new catalog at once. */
  reload(): Promise<void>;
  /** Flush usage counts and stop background work. */
  close(): Promise<void>;
}

/** The servers `registerRecipesTools` accepts: either SDK line, high- or low-level. */
type RecipesToolsHost = McpServer | Server | ModernMcpServer | ModernServer;

/**
 * The v2 McpServer wants a Standard Schema; this one carries our exact JSON
 * Schema for tools/list and lets every value through, because the registry
 * validates with src/jsonschema (an invalid call is then our invalid_input
 * envelope, as on the 1.x McpServer).
 */
const PASS_THROUGH: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

export function registerRecipesTools(server: RecipesToolsHost, options: RegisterRecipesToolsOptions): RecipesToolsHandle {
  const dcc = (options.dccName ?? "dcc").toLowerCase();
  const logger = options.logger ?? pino({ level: "silent" });
  const stateDir = options.stateDir ?? path.join(resolveDataDir(options.env ?? {}, os.homedir(), process.platform), "recipe-server", dcc);
  const library = openLibrary({
    settings: {
      dcc,
      // A root that itself holds SKILL.md is that skill, so each skill dir
      // as a root reproduces exactly the skills given.
      skillRoots: [...new Set(options.skills.map((skill) => skill.dir))],
      privateDir: path.join(stateDir, "private"),
      stateDir,
    },
    embeddings: null,
    logger,
  });
  const registry = recipeRegistry(coreRecipeToolDefinitions(), logger);
  const surface = createSurface({
    tools: { registry, contextFor: (call) => recipeContext(library, logger, call), logger, maxArgumentBytes: options.maxArgumentBytes ?? 1024 * 1024 },
  });
  const toolCall = surface.methods.get("tools/call")!;
  const legacy = legacyServers(surface, { name: "recipes", version: "1" });

  const attach = (host: RecipesToolsHost): void => {
    if (host instanceof McpServer) {
      for (const tool of registry.list()) {
        // McpServer only takes zod schemas; a catch-all object whose JSON Schema
        // is overridden by metadata advertises our exact Draft 2020-12 schema,
        // and the registry validates with the project's validator.
        const inputSchema = z.object({}).catchall(z.unknown()).meta({ ...tool.inputSchema });
        host.registerTool(
          tool.name,
          { title: tool.title, description: tool.description, inputSchema, annotations: tool.annotations },
          (args, extra) => answerLegacy(toolCall, { name: tool.name, arguments: args }, extra) as never,
        );
      }
    } else if (host instanceof ModernMcpServer) {
      for (const tool of registry.list()) {
        host.registerTool(
          tool.name,
          {
            title: tool.title,
            description: tool.description,
            inputSchema: fromJsonSchema<Record<string, unknown>>(tool.inputSchema as JsonSchemaType, PASS_THROUGH),
            annotations: tool.annotations,
          },
          (args, ctx) => answerModern(toolCall, { name: tool.name, arguments: args }, ctx) as never,
        );
      }
    } else if (host instanceof ModernServer) {
      host.registerCapabilities({ tools: { listChanged: true } });
      installModern(host, surface);
    } else {
      legacy.install(host);
    }
  };
  attach(server);

  const ready = library.load().then(() => undefined);
  ready.catch((error: unknown) => logger.error({ err: error }, "recipe catalog load failed"));
  return {
    library,
    ready,
    register: attach,
    async reload() {
      await library.load();
    },
    async close() {
      await library.flush();
      await library.search.close();
    },
  };
}
