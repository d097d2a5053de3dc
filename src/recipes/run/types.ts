/**
 * What running a recipe on a DCC means, as data: the connection the engine
 * drives (protocol-neutral: the MCP client behind it lives in
 * mcp-connection.ts), the plan a recipe resolves to, and the report a run
 * answers. Nothing here knows HTTP or a protocol revision.
 */

/** A tool the DCC's endpoint lists. */
export interface DccTool {
  readonly name: string;
  readonly inputSchema: unknown;
}

/** One tools/call answer as the DCC gave it. */
export interface DccToolResult {
  readonly isError: boolean;
  readonly structuredContent?: unknown;
  readonly content: readonly unknown[];
}

export type DccCallOutcome =
  | { readonly kind: "result"; readonly result: DccToolResult }
  /** The call did not complete: `unavailable` when the DCC stopped answering (the connection is dropped). */
  | { readonly kind: "error"; readonly reason: "timeout" | "cancelled" | "protocol" | "unavailable"; readonly message: string };

export type DccOpenOutcome =
  | { readonly ok: true; readonly tools: ReadonlyMap<string, DccTool> }
  | { readonly ok: false; readonly message: string };

export type DccReachability = "unknown" | "answering" | "unavailable";

/**
 * A DCC's MCP endpoint as the engine sees it. `open` connects when needed
 * (lazily, again after the DCC restarted), checks that it answers and gives
 * the tool list, all within `timeoutMs`; the list is cached per connection.
 */
export interface DccConnection {
  readonly dcc: string;
  /** `answeredRecentlyMs`: an open connection whose DCC answered within this long is not pinged again. */
  open(options: { readonly timeoutMs: number; readonly answeredRecentlyMs?: number; readonly signal?: AbortSignal }): Promise<DccOpenOutcome>;
  call(tool: string, args: Record<string, unknown>, options: { readonly timeoutMs: number; readonly signal?: AbortSignal }): Promise<DccCallOutcome>;
  /** What the last contact said; no contact is made. */
  reachability(): DccReachability;
  close(): Promise<void>;
}

/** Where a step's tool came from. */
export type RouteKind = "direct" | "routed" | "scripting_fallback";

/** One step, resolved and materialized: ready for preflight. */
export interface PlannedStep {
  readonly index: number;
  /** The tool as the recipe writes it (a canonical `mesh_ops__<verb>`, or a concrete name). */
  readonly tool: string;
  readonly resolvedTool: string;
  readonly route: RouteKind;
  readonly arguments: Record<string, unknown>;
}

export interface RunPlan {
  readonly recipeId: string;
  /** The recipe `adapter_recipe_aliases` chose instead of the one asked for, when it did. */
  readonly alias?: { readonly from: string; readonly to: string };
  readonly steps: readonly PlannedStep[];
  /** Executable `undo_steps` (objects with a `tool`), run after a failure. */
  readonly undoSteps: readonly PlannedStep[];
  /** `undo_steps` written as prose: reported, never run. */
  readonly manualUndo: readonly string[];
  /** `recovery` entries as written (`when`/`next` prose): reported on failure. */
  readonly advice: readonly unknown[];
  readonly undo: string | null;
  /** Index of the step whose result is the receipt. */
  readonly receiptStep: number;
}

export type RunStatus = "succeeded" | "failed" | "dry_run" | "recovered" | "cancelled";
type StepStatus = "ok" | "failed" | "not_run";

export interface StepReport {
  readonly index: number;
  readonly tool: string;
  readonly resolved_tool: string;
  readonly route: RouteKind;
  readonly arguments: Record<string, unknown>;
  readonly status: StepStatus;
  readonly result: unknown;
  readonly error?: string;
  readonly ms: number;
}

export interface RecoveryReport {
  readonly undo: string | null;
  readonly steps: readonly StepReport[];
  readonly manual: readonly string[];
  readonly advice: readonly unknown[];
}

/** Why a run did not succeed, in the one table's codes. */
export type RunErrorCode = "invalid_input" | "busy" | "dcc_unavailable" | "preflight_failed" | "run_failed" | "contract_failed" | "cancelled";

export interface RunReport {
  readonly run_id: string;
  readonly status: RunStatus;
  readonly steps: readonly StepReport[];
  readonly receipt: unknown;
  readonly output_valid: boolean | null;
  readonly output_errors: readonly string[];
  readonly recovery?: RecoveryReport;
}

/** A run's outcome: the report, and when it did not succeed, a code and a message. */
export interface RunOutcome {
  readonly report: RunReport;
  readonly error?: RunErrorCode;
  readonly message: string;
  /** Extra context for a refusal (the step and tool preflight names …). */
  readonly detail?: Readonly<Record<string, unknown>>;
}

/** Per-step progress, for `notifications/progress`. */
export type RunProgress = (done: number, total: number, message: string) => void;

export interface RunLimits {
  /** One step's bound. */
  readonly stepTimeoutMs: number;
  /** The whole run's bound (steps and recovery). */
  readonly runTimeoutMs: number;
  /** Connecting, pinging and listing tools: a DCC that never answers is unavailable after this. */
  readonly connectTimeoutMs: number;
  /**
   * A run starting within this long of the DCC's last answer (a run right
   * after another, or queued behind it) skips the liveness ping: the DCC has
   * just shown it answers, and one that stops answering since is caught by
   * the step bound, as one that stops mid-run is. 0: ping before every run.
   */
  readonly answeredRecentlyMs: number;
  /** Runs waiting for the DCC beyond the one running; one more answers `busy`. */
  readonly maxQueued: number;
  /** A step result or receipt serialized longer than this is cut (see receipt.ts). */
  readonly maxResultChars: number;
}

export const DEFAULT_RUN_LIMITS: RunLimits = Object.freeze({
  stepTimeoutMs: 30_000,
  runTimeoutMs: 55_000,
  connectTimeoutMs: 3_000,
  answeredRecentlyMs: 1_000,
  maxQueued: 4,
  maxResultChars: 8_000,
});
