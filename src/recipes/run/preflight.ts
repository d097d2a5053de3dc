/**
 * Preflight: before the first step runs, every resolved tool must be in the
 * endpoint's tools/list and its materialized arguments must satisfy that
 * tool's `inputSchema`, validated with src/jsonschema. Schemas are compiled
 * once per tool list (the connection caches the list; a reconnect brings a
 * new list and new compilations).
 */
import { compileSchema, renderErrors } from "../../jsonschema/index.js";
import type { Validator } from "../../jsonschema/types.js";
import type { DccTool, PlannedStep } from "./types.js";

interface PreflightProblem {
  readonly phase: "steps" | "undo_steps";
  readonly step: number;
  readonly tool: string;
  readonly resolved_tool: string;
  readonly problem: "missing_tool" | "invalid_arguments";
  readonly errors: readonly string[];
}

/** A tool schema our validator refuses (a draft it does not read …): arguments then go unchecked, and the plan says so. */
interface PreflightNote {
  readonly step: number;
  readonly resolved_tool: string;
  readonly note: string;
}

type Compiled = { readonly validator: Validator } | { readonly refused: string };

/** Compiled input schemas of one tool list, made on first use. */
export class ToolSchemas {
  private readonly compiled = new Map<string, Compiled>();
  constructor(readonly tools: ReadonlyMap<string, DccTool>) {}

  of(name: string): Compiled | undefined {
    const known = this.compiled.get(name);
    if (known !== undefined) return known;
    const tool = this.tools.get(name);
    if (tool === undefined) return undefined;
    const result = compileSchema(tool.inputSchema ?? { type: "object" });
    const entry: Compiled = result.ok ? { validator: result.validator } : { refused: result.error.message };
    this.compiled.set(name, entry);
    return entry;
  }
}

export function preflight(
  schemas: ToolSchemas,
  phases: { readonly steps: readonly PlannedStep[]; readonly undo_steps: readonly PlannedStep[] },
): { problems: PreflightProblem[]; notes: PreflightNote[] } {
  const problems: PreflightProblem[] = [];
  const notes: PreflightNote[] = [];
  for (const phase of ["steps", "undo_steps"] as const) {
    for (const step of phases[phase]) {
      const compiled = schemas.of(step.resolvedTool);
      const where = { phase, step: step.index, tool: step.tool, resolved_tool: step.resolvedTool };
      if (compiled === undefined) {
        problems.push({ ...where, problem: "missing_tool", errors: [`${step.resolvedTool} is not in the DCC's tools/list`] });
        continue;
      }
      if ("refused" in compiled) {
        notes.push({ step: step.index, resolved_tool: step.resolvedTool, note: `inputSchema not checked: ${compiled.refused}` });
        continue;
      }
      const result = compiled.validator.validate(step.arguments);
      if (!result.valid) problems.push({ ...where, problem: "invalid_arguments", errors: renderErrors(result.errors, "argument") });
    }
  }
  return { problems, notes };
}
