/**
 * One low-level MCP `Server` per session (or per stateless request) whose
 * tools/list and tools/call read the shared registry, so a catalog change
 * needs no re-registration. Unknown tools and malformed calls are JSON-RPC
 * errors (-32602), business failures are `isError` results.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { randomUUID } from "node:crypto";
import { isPromise, thenMaybe, type MaybePromise } from "../tools/maybe-promise.js";
import type { ToolCallResult, ToolRegistry } from "../tools/registry.js";
import { JSONRPC } from "../transport/jsonrpc.js";

export interface ToolCallObserver {
  (event: { tool: string; ms: number; success: boolean; error?: string }): void;
}

/**
 * What a tool call may use of its request beyond the arguments, in neither
 * era's terms: `progress` is present when the client sent a progress token.
 */
export interface ToolCallHooks {
  readonly progress?: (done: number, total: number, message: string) => void;
}

export interface McpServerOptions<C> {
  readonly name: string;
  readonly version: string;
  readonly instructions?: string;
  readonly registry: ToolRegistry<C>;
  /**
   * The handler context for one call. Declared with a parameter, it receives
   * a signal aborted on timeout or client cancellation; declared without one
   * (`() => …`), no signal is made for the call.
   */
  readonly contextFor: (signal: AbortSignal, hooks: ToolCallHooks) => C;
  /**
   * The handler context for a call by a user the users file named (the
   * transport hands the id over as `authInfo.clientId`); without it such
   * calls get `contextFor`'s context.
   */
  readonly contextForUser?: (user: string, signal: AbortSignal, hooks: ToolCallHooks) => C;
  readonly logger: Logger;
  readonly maxArgumentBytes: number;
  /** A call still running after this long answers a JSON-RPC error (-32603) instead of hanging. */
  readonly timeoutMs?: number;
  readonly onToolCall?: ToolCallObserver;
}

export function createMcpServer<C>(options: McpServerOptions<C>): Server {
  const server = new Server(
    { name: options.name, version: options.version },
    {
      capabilities: { tools: { listChanged: true } },
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    },
  );
  installToolHandlers(server, options);
  return server;
}

export type ToolHandlerOptions<C> = Pick<
  McpServerOptions<C>,
  "registry" | "contextFor" | "contextForUser" | "logger" | "maxArgumentBytes" | "onToolCall" | "timeoutMs"
>;

/** tools/list and tools/call on a low-level server, answered from the registry. */
export function installToolHandlers<C>(server: Server, options: ToolHandlerOptions<C>): void {
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...options.registry.list()] }));
  // Not async: a call answered synchronously reaches the SDK as a value (see maybe-promise.ts).
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const { name, arguments: args } = request.params;
    if (!options.registry.has(name)) {
      throw new McpError(JSONRPC.invalidParams, `Unknown tool: ${name}`);
    }
    const token = extra._meta?.progressToken;
    const hooks: ToolCallHooks =
      token === undefined
        ? NO_HOOKS
        : {
            progress: (done, total, message) => {
              // Progress is advice: a client that went away must not fail the run.
              extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: done, total, message } }).catch(() => undefined);
            },
          };
    return runToolCall(options, name, args, extra.signal, extra.authInfo?.clientId ?? null, hooks);
  });
}

export const NO_HOOKS: ToolCallHooks = Object.freeze({});

/**
 * One tools/call through the registry, with argument-size guard, log line and
 * observer. Synchronous when the tool's handler is; throws McpError for calls
 * the protocol refuses (the SDK answers them as JSON-RPC errors).
 */
export function runToolCall<C>(
  options: ToolHandlerOptions<C>,
  name: string,
  args: unknown,
  signal: AbortSignal,
  user: string | null = null,
  hooks: ToolCallHooks = NO_HOOKS,
): MaybePromise<ToolCallResult> {
  if (args !== undefined && (args === null || typeof args !== "object" || Array.isArray(args))) {
    throw new McpError(JSONRPC.invalidParams, "Tool arguments must be an object");
  }
  const size = args === undefined ? 0 : Buffer.byteLength(JSON.stringify(args));
  if (size > options.maxArgumentBytes) {
    throw new McpError(JSONRPC.invalidParams, `Tool arguments exceed ${options.maxArgumentBytes} bytes`);
  }
  const callId = randomUUID();
  const started = performance.now();
  return thenMaybe(callWithTimeout(options, name, args ?? {}, signal, user, hooks), (outcome) => {
    const ms = Math.round((performance.now() - started) * 100) / 100;
    if (outcome === "timeout") {
      options.logger.warn({ callId, tool: name, ms, success: false, error: "timeout" }, "tool call");
      options.onToolCall?.({ tool: name, ms, success: false, error: "timeout" });
      throw new McpError(JSONRPC.internalError, `Tool call exceeded the server's time limit of ${options.timeoutMs} ms`);
    }
    if (outcome.kind === "unknown_tool") throw new McpError(JSONRPC.invalidParams, `Unknown tool: ${name}`);
    // Outcome only: never argument values or recipe contents at info level.
    const event = outcome.error === undefined ? { tool: name, ms, success: outcome.success } : { tool: name, ms, success: outcome.success, error: outcome.error };
    options.logger.info({ callId, ...event }, "tool call");
    options.onToolCall?.(event);
    return outcome.result;
  });
}

type CallOutcome<C> = Awaited<ReturnType<ToolRegistry<C>["call"]>>;

/**
 * The registry call raced against `timeoutMs`. The handler's signal is
 * aborted when time runs out or the client cancels; a `contextFor` that
 * takes no signal (the recipe tools) gets none, and the call then costs no
 * AbortController and no listener on the client's signal. A call answered
 * synchronously has nothing to race: no timer is set for it.
 */
function callWithTimeout<C>(
  options: ToolHandlerOptions<C>,
  name: string,
  args: unknown,
  signal: AbortSignal,
  user: string | null,
  hooks: ToolCallHooks,
): MaybePromise<CallOutcome<C> | "timeout"> {
  const limit = options.timeoutMs;
  const forUser = user === null ? undefined : options.contextForUser;
  const contextFor = forUser !== undefined ? (s: AbortSignal): C => forUser(user as string, s, hooks) : (s: AbortSignal): C => options.contextFor(s, hooks);
  if (limit === undefined) return options.registry.call(name, args, contextFor(signal));
  const wantsSignal = (forUser ?? options.contextFor).length > 0;
  const expiry = wantsSignal ? new AbortController() : null;
  // The client's cancellation reaches the handler through the expiry signal:
  // one listener per call is far cheaper than AbortSignal.any (weak refs and
  // a finalization registry per combined signal).
  const forward = (): void => expiry?.abort(signal.reason);
  const unlisten = (): void => {
    if (expiry !== null) signal.removeEventListener("abort", forward);
  };
  if (expiry !== null) {
    if (signal.aborted) forward();
    else signal.addEventListener("abort", forward, { once: true });
  }
  let call: MaybePromise<CallOutcome<C>>;
  try {
    call = options.registry.call(name, args, contextFor(expiry?.signal ?? signal));
  } catch (error) {
    unlisten();
    throw error;
  }
  return race(call, limit, (timedOut) => {
    if (timedOut) expiry?.abort();
    unlisten();
  });
}

/**
 * A call raced against `limit` ms (none: not raced); `settle` runs once the
 * race is decided (or at once for a synchronous answer), with `true` on timeout.
 */
function race<T>(call: MaybePromise<T>, limit: number | undefined, settle: (timedOut: boolean) => void): MaybePromise<T | "timeout"> {
  if (!isPromise(call) || limit === undefined) {
    // Only reached with a limit for a synchronous answer: nothing to race.
    settle(false);
    return call;
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
