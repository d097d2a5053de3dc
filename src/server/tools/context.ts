import type { Logger } from "pino";
import type { CatalogSnapshot } from "../../recipes/catalog/catalog.js";
import type { RecipeLibrary } from "../../recipes/catalog/library.js";
import type { DccRunner } from "../../recipes/run/runner.js";
import { thenMaybe, type MaybePromise, type ToolDefinition, type ToolSchema } from "./define.js";
import { fail, withRevision, type Envelope } from "./envelope.js";

/** What a recipe tool handler may use: the DCC's library, a logger, and its call's cancellation and progress. */
export interface RecipeToolContext {
  /** The DCC's recipes: public ones, and (no users file) the private playbooks too. */
  readonly library: RecipeLibrary;
  readonly logger: Logger;
  /** With a users file: who calls, and the library of the playbooks they own (none of anyone else's). */
  readonly caller?: RecipeCaller;
  /** The DCC's runner, on the endpoint of a DCC with a `--dcc-endpoint` (recipes__run). */
  readonly runner?: DccRunner;
  /** Aborted when the client cancels or the server's time limit passes (made on first read). */
  readonly signal?: AbortSignal;
  /** Tells the client how far the call is, when it asked to be told (a progress token); absent otherwise. */
  readonly progress?: (done: number, total?: number, message?: string) => void;
}

export interface RecipeCaller {
  readonly user: string;
  readonly playbooks: RecipeLibrary;
  /** The playbooks' first load (a user's library is made on their first call). */
  readonly loaded: Promise<unknown>;
}

/** The call a context is made for: its cancellation and its progress (from the protocol layer). */
export interface CallControls {
  readonly signal: AbortSignal;
  readonly progress?: (done: number, total?: number, message?: string) => void;
}

/**
 * A recipe tool's context for one call: the call's signal read through (it
 * is made on first read, and most tools never read it) and its progress.
 */
export function recipeContext(library: RecipeLibrary, logger: Logger, call: CallControls, caller?: RecipeCaller, runner?: DccRunner): RecipeToolContext {
  return {
    library,
    logger,
    ...(caller !== undefined ? { caller } : {}),
    ...(runner !== undefined ? { runner } : {}),
    ...(call.progress !== undefined ? { progress: call.progress } : {}),
    get signal() {
      return call.signal;
    },
  };
}

/** A recipe tool, as written: its handler's arguments are typed from its inputSchema. */
export function recipeTool<S extends ToolSchema>(definition: ToolDefinition<RecipeToolContext, S>): ToolDefinition<RecipeToolContext, S> {
  return definition;
}

/** The library the caller's private playbooks are read from and written to. */
export function playbooksOf(context: RecipeToolContext): RecipeLibrary {
  return context.caller?.playbooks ?? context.library;
}

/**
 * Where a recipe id lives for this caller: private ids in the caller's own
 * playbooks, the rest in the DCC's library (`snapshot`: its snapshot for
 * this request). Single-user, both are the DCC's library.
 */
export function sourceOf(context: RecipeToolContext, snapshot: CatalogSnapshot, recipeId: string): { library: RecipeLibrary; snapshot: CatalogSnapshot } {
  const caller = context.caller;
  if (caller === undefined || !recipeId.startsWith("private/")) return { library: context.library, snapshot };
  return { library: caller.playbooks, snapshot: caller.playbooks.current() ?? snapshot };
}

/** Runs `body` on the snapshot current at call time, or answers not_ready; synchronous when `body` is. */
export function withSnapshot(context: RecipeToolContext, body: (snapshot: CatalogSnapshot) => MaybePromise<Envelope>): MaybePromise<Envelope> {
  const snapshot = context.library.current();
  if (snapshot === null) return fail("not_ready", "The recipe catalog is still loading; try again shortly");
  return thenMaybe(body(snapshot), (envelope) => (envelope.revision === undefined ? withRevision(envelope, snapshot.revision) : envelope));
}
