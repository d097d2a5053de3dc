/**
 * The compiled validator. The instance is validated on the fast path (no error objects, no
 * paths) and its size bounds are checked, by a separate walk or, when the schema covers the
 * instance (cover.ts), by the fast pass itself; only a failure re-runs with collection on to
 * build errors and paths. A limit error always takes precedence over schema errors.
 */
import type { ValidationError, ValidationResult, Validator } from "./types.js";
import type { SchemaNode, State } from "./context.js";
import { coverOf } from "./cover.js";
import { measure } from "./limits.js";

export interface InstanceLimits {
  readonly maxDepth: number;
  readonly maxNodes: number;
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
  return {
    validate(instance: unknown): ValidationResult {
      trusted ??= isTrusted(root, limits.maxDepth);
      const fast: State = { collect: false, stop: true, errors: NEVER_WRITTEN, refDepth: 0, maxRefDepth, nodes: 0, partial: false };
      if (trusted) {
        // Safe before the walk: recursion is bounded by the ref depth and caught, and the work
        // is linear in the instance. A pass that accounted for every member has measured it.
        const ok = run(root, instance, fast);
        if (ok && !fast.partial && fast.nodes < limits.maxNodes) return VALID;
        const fault = measure(instance, limits.maxDepth, limits.maxNodes, false);
        if (fault !== null) return invalid(limitError(fault, limits));
        if (ok) return VALID;
      } else {
        const fault = measure(instance, limits.maxDepth, limits.maxNodes, false);
        if (fault !== null) return invalid(limitError(fault, limits));
        if (run(root, instance, fast)) return VALID;
      }
      const slow: State = { collect: true, stop: !limits.allErrors, errors: [], refDepth: 0, maxRefDepth, nodes: 0, partial: false };
      run(root, instance, slow);
      if (slow.errors.length === 0) {
        slow.errors.push({ instancePath: "", keywordLocation: "", keyword: "schema", message: "Value does not match the schema" });
      }
      return { valid: false, errors: slow.errors };
    },
  };
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
      if (st.collect) {
        st.errors.push({ instancePath: "", keywordLocation: "", keyword: "$ref", message: "Schema recursion is too deep for this value" });
      }
      return false;
    }
    throw e;
  }
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
