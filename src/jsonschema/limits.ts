/**
 * Size bounds for schemas and instances (SPEC §7): nesting levels of containers, total
 * number of JSON values, and for schemas the UTF-8 size of their JSON text. Each walk stops
 * as soon as a bound is crossed, so a 10,000-level document never recurses past the limit.
 */
import { utf8Length } from "./json.js";

export const DEFAULT_MAX_DEPTH = 128;
export const DEFAULT_MAX_NODES = 10_000;
export const DEFAULT_MAX_BYTES = 1024 * 1024;

export type MeasureFault = "too_deep" | "too_many_nodes" | "not_json";

/**
 * Walks a value: containers count as nesting levels (the root container is level 1),
 * every value counts as a node. `strict` also refuses anything JSON cannot express.
 */
export function measure(value: unknown, maxDepth: number, maxNodes: number, strict: boolean): MeasureFault | null {
  if (typeof value !== "object" || value === null) {
    return strict && !isJsonScalar(value) ? "not_json" : maxNodes < 1 ? "too_many_nodes" : null;
  }
  const left = strict ? walkStrict(value, 1, maxDepth, maxNodes - 1) : walk(value, 1, maxDepth, maxNodes - 1);
  return left >= 0 ? null : left === TOO_DEEP ? "too_deep" : left === TOO_MANY ? "too_many_nodes" : "not_json";
}

// walk() returns the remaining node budget, or one of these (all negative).
const TOO_MANY = -1;
const TOO_DEEP = -2;
const NOT_JSON = -3;

/** The hot path before every validation: no allocation, for-in over plain objects. */
function walk(v: object, depth: number, maxDepth: number, budget: number): number {
  if (depth > maxDepth) return TOO_DEEP;
  if (Array.isArray(v)) {
    if ((budget -= v.length) < 0) return TOO_MANY;
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x === "object" && x !== null) {
        budget = walk(x as object, depth + 1, maxDepth, budget);
        if (budget < 0) return budget;
      }
    }
    return budget;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    if (--budget < 0) return TOO_MANY;
    const x = o[k];
    if (typeof x === "object" && x !== null) {
      budget = walk(x as object, depth + 1, maxDepth, budget);
      if (budget < 0) return budget;
    }
  }
  return budget;
}

function walkStrict(v: object, depth: number, maxDepth: number, budget: number): number {
  if (depth > maxDepth) return TOO_DEEP;
  if (!Array.isArray(v) && !isPlainRecord(v)) return NOT_JSON;
  const values = Array.isArray(v) ? v : Object.keys(v).map((k) => (v as Record<string, unknown>)[k]);
  if ((budget -= values.length) < 0) return TOO_MANY;
  for (const x of values) {
    if (typeof x === "object" && x !== null) {
      budget = walkStrict(x as object, depth + 1, maxDepth, budget);
      if (budget < 0) return budget;
    } else if (!isJsonScalar(x)) return NOT_JSON;
  }
  return budget;
}

function isJsonScalar(v: unknown): boolean {
  return v === null || typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));
}

function isPlainRecord(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** UTF-8 size of the value's JSON text; call only after `measure` accepted it. */
export function jsonByteLength(value: unknown): number {
  return utf8Length(JSON.stringify(value));
}
