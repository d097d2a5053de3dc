import type { Logger } from "pino";
import type { CatalogSnapshot } from "../../recipes/catalog/catalog.js";
import type { RecipeLibrary } from "../../recipes/catalog/library.js";
import type { DccRunner } from "../../recipes/run/runner.js";
import type { ToolDefinition, ToolSchema } from "./define.js";
import { fail, withRevision, type Envelope } from "./envelope.js";
import { thenMaybe, type MaybePromise } from "./maybe-promise.js";

/** What a recipe tool handler may use: the DCC's library and a logger. */
export interface RecipeToolContext {
  /** The DCC's recipes: public ones, and (no users file) the private playbooks too. */
  readonly library: RecipeLibrary;
  readonly logger: Logger;
  /** With a users file: who calls, and the library of the playbooks they own (none of anyone else's). */
  readonly caller?: RecipeCaller;
  /** The DCC's runner, on the endpoint of a DCC with a `--dcc-endpoint` (recipes__run). */
  readonly runner?: DccRunner;
  /** Aborted when the client cancels the call or the server's time limit ends it. */
  readonly signal?: AbortSignal;
  /** Reports progress to the client, when it asked for progress (a progress token); else absent. */
  readonly progress?: (done: number, total: number, message: string) => void;
}

export interface RecipeCaller {
  readonly user: string;
  readonly playbooks: RecipeLibrary;
  /** The playbooks' first load (a user's library is made on their first call). */
  readonly loaded: Promise<unknown>;
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
