/**
 * The MCP surface of one endpoint, protocol-neutral: a table from method to
 * handler (plain params in, an Outcome out) for tools, resources, resource
 * templates, prompts and the Skills extension. The era installers
 * (legacy-server.ts for SDK 1.32.2 and the 2025 revisions, modern-server.ts
 * for the v2 SDK and 2026-07-28) register every entry as it is and map
 * outcomes to their SDK's errors once; a new method is one entry here.
 *
 * Recipes and skill files are one resource space: `skill://` URIs are the
 * Skills extension's, every other URI the catalog's (catalog-resources.ts),
 * and the first resources/list page leads with each served skill's SKILL.md.
 *
 * tools/call runs one call through the tool registry, raced against the
 * server's time limit, with its one log line and its observer. Arguments are
 * checked twice: for shape, depth and size at the edge (the HTTP transport's
 * message checks, transport/argument-limits.ts; here, for the embedded tools
 * of compose/register.ts, which have no edge of ours), and against the
 * tool's schema by the registry. No SDK schema parses them on either era.
 */
import type { Logger } from "pino";
import { randomUUID } from "node:crypto";
import { argumentsFault, MAX_NESTING } from "../transport/argument-limits.js";
import { isPromise, thenMaybe, type MaybePromise } from "../tools/define.js";
import type { Confirm } from "../tools/context.js";
import type { ToolCallOutcome, ToolCallResult, ToolRegistry } from "../tools/registry.js";
import { listResourcesFor, readResourceFor, type CatalogSource } from "./catalog-resources.js";
import { failure, INTERNAL_ERROR, INVALID_PARAMS, quoted, success, type Outcome } from "./outcome.js";
import type { PromptsProvider } from "./prompts/provider.js";
import { SKILLS_CAPABILITY, SKILLS_EXTENSION_ID, type SkillsProvider } from "./skills-extension/provider.js";

type Params = Readonly<Record<string, unknown>>;

/** One method's handler: synchronous when it can be (see tools/define.ts). */
export type MethodHandler = (params: Params, call: CallInfo) => MaybePromise<Outcome<object>>;

/** Which MCP features the table serves: each era declares them in its own terms. */
interface SurfaceFeatures {
  readonly tools: boolean;
  readonly resources: boolean;
  readonly prompts: boolean;
  readonly skills: boolean;
}

export interface Surface {
  readonly features: SurfaceFeatures;
  readonly methods: ReadonlyMap<string, MethodHandler>;
}

/** Who the servers of a surface say they are, on either era. */
export interface ServerInfo {
  readonly name: string;
  readonly version: string;
  readonly instructions?: string;
}

/**
 * The capabilities of a surface, the same on both eras but for whether the
 * tool list announces changes (see the era installers).
 */
export function capabilitiesOf(surface: Surface, toolsListChanged: boolean) {
  const { features } = surface;
  return {
    ...(features.tools ? { tools: toolsListChanged ? { listChanged: true } : {} } : {}),
    ...(features.resources ? { resources: { listChanged: true } } : {}),
    ...(features.prompts ? { prompts: { listChanged: true } } : {}),
    ...(features.skills ? { extensions: { [SKILLS_EXTENSION_ID]: { ...SKILLS_CAPABILITY } } } : {}),
  };
}

/** The params of a `notifications/progress` for `token`. */
export function progressParams(token: string | number, done: number, total?: number, message?: string) {
  return { progressToken: token, progress: done, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message } : {}) };
}

interface SurfaceOptions<C> {
  /** tools/list and tools/call from a registry (absent: no tools). */
  readonly tools?: ToolCallOptions<C>;
  /** The catalog as resources (`recipe://`). */
  readonly catalog?: CatalogSource;
  /** Recipes as prompts. */
  readonly prompts?: PromptsProvider;
  /** The Skills extension; its files are resources beside the recipes (needs `catalog`). */
  readonly skills?: SkillsProvider;
}

export function createSurface<C>(options: SurfaceOptions<C>): Surface {
  const methods = new Map<string, MethodHandler>();
  const { tools, catalog, prompts, skills } = options;
  if (tools !== undefined) {
    const listed = success({ tools: tools.registry.list() });
    methods.set("tools/list", () => listed);
    methods.set("tools/call", (params, call): MaybePromise<Outcome<ToolCallResult>> => toolCall(tools, params, call));
  }
  if (catalog !== undefined) {
    methods.set("resources/list", (params, call) =>
      thenMaybe(listResourcesFor(catalog, params["cursor"], call.user), (recipes) => {
        if (skills === undefined || params["cursor"] !== undefined || !recipes.ok) return recipes;
        return success({ ...recipes.result, resources: [...skills.listResources(), ...recipes.result.resources] });
      }),
    );
    // Recipes have fixed URIs: no templates, but a declared `resources` owes the method an answer.
    const templates = success({ resourceTemplates: [] });
    methods.set("resources/templates/list", () => templates);
    methods.set("resources/read", (params, call) => {
      const uri = params["uri"];
      if (typeof uri !== "string") return failure(INVALID_PARAMS, "resources/read needs a string uri");
      if (skills?.handles(uri) === true) return skills.read(params);
      return readResourceFor(catalog, uri, call.user);
    });
  }
  if (prompts !== undefined) {
    methods.set("prompts/list", (params) => prompts.list(params));
    methods.set("prompts/get", (params) => prompts.get(params));
  }
  if (skills !== undefined && catalog !== undefined) {
    methods.set("skills/list", (params) => skills.list(params));
    methods.set("skills/get", (params) => skills.get(params));
    methods.set("resources/directory/read", (params) => skills.readDirectory(params));
  }
  for (const [method, handler] of methods) methods.set(method, checked(handler));
  return {
    features: { tools: tools !== undefined, resources: catalog !== undefined, prompts: prompts !== undefined, skills: skills !== undefined && catalog !== undefined },
    methods,
  };
}

/**
 * Params as every handler may assume them: an object, and a page cursor (on
 * any method) a string. Anything else is -32602 here, whatever the era,
 * before a handler or an SDK schema could answer it with -32603.
 */
function checked(handler: MethodHandler): MethodHandler {
  return (params, call) => {
    if (params === null || typeof params !== "object" || Array.isArray(params)) return failure(INVALID_PARAMS, "params must be an object");
    const cursor = params["cursor"];
    if (cursor !== undefined && typeof cursor !== "string") return failure(INVALID_PARAMS, "Invalid cursor: a cursor is a string from an earlier page's nextCursor");
    return handler(params, call);
  };
}

/**
 * What an era installer knows of one request, in neutral terms. The call a
 * tool's context is made from has the same shape, with a `signal` also
 * aborted when the server's time limit passes (made on first read, so a tool
 * that never reads it costs no AbortController).
 */
export interface CallInfo {
  /** Who the users file says sent it (the transport's `authInfo.clientId`), or null. */
  readonly user: string | null;
  /** Aborted when the client cancels the request or goes away. */
  readonly signal: AbortSignal;
  /** Present when the client asked for progress (a progress token): sends `notifications/progress`. */
  readonly progress?: (done: number, total?: number, message?: string) => void;
  /** Asks the client's user a yes/no question, the way this era does (see tools/context.ts `Confirm`); absent where the era installer cannot ask. */
  readonly confirm?: Confirm;
}

export interface ToolCallObserver {
  (event: { tool: string; ms: number; success: boolean; error?: string }): void;
}

export interface ToolCallOptions<C> {
  readonly registry: ToolRegistry<C>;
  /** The handler context of one call. */
  readonly contextFor: (call: CallInfo) => C;
  readonly logger: Logger;
  /**
   * Checks each call's arguments for shape, depth and this JSON size here:
   * for servers with no edge of ours in front (registerRecipesTools). The
   * daemon leaves it unset; its HTTP edge has checked them already.
   */
  readonly maxArgumentBytes?: number;
  /** A call still running after this long answers -32603 instead of hanging. */
  readonly timeoutMs?: number;
  readonly onToolCall?: ToolCallObserver;
}

/** tools/call's params checked for what the registry needs: a known tool name and an arguments object. */
function toolCall<C>(options: ToolCallOptions<C>, params: Readonly<Record<string, unknown>>, info: CallInfo): MaybePromise<Outcome<ToolCallResult>> {
  const name = params["name"];
  if (typeof name !== "string") return failure(INVALID_PARAMS, "tools/call needs a string name");
  if (!options.registry.has(name)) return failure(INVALID_PARAMS, `Unknown tool: ${quoted(name)}`);
  return runToolCall(options, name, params["arguments"], info);
}

/**
 * One tools/call through the registry, with the log line (the call's one
 * line at info: outcome only, never argument values) and the observer.
 * Synchronous when the tool's handler is (see MaybePromise in define.ts); a throw is
 * a bug and is left to the SDK.
 */
export function runToolCall<C>(options: ToolCallOptions<C>, name: string, args: unknown, info: CallInfo): MaybePromise<Outcome<ToolCallResult>> {
  if (options.maxArgumentBytes !== undefined && args !== undefined) {
    const refused = edgeCheck(args, options.maxArgumentBytes);
    if (refused !== null) return refused;
  }
  const started = performance.now();
  const call = new CallControl(info);
  let answer: MaybePromise<ToolCallOutcome | "timeout">;
  try {
    answer = race(options.registry.call(name, args ?? {}, options.contextFor(call)), options.timeoutMs, (timedOut) => call.settle(timedOut));
  } catch (error) {
    call.settle(false);
    throw error;
  }
  return thenMaybe(answer, (outcome) => {
    const ms = Math.round((performance.now() - started) * 100) / 100;
    const user = info.user === null ? {} : { user: info.user };
    if (outcome === "timeout") {
      options.logger.warn({ callId: randomUUID(), tool: name, ...user, ms, success: false, error: "timeout" }, "tool call");
      options.onToolCall?.({ tool: name, ms, success: false, error: "timeout" });
      return failure(INTERNAL_ERROR, `Tool call exceeded the server's time limit of ${options.timeoutMs} ms`);
    }
    if (outcome.kind === "unknown_tool") return failure(INVALID_PARAMS, `Unknown tool: ${quoted(name)}`);
    const event = outcome.error === undefined ? { tool: name, ms, success: outcome.success } : { tool: name, ms, success: outcome.success, error: outcome.error };
    options.logger.info({ callId: randomUUID(), ...event, ...user }, "tool call");
    options.onToolCall?.(event);
    return success(outcome.result);
  });
}

/** The edge's argument checks, for a server without our HTTP edge in front. */
function edgeCheck(args: unknown, maxBytes: number): Outcome<never> | null {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return failure(INVALID_PARAMS, "Tool arguments must be an object");
  const fault = argumentsFault(args as Record<string, unknown>, maxBytes);
  if (fault === "nesting") return failure(INVALID_PARAMS, `Tool arguments nest deeper than ${MAX_NESTING} levels`);
  if (fault === "size") return failure(INVALID_PARAMS, `Tool arguments exceed ${maxBytes} bytes`);
  return null;
}

/**
 * The signal a handler sees: the client's cancellation and the time limit in
 * one, made on first read. One listener on the client's signal per call that
 * reads it (far cheaper than AbortSignal.any's weak refs and finalization
 * registry), removed once the call is decided.
 */
class CallControl implements CallInfo {
  readonly user: string | null;
  readonly progress?: (done: number, total?: number, message?: string) => void;
  readonly confirm?: Confirm;
  private readonly client: AbortSignal;
  private expiry: AbortController | null = null;
  private decided = false;
  private readonly forward = (): void => this.expiry?.abort(this.client.reason);

  constructor(info: CallInfo) {
    this.user = info.user;
    this.client = info.signal;
    if (info.progress !== undefined) this.progress = info.progress;
    if (info.confirm !== undefined) this.confirm = info.confirm;
  }

  get signal(): AbortSignal {
    if (this.expiry === null) {
      this.expiry = new AbortController();
      if (this.client.aborted) this.forward();
      else if (!this.decided) this.client.addEventListener("abort", this.forward, { once: true });
    }
    return this.expiry.signal;
  }

  /** The race is decided: abort on timeout, and stop listening to the client. */
  settle(timedOut: boolean): void {
    this.decided = true;
    if (timedOut) this.expiry?.abort();
    if (this.expiry !== null) this.client.removeEventListener("abort", this.forward);
  }
}

/**
 * A call raced against `limit` ms (none: not raced); `settle` runs once the
 * race is decided (at once for a synchronous answer), with `true` on timeout.
 */
function race<T>(call: MaybePromise<T>, limit: number | undefined, settle: (timedOut: boolean) => void): MaybePromise<T | "timeout"> {
  if (!isPromise(call)) {
    settle(false);
    return call;
  }
  if (limit === undefined) {
    return call.finally(() => settle(false));
  }
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  // One promise settles the race: the call's outcome or the timer, whichever
  // comes first. A call that loses may still settle later; nobody awaits it then.
  const raced = new Promise<T | "timeout">((resolve, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      settle(true);
      resolve("timeout");
    }, limit);
    call.then(resolve, reject);
  });
  return raced.finally(() => {
    clearTimeout(timer);
    if (!timedOut) settle(false);
  });
}
