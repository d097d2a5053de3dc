/**
 * One run of a planned recipe on a DCC connection: connect (bounded),
 * preflight, then the steps in order, each bounded; the first failure
 * (a tool error, `isError`, a timeout, the DCC gone) stops the run. The
 * receipt is checked against the contract; after any failure, and after a
 * cancellation between steps, the plan's executable undo steps run and are
 * reported. Protocol-neutral: the connection is an interface, cancellation an
 * AbortSignal, progress a callback.
 */
import type { CompileResult } from "../../jsonschema/types.js";
import { preflight, type ToolSchemas } from "./preflight.js";
import { bounded, checkContract, projectResult } from "./receipt.js";
import type {
  DccConnection,
  DccTool,
  PlannedStep,
  RecoveryReport,
  RunErrorCode,
  RunLimits,
  RunOutcome,
  RunPlan,
  RunProgress,
  RunReport,
  RunStatus,
  StepReport,
} from "./types.js";

interface ExecuteOptions {
  readonly runId: string;
  readonly plan: RunPlan;
  readonly connection: DccConnection;
  /** The recipe's compiled output_contract (null: none declared). */
  readonly contract: CompileResult | null;
  readonly limits: RunLimits;
  readonly dryRun: boolean;
  /** The compiled tool schemas of a tool list (cached by the caller per connection). */
  readonly schemasOf: (tools: ReadonlyMap<string, DccTool>) => ToolSchemas;
  /** Aborted when the caller cancels: the run stops before its next step, then recovers. */
  readonly signal?: AbortSignal;
  readonly progress?: RunProgress;
}

function notRun(step: PlannedStep): StepReport {
  return { index: step.index, tool: step.tool, resolved_tool: step.resolvedTool, route: step.route, arguments: step.arguments, status: "not_run", result: null, ms: 0 };
}

function report(runId: string, status: RunStatus, steps: readonly StepReport[], extra: Partial<Omit<RunReport, "run_id" | "status" | "steps">> = {}): RunReport {
  return { run_id: runId, status, steps, receipt: extra.receipt ?? null, output_valid: extra.output_valid ?? null, output_errors: extra.output_errors ?? [], ...(extra.recovery !== undefined ? { recovery: extra.recovery } : {}) };
}

interface StepRun {
  readonly report: StepReport;
  readonly value: unknown;
  /** Why the step failed, as a run error code; null when it succeeded. */
  readonly failure: RunErrorCode | null;
}

async function runStep(o: ExecuteOptions, step: PlannedStep, timeoutMs: number): Promise<StepRun> {
  const started = performance.now();
  const outcome = await o.connection.call(step.resolvedTool, step.arguments, { timeoutMs });
  const ms = Math.round((performance.now() - started) * 10) / 10;
  const base = { index: step.index, tool: step.tool, resolved_tool: step.resolvedTool, route: step.route, arguments: step.arguments, ms };
  if (outcome.kind === "error") {
    const failure: RunErrorCode = outcome.reason === "unavailable" ? "dcc_unavailable" : outcome.reason === "cancelled" ? "cancelled" : "run_failed";
    return { report: { ...base, status: "failed", result: null, error: `${outcome.reason}: ${outcome.message}` }, value: null, failure };
  }
  const projected = projectResult(outcome.result);
  const result = bounded(projected.value, o.limits.maxResultChars);
  if (projected.failed !== null) {
    return { report: { ...base, status: "failed", result, error: `tool error: ${String(bounded(projected.failed, 500))}` }, value: projected.value, failure: "run_failed" };
  }
  return { report: { ...base, status: "ok", result }, value: projected.value, failure: null };
}

/** The executable undo steps, each bounded by the step timeout; not cut by the caller's cancellation (it is what cancellation asks for). */
async function recover(o: ExecuteOptions): Promise<RecoveryReport> {
  const steps: StepReport[] = [];
  let stopped = false;
  for (const step of o.plan.undoSteps) {
    if (stopped) {
      steps.push(notRun(step));
      continue;
    }
    const ran = await runStep(o, step, o.limits.stepTimeoutMs);
    steps.push(ran.report);
    if (ran.failure !== null) stopped = true;
  }
  return { undo: o.plan.undo, steps, manual: o.plan.manualUndo, advice: o.plan.advice };
}

const CODE_MESSAGES: Record<RunErrorCode, string> = {
  invalid_input: "invalid input",
  busy: "the DCC is busy",
  dcc_unavailable: "the DCC endpoint stopped answering",
  preflight_failed: "preflight failed",
  run_failed: "a step failed",
  contract_failed: "the receipt failed the output_contract",
  cancelled: "the run was cancelled",
};

export async function executeRun(o: ExecuteOptions): Promise<RunOutcome> {
  const { plan, limits, runId } = o;
  const deadline = performance.now() + limits.runTimeoutMs;
  const remaining = (): number => Math.max(1, Math.floor(deadline - performance.now()));
  const total = plan.steps.length;

  const opened = await o.connection.open({
    timeoutMs: Math.min(limits.connectTimeoutMs, remaining()),
    answeredRecentlyMs: limits.answeredRecentlyMs,
    ...(o.signal !== undefined ? { signal: o.signal } : {}),
  });
  if (!opened.ok) {
    return { report: report(runId, "failed", plan.steps.map(notRun)), error: "dcc_unavailable", message: `DCC ${o.connection.dcc} is unavailable: ${opened.message}` };
  }
  const checked = preflight(o.schemasOf(opened.tools), { steps: plan.steps, undo_steps: plan.undoSteps });
  if (checked.problems.length > 0) {
    const first = checked.problems[0]!;
    const what = first.problem === "missing_tool" ? `${first.resolved_tool} is not offered by the DCC` : `arguments for ${first.resolved_tool} break its inputSchema (${first.errors.join("; ")})`;
    return {
      report: report(runId, "failed", plan.steps.map(notRun)),
      error: "preflight_failed",
      message: `Preflight: ${first.phase}[${first.step}] (${first.tool}): ${what}; nothing ran`,
      detail: { problems: checked.problems, ...(checked.notes.length > 0 ? { notes: checked.notes } : {}) },
    };
  }
  if (o.dryRun) {
    return {
      report: report(runId, "dry_run", plan.steps.map(notRun)),
      message: `Dry run of ${plan.recipeId} on ${o.connection.dcc}: ${total} step(s) resolved and preflighted; nothing ran`,
      detail: { undo_steps: plan.undoSteps.map(notRun), ...(checked.notes.length > 0 ? { notes: checked.notes } : {}) },
    };
  }

  const steps: StepReport[] = [];
  const values = new Map<number, unknown>();
  let failure: RunErrorCode | null = null;
  let reason = "";
  for (const [position, step] of plan.steps.entries()) {
    if (failure !== null) {
      steps.push(notRun(step));
      continue;
    }
    if (o.signal?.aborted === true) {
      failure = "cancelled";
      reason = `cancelled before step ${step.index}`;
      steps.push(notRun(step));
      continue;
    }
    if (performance.now() >= deadline) {
      failure = "run_failed";
      reason = `the run exceeded its ${limits.runTimeoutMs} ms before step ${step.index}`;
      steps.push(notRun(step));
      continue;
    }
    // Cancellation acts between steps: a step the DCC has started finishes (bounded), so the scene is never left mid-operation.
    const ran = await runStep(o, step, Math.min(limits.stepTimeoutMs, remaining()));
    steps.push(ran.report);
    values.set(step.index, ran.value);
    o.progress?.(position + 1, total, `step ${step.index} ${step.resolvedTool}: ${ran.report.status}`);
    if (ran.failure !== null) {
      failure = ran.failure;
      reason = `step ${step.index} (${step.resolvedTool}) ${ran.report.error ?? "failed"}`;
    }
  }

  let receipt: unknown = null;
  let verdict: { valid: boolean | null; errors: string[] } = { valid: null, errors: [] };
  if (failure === null) {
    receipt = values.get(plan.receiptStep) ?? null;
    verdict = checkContract(o.contract, receipt);
    if (verdict.valid === false) {
      failure = "contract_failed";
      reason = `the receipt of step ${plan.receiptStep} fails the output_contract: ${verdict.errors.slice(0, 3).join("; ")}`;
    }
  }
  const shown = { receipt: bounded(receipt, limits.maxResultChars * 4), output_valid: verdict.valid, output_errors: verdict.errors };
  if (failure === null) {
    return { report: report(runId, "succeeded", steps, shown), message: `Ran ${plan.recipeId} on ${o.connection.dcc}: ${total} step(s) ok${verdict.valid === true ? ", output_contract satisfied" : ""}` };
  }
  const touched = steps.some((s) => s.status !== "not_run");
  const recovery = touched || failure === "cancelled" ? await recover(o) : { undo: plan.undo, steps: [], manual: plan.manualUndo, advice: plan.advice };
  const undone = recovery.steps.length > 0 && recovery.steps.every((s) => s.status === "ok");
  const status: RunStatus = failure === "cancelled" ? "cancelled" : undone ? "recovered" : "failed";
  const after = recovery.steps.length === 0 ? "" : undone ? "; undo steps ran" : "; undo steps did not all succeed";
  return {
    report: report(runId, status, steps, { ...shown, recovery }),
    error: failure,
    message: `${CODE_MESSAGES[failure]}: ${reason}${after}`,
  };
}
