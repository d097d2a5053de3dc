/**
 * A DCC's runner: its connection, its one-at-a-time gate, its compiled tool
 * schemas (per tool list) and the run limits. `run` takes a plan and
 * answers an outcome; what asks for the run (the recipes__run tool) chose
 * the recipe, validated the inputs and planned it.
 */
import { randomUUID } from "node:crypto";
import type { CompileResult } from "../../jsonschema/types.js";
import { executeRun } from "./engine.js";
import { RunGate } from "./gate.js";
import { ToolSchemas } from "./preflight.js";
import type { DccConnection, DccReachability, DccTool, RunLimits, RunOutcome, RunPlan, RunProgress } from "./types.js";

interface RunRequest {
  readonly plan: RunPlan;
  readonly contract: CompileResult | null;
  readonly dryRun: boolean;
  /** The caller's bound on the whole run (else the runner's default). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly progress?: RunProgress;
}

/** What a finished run tells the daemon's metrics: outcome and step timings, no arguments or results. */
export interface RunEvent {
  readonly dcc: string;
  readonly recipeId: string;
  readonly status: RunOutcome["report"]["status"];
  readonly error?: string;
  readonly ms: number;
  readonly steps: readonly { readonly tool: string; readonly status: string; readonly ms: number }[];
}

interface RunnerStatus {
  readonly dcc: string;
  readonly reachability: DccReachability;
  readonly running: boolean;
  readonly queued: number;
}

export class DccRunner {
  private readonly gate: RunGate;
  private schemas: ToolSchemas | null = null;

  constructor(
    readonly connection: DccConnection,
    readonly limits: RunLimits,
    private readonly onRun?: (event: RunEvent) => void,
  ) {
    this.gate = new RunGate(limits.maxQueued);
  }

  get dcc(): string {
    return this.connection.dcc;
  }

  status(): RunnerStatus {
    return { dcc: this.dcc, reachability: this.connection.reachability(), ...this.gate.load() };
  }

  /** Opens the connection now (the banner and /readyz say whether the DCC answers). */
  async probe(): Promise<DccReachability> {
    await this.connection.open({ timeoutMs: this.limits.connectTimeoutMs });
    return this.connection.reachability();
  }

  async run(request: RunRequest): Promise<RunOutcome> {
    const started = performance.now();
    const outcome = await this.runGated(request);
    const { report } = outcome;
    this.onRun?.({
      dcc: this.dcc,
      recipeId: request.plan.recipeId,
      status: report.status,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      ms: Math.round(performance.now() - started),
      steps: [...report.steps, ...(report.recovery?.steps ?? [])].filter((s) => s.status !== "not_run").map((s) => ({ tool: s.resolved_tool, status: s.status, ms: s.ms })),
    });
    return outcome;
  }

  private async runGated(request: RunRequest): Promise<RunOutcome> {
    const runId = randomUUID();
    const entered = await this.gate.enter(request.signal);
    if (!entered.ok) {
      const busy = entered.reason === "busy";
      const { running, queued } = this.gate.load();
      return {
        report: { run_id: runId, status: busy ? "failed" : "cancelled", steps: [], receipt: null, output_valid: null, output_errors: [] },
        error: busy ? "busy" : "cancelled",
        message: busy
          ? `DCC ${this.dcc} is busy: one run at a time per DCC, ${queued} waiting (the most allowed); try again when the current run ends`
          : "cancelled while waiting for the DCC",
        detail: { running, queued },
      };
    }
    try {
      const limits = request.timeoutMs !== undefined ? { ...this.limits, runTimeoutMs: request.timeoutMs } : this.limits;
      return await executeRun({
        runId,
        plan: request.plan,
        connection: this.connection,
        contract: request.contract,
        limits,
        dryRun: request.dryRun,
        schemasOf: (tools) => this.schemasFor(tools),
        ...(request.signal !== undefined ? { signal: request.signal } : {}),
        ...(request.progress !== undefined ? { progress: request.progress } : {}),
      });
    } finally {
      entered.leave();
    }
  }

  /** One compilation per tool list: the connection hands out a new map after it reconnects or hears list_changed. */
  private schemasFor(tools: ReadonlyMap<string, DccTool>): ToolSchemas {
    if (this.schemas?.tools !== tools) this.schemas = new ToolSchemas(tools);
    return this.schemas;
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}
