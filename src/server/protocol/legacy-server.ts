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
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/v4";
import type { Confirm } from "../tools/context.js";
import { thenMaybe, type MaybePromise } from "../tools/define.js";
import { confirmForm, confirmAnswerOf } from "./confirm.js";
import type { Outcome } from "./outcome.js";
import { capabilitiesOf, progressParams, type CallInfo, type MethodHandler, type ServerInfo, type Surface } from "./surface.js";

/** What the SDK hands a 1.32.2 handler, as far as the table needs it. */
interface LegacyExtra {
  readonly signal: AbortSignal;
  readonly requestId: string | number;
  readonly authInfo?: { readonly clientId?: string };
  sendNotification(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
}

type LegacyHandler = (request: { method: string; params?: unknown }, extra: LegacyExtra) => MaybePromise<object>;

/** Makes 1.32.2 servers for one surface; the method schemas are built once, here, for every server it makes. */
export function legacyServers(surface: Surface, info: ServerInfo): { create(): Server; install(server: Server): void } {
  const schemas = new Map([...surface.methods.keys()].map((method) => [method, z.object({ method: z.literal(method) }).passthrough()]));
  const install = (server: Server): void => {
    // The 2025 revisions announce list changes for everything a surface serves.
    server.registerCapabilities(capabilitiesOf(surface, true));
    for (const [method, handler] of surface.methods) {
      const answer: LegacyHandler = (request, extra) => answerLegacy(handler, request.params, extra, server);
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

/**
 * One table entry answered on the 1.32.2 line, also for servers this module
 * does not make (registerRecipesTools on a caller's McpServer). `server`: the
 * session's server, through which a tool may ask the user to confirm.
 */
export function answerLegacy(handler: MethodHandler, params: unknown, extra: LegacyExtra, server?: Server): MaybePromise<object> {
  // Params are checked by the table (surface.ts): anything but an object is its -32602.
  return unwrap(handler((params ?? {}) as Record<string, unknown>, callOf(params, extra, server)));
}

/** Bound on waiting for the user's answer; the call's own signal (the server's time limit) usually ends it first. */
const CONFIRM_TIMEOUT_MS = 600_000;

/**
 * `elicitation/create` on the call's own stream (related to the request),
 * when the session's client declared form elicitation at initialize; a
 * stateless request has no initialize, so nothing to ask through.
 */
function confirmOf(server: Server | undefined, extra: LegacyExtra): Confirm | undefined {
  if (server?.getClientCapabilities()?.elicitation?.form === undefined) return undefined;
  return async (question, signal) => {
    try {
      const result = await server.elicitInput(
        { mode: "form", message: question, requestedSchema: confirmForm() },
        { relatedRequestId: extra.requestId, signal: signal ?? extra.signal, timeout: CONFIRM_TIMEOUT_MS },
      );
      return confirmAnswerOf(result.action, result.content);
    } catch (error) {
      const reason = error instanceof Error ? error.message.split("\n")[0]!.slice(0, 200) : String(error);
      return { kind: "refused", reason: "failed", message: `the confirmation went unanswered (${reason})` };
    }
  };
}

function callOf(params: unknown, extra: LegacyExtra, server: Server | undefined): CallInfo {
  const user = extra.authInfo?.clientId ?? null;
  const token = progressToken(params);
  const confirm = confirmOf(server, extra);
  if (token === undefined) return confirm === undefined ? { user, signal: extra.signal } : { user, signal: extra.signal, confirm };
  return {
    user,
    signal: extra.signal,
    ...(confirm !== undefined ? { confirm } : {}),
    progress: (done, total, message) => {
      extra.sendNotification({ method: "notifications/progress", params: progressParams(token, done, total, message) }).catch(() => undefined);
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
