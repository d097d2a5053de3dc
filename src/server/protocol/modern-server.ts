/**
 * The 2026-07-28 installer: every entry of a surface table (surface.ts) on a
 * v2 SDK `Server`, one per request. Tool input schemas go out as the Draft
 * 2020-12 JSON Schema they are; arguments are validated by the registry with
 * src/jsonschema, never by the SDK. Methods other than tools/call are
 * registered with a params schema that takes any object, so their params
 * reach the table as sent (a malformed cursor is the table's -32602, not a
 * codec failure); tools/call keeps the SDK's own wire check of the request
 * and the result. Outcomes become ProtocolErrors here and nowhere else; this
 * leg imports nothing of the 2025 one.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  inputResponse,
  ProtocolError,
  Server as ModernServer,
  type CacheHint,
  type ServerContext,
  type StandardSchemaV1,
} from "@modelcontextprotocol/server";
import type { Confirm, ConfirmAnswer } from "../tools/context.js";
import { thenMaybe, type MaybePromise } from "../tools/define.js";
import { CONFIRM_KEY, confirmForm, confirmAnswerOf } from "./confirm.js";
import type { Outcome } from "./outcome.js";
import { capabilitiesOf, progressParams, type CallInfo, type MethodHandler, type ServerInfo, type Surface } from "./surface.js";

/** An hour: the tool list is fixed for the life of the process and the same for every caller. */
const TOOLS_CACHE: CacheHint = { ttlMs: 3_600_000, cacheScope: "public" };
/**
 * Recipe lists follow hot reload (and may hold a caller's private
 * playbooks): a short, private lifetime, and a list_changed on every change.
 */
const CATALOG_CACHE: CacheHint = { ttlMs: 5_000, cacheScope: "private" };
/** A skill's files follow hot reload like the recipe lists: short and private. */
const SKILLS_CACHE = { ttlMs: 5_000, cacheScope: "private" } as const;

/** The extension's own results carry their cache fields in the result itself (the SDK adds none to a custom method's). */
const EXTENSION_METHODS: ReadonlySet<string> = new Set(["skills/list", "skills/get", "resources/directory/read"]);

/** Params of any object shape, passed on as they are: the table checks them. */
const ANY_PARAMS: StandardSchemaV1<Record<string, unknown>> = {
  "~standard": { version: 1, vendor: "recipe-server", validate: (value) => ({ value: value as Record<string, unknown> }) },
};

const CACHE_HINTS = {
  "tools/list": TOOLS_CACHE,
  "server/discover": TOOLS_CACHE,
  "resources/list": CATALOG_CACHE,
  "resources/read": CATALOG_CACHE,
  "resources/templates/list": TOOLS_CACHE,
  "prompts/list": CATALOG_CACHE,
} as const;

/**
 * v2 servers for one surface, one per request. `only`: the method that
 * request calls; the server then registers that method's handler alone (a
 * server lives for one exchange, and registering every method of the table
 * cost more than the rest of its making). Capabilities are declared in full
 * either way. The options are built once: the SDK copies the capabilities
 * (it never changes them in place), so one object serves every server.
 */
export function modernServers(surface: Surface, info: ServerInfo): { create(only?: string): ModernServer } {
  const options = {
    // No tools.listChanged: the tool list never changes while the process
    // lives, and a 2026 client would otherwise ask a listen stream for
    // changes that cannot come.
    capabilities: capabilitiesOf(surface, false),
    ...(info.instructions !== undefined ? { instructions: info.instructions } : {}),
    cacheHints: CACHE_HINTS,
  };
  return {
    create(only) {
      const server = new ModernServer({ name: info.name, version: info.version }, options);
      installModern(server, surface, only);
      return server;
    },
  };
}

/** Every method of `surface` (or only `only`) on a v2 server (capabilities are declared by the caller, or by modernServers). */
export function installModern(server: ModernServer, surface: Surface, only?: string): void {
  for (const [method, handler] of surface.methods) {
    if (only !== undefined && method !== only) continue;
    if (method === "tools/call") {
      server.setRequestHandler("tools/call", (request, ctx) => answerModern(handler, request.params, ctx) as never);
    } else if (EXTENSION_METHODS.has(method)) {
      server.setRequestHandler(method, { params: ANY_PARAMS }, (params, ctx) => thenMaybe(answerModern(handler, params, ctx), (result) => ({ ...result, ...SKILLS_CACHE })));
    } else {
      server.setRequestHandler(method, { params: ANY_PARAMS }, (params, ctx) => answerModern(handler, params, ctx) as never);
    }
  }
}

/**
 * One table entry answered on the v2 line: the result, or a ProtocolError the
 * SDK sends as the JSON-RPC error. A tool that asked the user to confirm
 * (and was told "asked") is answered input-required instead: the client
 * asks its user and sends the call again with the answer.
 */
export function answerModern(handler: MethodHandler, params: unknown, ctx: ServerContext): MaybePromise<object> {
  // Params are checked by the table (surface.ts): anything but an object is its -32602.
  const asker = ModernConfirm.of(ctx);
  const outcome = handler((params ?? {}) as Record<string, unknown>, callOf(ctx, asker));
  return thenMaybe(outcome, (settled: Outcome<object>) => {
    if (asker?.question != null) {
      return inputRequired({ inputRequests: { [CONFIRM_KEY]: inputRequired.elicit({ mode: "form", message: asker.question, requestedSchema: confirmForm() }) } });
    }
    if (settled.ok) return settled.result;
    throw new ProtocolError(settled.error.code, settled.error.message, settled.error.data);
  });
}

/**
 * The 2026-07-28 confirmation: the request's own answer when the client sent
 * one back (`inputResponses.confirm`), else the question, to go out as the
 * call's input-required answer, when the request's client capabilities
 * declare elicitation. Absent (nothing to ask through) otherwise.
 */
class ModernConfirm {
  question: string | null = null;

  private constructor(private readonly responses: Record<string, unknown> | undefined) {}

  static of(ctx: ServerContext): ModernConfirm | undefined {
    const responses = ctx.mcpReq.inputResponses;
    if (responses !== undefined && Object.hasOwn(responses, CONFIRM_KEY)) return new ModernConfirm(responses);
    const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined;
    const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: unknown } | undefined;
    return capabilities?.elicitation != null ? new ModernConfirm(undefined) : undefined;
  }

  readonly ask: Confirm = (question) => {
    if (this.responses !== undefined) return Promise.resolve(this.answered());
    this.question = question;
    return Promise.resolve({ kind: "asked" });
  };

  private answered(): ConfirmAnswer {
    const view = inputResponse(this.responses, CONFIRM_KEY);
    if (view.kind !== "elicit") return { kind: "refused", reason: "failed", message: "the client's answer to the confirmation was not an elicitation result" };
    return confirmAnswerOf(view.action, view.content);
  }
}

function callOf(ctx: ServerContext, asker: ModernConfirm | undefined): CallInfo {
  const user = ctx.http?.authInfo?.clientId ?? null;
  const token = ctx.mcpReq._meta?.progressToken;
  const confirm = asker === undefined ? {} : { confirm: asker.ask };
  if (token === undefined) return { user, signal: ctx.mcpReq.signal, ...confirm };
  return {
    user,
    signal: ctx.mcpReq.signal,
    ...confirm,
    progress: (done, total, message) => {
      ctx.mcpReq.notify({ method: "notifications/progress", params: progressParams(token, done, total, message) }).catch(() => undefined);
    },
  };
}
