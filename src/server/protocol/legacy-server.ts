/**
 * The 2025-era installer: every entry of a surface table (surface.ts) on an
 * SDK 1.32.2 `Server`, for 2025-11-25 sessions (and stateless 2025
 * requests). Each method is registered with a schema that names the method
 * and nothing else: params reach the table as sent, so malformed params are
 * the table's -32602 and never a zod dump; outcomes become McpErrors here
 * and nowhere else.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { McpError, type ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/v4";
import { thenMaybe, type MaybePromise } from "../tools/define.js";
import type { Outcome } from "./outcome.js";
import { SKILLS_CAPABILITY, SKILLS_EXTENSION_ID } from "./skills-extension/provider.js";
import type { CallInfo, MethodHandler, Surface } from "./surface.js";

export interface ServerInfo {
  readonly name: string;
  readonly version: string;
  readonly instructions?: string;
}

/** What the SDK hands a 1.32.2 handler, as far as the table needs it. */
interface LegacyExtra {
  readonly signal: AbortSignal;
  readonly authInfo?: { readonly clientId?: string };
  sendNotification(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
}

type LegacyHandler = (request: { method: string; params?: unknown }, extra: LegacyExtra) => MaybePromise<object>;

/** Makes 1.32.2 servers for one surface; the method schemas are built once, here, for every server it makes. */
export function legacyServers(surface: Surface, info: ServerInfo): { create(): Server; install(server: Server): void } {
  const schemas = new Map([...surface.methods.keys()].map((method) => [method, z.object({ method: z.literal(method) }).passthrough()]));
  const install = (server: Server): void => {
    server.registerCapabilities(legacyCapabilities(surface));
    for (const [method, handler] of surface.methods) {
      const answer: LegacyHandler = (request, extra) => answerLegacy(handler, request.params, extra);
      // tools/call skips the 1.32.2 Server's own wrapper, which parses the request
      // and the result with zod again: the table has checked the request, and
      // the registry builds every result in one fixed shape.
      if (method === "tools/call") Protocol.prototype.setRequestHandler.call(server, schemas.get(method)!, answer as never);
      else server.setRequestHandler(schemas.get(method)!, answer as never);
    }
  };
  return {
    create() {
      const server = new Server(
        { name: info.name, version: info.version },
        { capabilities: {}, ...(info.instructions !== undefined ? { instructions: info.instructions } : {}) },
      );
      install(server);
      return server;
    },
    install,
  };
}

/** The 2025 revisions' capabilities for a surface: list changes announced for everything it serves. */
function legacyCapabilities(surface: Surface): ServerCapabilities {
  const { features } = surface;
  return {
    ...(features.tools ? { tools: { listChanged: true } } : {}),
    ...(features.resources ? { resources: { listChanged: true } } : {}),
    ...(features.prompts ? { prompts: { listChanged: true } } : {}),
    ...(features.skills ? { extensions: { [SKILLS_EXTENSION_ID]: { ...SKILLS_CAPABILITY } } } : {}),
  };
}

/**
 * One table entry answered on the 1.32.2 line, for servers this module does
 * not make (registerRecipesTools on a caller's McpServer).
 */
export function answerLegacy(handler: MethodHandler, params: unknown, extra: LegacyExtra): MaybePromise<object> {
  // Params are checked by the table (surface.ts): anything but an object is its -32602.
  return unwrap(handler((params ?? {}) as Record<string, unknown>, callOf(params, extra)));
}

function callOf(params: unknown, extra: LegacyExtra): CallInfo {
  const user = extra.authInfo?.clientId ?? null;
  const token = progressToken(params);
  if (token === undefined) return { user, signal: extra.signal };
  return {
    user,
    signal: extra.signal,
    progress: (done, total, message) => {
      const params = { progressToken: token, progress: done, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message } : {}) };
      extra.sendNotification({ method: "notifications/progress", params }).catch(() => undefined);
    },
  };
}

/** `params._meta.progressToken`, when the client sent one. */
function progressToken(params: unknown): string | number | undefined {
  if (params === null || typeof params !== "object") return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (meta === null || typeof meta !== "object") return undefined;
  const token = (meta as { progressToken?: unknown }).progressToken;
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}

/** An outcome as the 1.32.2 SDK wants it: the result, or an McpError it sends as the JSON-RPC error. */
function unwrap<T>(outcome: MaybePromise<Outcome<T>>): MaybePromise<T> {
  return thenMaybe(outcome, (settled) => {
    if (settled.ok) return settled.result;
    throw new McpError(settled.error.code, settled.error.message, settled.error.data);
  });
}
