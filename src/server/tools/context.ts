import type { Logger } from "pino";
import type { CatalogSnapshot } from "../../recipes/catalog/catalog.js";
import type { RecipeLibrary } from "../../recipes/catalog/library.js";
import type { DccRunner } from "../../recipes/run/runner.js";
import type { UsageCounter } from "../../recipes/store/usage-counts.js";
import type { MaybePromise, ToolDefinition, ToolSchema } from "./define.js";
import { fail, type Envelope } from "./envelope.js";

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
  /**
   * The catalog snapshot the call answers from: recipeContext's is the
   * library's current one when first read, then the same for the whole call.
   * Absent: the library's current one at each read (snapshotOf).
   */
  readonly snapshot?: CatalogSnapshot | null;
  /** Asks the client's user a yes/no question (elicitation), in whatever way the call's protocol revision does it; absent: no way to ask. */
  readonly confirm?: Confirm;
  /** Told of every recorded use of a recipe (recordUse), for the metrics; absent: nobody listens. */
  readonly observeUse?: (recipeId: string, counter: UsageCounter) => void;
}

/**
 * A yes/no question to the client's user, answered in the terms of the
 * call's protocol revision by its era installer: a server-to-client
 * `elicitation/create` inside the call (2025-11-25, given up when `signal`
 * aborts), or an input-required
 * answer the client fulfils and sends the call again with (2026-07-28).
 */
export type Confirm = (question: string, signal?: AbortSignal) => Promise<ConfirmAnswer>;

export type ConfirmAnswer =
  | { readonly kind: "confirmed" }
  /** `unsupported`: the client declared no elicitation; `failed`: the question could not be asked or answered. */
  | { readonly kind: "refused"; readonly reason: "declined" | "cancelled" | "unsupported" | "failed"; readonly message: string }
  /**
   * The question goes back as this call's answer (whatever the handler
   * returns is replaced by it) and the client calls again with the user's
   * answer: the handler must stop without acting.
   */
  | { readonly kind: "asked" };

interface RecipeCaller {
  readonly user: string;
  readonly playbooks: RecipeLibrary;
  /** The playbooks' first load (a user's library is made on their first call). */
  readonly loaded: Promise<unknown>;
}

/** The call a context is made for: its cancellation and its progress (from the protocol layer). */
interface CallControls {
  readonly signal: AbortSignal;
  readonly progress?: (done: number, total?: number, message?: string) => void;
  readonly confirm?: Confirm;
}

/**
 * A recipe tool's context for one call: the call's signal read through (it
 * is made on first read, and most tools never read it) and its progress.
 */
export function recipeContext(
  library: RecipeLibrary,
  logger: Logger,
  call: CallControls,
  caller?: RecipeCaller,
  runner?: DccRunner,
  observeUse?: (recipeId: string, counter: UsageCounter) => void,
): RecipeToolContext {
  let pinned: CatalogSnapshot | null = null;
  return {
    library,
    logger,
    ...(observeUse !== undefined ? { observeUse } : {}),
    ...(caller !== undefined ? { caller } : {}),
    ...(runner !== undefined ? { runner } : {}),
    ...(call.progress !== undefined ? { progress: call.progress } : {}),
    ...(call.confirm !== undefined ? { confirm: call.confirm } : {}),
    get signal() {
      return call.signal;
    },
    get snapshot() {
      pinned ??= library.current();
      return pinned;
    },
  };
}

/** The snapshot a call answers from (see RecipeToolContext.snapshot). */
export function snapshotOf(context: RecipeToolContext): CatalogSnapshot | null {
  return context.snapshot !== undefined ? context.snapshot : context.library.current();
}

/**
 * The catalog revision an answer carries, stamped in one place (the
 * registry's render): the revision of the snapshot the call answered from,
 * unless the handler named a later one (a write's, which contains the write).
 */
export function answerRevision(context: RecipeToolContext): number | undefined {
  return snapshotOf(context)?.revision;
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

/** Runs `body` on the call's snapshot, or answers not_ready; synchronous when `body` is. */
export function withSnapshot(context: RecipeToolContext, body: (snapshot: CatalogSnapshot) => MaybePromise<Envelope>): MaybePromise<Envelope> {
  const snapshot = snapshotOf(context);
  if (snapshot === null) return fail("not_ready", "The recipe catalog is still loading; try again shortly");
  return body(snapshot);
}

/**
 * The one place a tool counts a use of a recipe: in the store of the library
 * the recipe came from (public: the DCC's; private: the caller's own), under
 * the caller's user, and in the metrics. Both are in-memory increments; the
 * store writes its counts in batches, off the call's path (usage-store.ts).
 */
export function recordUse(context: RecipeToolContext, library: RecipeLibrary, recipeId: string, counter: UsageCounter): void {
  library.usage.record(recipeId, counter, context.caller?.user ?? "");
  context.observeUse?.(recipeId, counter);
}

/** A later window of the same answer (docs/tools.md) is the same call read on, not another use. */
export function firstWindow(args: { readonly resultStart?: number }): boolean {
  return (args.resultStart ?? 0) === 0;
}
