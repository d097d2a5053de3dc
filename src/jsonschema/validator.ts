/**
 * The compiled validator. The instance is validated on the fast path (no error objects, no
 * paths) and its size bounds are checked, by a separate walk or, when the schema covers the
 * instance (cover.ts), by the fast pass itself. Every instance past a bound is invalid. When
 * every error is wanted, the limit error comes first and alone, and a failure re-runs the
 * whole instance collecting errors and paths, skipping in the loops on the fast pass's
 * failure path the members that pass found valid (context.ts markFailure / skipTo). When
 * only the first error is wanted, the fast pass traces its failure: the failing keyword
 * records its error (context.ts traceHere, traceChild), and only a failure nothing traced
 * re-runs the root with collection on; a covered pass that traced a failure reports it as
 * the first error it met, without walking the rest of the instance for the bounds.
 */
import type { ValidationError, ValidationResult, Validator } from "./types.js";
import type { SchemaNode, State } from "./context.js";
import { collectingState } from "./context.js";
import { coverOf } from "./cover.js";
import { measure } from "./limits.js";
import { StepBudgetExceeded } from "./steps.js";

export interface InstanceLimits {
  readonly maxDepth: number;
  readonly maxNodes: number;
  readonly maxSteps: number;
  readonly allErrors: boolean;
}

/** The fast pass never records an error (collect is off); frozen so a stray push would throw. */
const NEVER_WRITTEN = Object.freeze([]) as unknown as ValidationError[];

const VALID: ValidationResult = Object.freeze({ valid: true, errors: Object.freeze([]) as readonly ValidationError[] });

export function createValidator(root: SchemaNode, limits: InstanceLimits): Validator {
  // Every ref link can cost one instance level or one link of a chain; 4 per level is
  // more than any real schema needs and keeps the JS stack far from overflowing.
  const maxRefDepth = limits.maxDepth * 4;
  // Whether the fast pass can stand in for the instance walk (cover.ts); decided on first use
  // so compiling stays cheap for schemas that are never used.
  let trusted: boolean | undefined;
  const trace = !limits.allErrors;
  // The fast pass's state, kept between calls (it is the per-call allocation that shows
  // on small instances); taken while in use, so a re-entrant call gets its own.
  let spare: State | null = null;
  const freshState = (): State => ({
    collect: false,
    stop: true,
    errors: NEVER_WRITTEN,
    refDepth: 0,
    maxRefDepth,
    steps: limits.maxSteps,
    nodes: 0,
    partial: false,
    trace,
    trail: "",
    traced: null,
    mark: !trace,
    marks: [],
    markCount: 0,
  });
  return {
    validate(instance: unknown): ValidationResult {
      trusted ??= isTrusted(root, limits.maxDepth);
      let fast = spare;
      if (fast === null) fast = freshState();
      else {
        spare = null;
        // A pass cut short by a RangeError may leave a quiet branch's modes set.
        fast.collect = false;
        fast.stop = true;
        fast.trace = trace;
        fast.refDepth = 0;
        fast.steps = limits.maxSteps;
        fast.nodes = 0;
        fast.partial = false;
        fast.trail = "";
        fast.traced = null;
        fast.mark = !trace;
        fast.markCount = 0;
      }
      const result = validateWith(fast, instance);
      // The marks name the instance's containers: not kept alive past this call.
      if (fast.markCount !== 0) {
        for (let i = 0; i < fast.markCount; i++) fast.marks[i] = undefined;
        fast.markCount = 0;
      }
      spare = fast;
      return result;
    },
  };

  function validateWith(fast: State, instance: unknown): ValidationResult {
    if (trusted) {
      // Safe before the walk: recursion is bounded by the ref depth and caught, and the work
      // is linear in the instance. A pass that accounted for every member has measured it.
      const ok = run(root, instance, fast);
      if (fast.steps < 0) return invalid(stepsError(limits));
      if (ok && !fast.partial && fast.nodes < limits.maxNodes) return VALID;
      // A traced failure is the first error a collecting pass meets, so it is reported
      // as found (below); only a pass that succeeded, or cannot say where it failed, walks
      // the instance for the limits (first-error mode's verdicts never depend on the order).
      if (ok || !wasTraced(fast)) {
        const fault = measure(instance, limits.maxDepth, limits.maxNodes, false);
        if (fault !== null) return invalid(limitError(fault, limits));
        if (ok) return VALID;
      }
    } else {
      const fault = measure(instance, limits.maxDepth, limits.maxNodes, false);
      if (fault !== null) return invalid(limitError(fault, limits));
      if (run(root, instance, fast)) return VALID;
      if (fast.steps < 0) return invalid(stepsError(limits));
    }
    if (wasTraced(fast)) return { valid: false, errors: located(fast.traced!, fast.trail) };
    // Every error: the loops on the fast pass's failure path skip the members it found valid.
    const slow = collectingState(!limits.allErrors, 0, maxRefDepth, limits.maxSteps, fast.marks, fast.markCount);
    run(root, instance, slow);
    // Collecting explores more than the fast pass (every branch, every member): its own budget.
    if (slow.steps < 0) return invalid(stepsError(limits));
    if (slow.errors.length === 0) {
      slow.errors.push({ instancePath: "", keywordLocation: "", keyword: "schema", message: "Value does not match the schema" });
    }
    return { valid: false, errors: slow.errors };
  }
}

/**
 * The root covers (cover.ts) within the depth limit, and the node limit allows a container
 * at all: then a successful, non-partial fast pass bounds depth statically and counts nodes.
 */
function isTrusted(root: SchemaNode, maxDepth: number): boolean {
  const d = coverOf(root);
  return d >= 0 && d <= maxDepth;
}

function run(root: SchemaNode, instance: unknown, st: State): boolean {
  try {
    return root.validate(instance, st, null, "");
  } catch (e) {
    // Last line of defence: the ref depth bound should make this unreachable.
    if (e instanceof RangeError) {
      // A trace cut short says nothing: the collecting pass reports the failure.
      st.traced = null;
      st.trail = "";
      if (st.collect) {
        st.errors.push({ instancePath: "", keywordLocation: "", keyword: "$ref", message: "Schema recursion is too deep for this value" });
      }
      return false;
    }
    if (e instanceof StepBudgetExceeded) {
      // Marks the pass spent even when a traced re-run (its own state) threw.
      st.steps = -1;
      st.traced = null;
      st.trail = "";
      return false;
    }
    throw e;
  }
}

/** The fast pass traced its failure (context.ts traceChild), so its error needs no second pass. */
function wasTraced(st: State): boolean {
  return st.traced !== null && st.traced.length > 0;
}

/** The traced failure's errors at their full instance path. */
function located(errors: ValidationError[], trail: string): ValidationError[] {
  if (trail === "") return errors;
  // Objects this call's trace just built and nothing else holds: completed in place.
  for (const e of errors) (e as { instancePath: string }).instancePath = trail + e.instancePath;
  return errors;
}

function invalid(error: ValidationError): ValidationResult {
  return { valid: false, errors: [error] };
}

function limitError(fault: string, limits: InstanceLimits): ValidationError {
  const message =
    fault === "too_deep"
      ? `Value nests deeper than ${limits.maxDepth} levels`
      : `Value has more than ${limits.maxNodes} nodes`;
  return { instancePath: "", keywordLocation: "", keyword: fault === "too_deep" ? "maxDepth" : "maxNodes", message };
}

function stepsError(limits: InstanceLimits): ValidationError {
  return {
    instancePath: "",
    keywordLocation: "",
    keyword: "maxSteps",
    message: `Validation needs more than ${limits.maxSteps} evaluation steps (a schema that fans out, or a value too large for it)`,
  };
}
