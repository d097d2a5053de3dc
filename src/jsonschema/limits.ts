/**
 * Size bounds for schemas and instances (docs/jsonschema.md): nesting levels of containers, total
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
  let left: number;
  if (strict) left = walkStrict(value, 1, maxDepth, maxNodes - 1, null);
  else if (maxDepth < 1) left = TOO_DEEP;
  else left = Array.isArray(value) ? walkArray(value, maxDepth - 1, maxNodes - 1) : walkObject(value as Record<string, unknown>, maxDepth - 1, maxNodes - 1);
  return left >= 0 ? null : left === TOO_DEEP ? "too_deep" : left === TOO_MANY ? "too_many_nodes" : "not_json";
}

// The walks return the remaining node budget, or one of these (all negative).
const TOO_MANY = -1;
const TOO_DEEP = -2;
const NOT_JSON = -3;

/**
 * The instance walk, run before validating and whenever a failing value must be measured
 * (see validator.ts for when a limit error comes first): no allocation, for-in over plain objects. Objects and
 * arrays have a function each (one for-in site, one indexed loop: V8 keeps both small and
 * monomorphic); `levels` is how many more levels of containers may nest below this one.
 * The checks run in one order whatever the shape: a member is counted, then a container
 * member is checked for depth, then its own members are counted.
 */
function walkObject(o: Record<string, unknown>, levels: number, budget: number): number {
  for (const k in o) {
    if (--budget < 0) return TOO_MANY;
    const x = o[k];
    if (typeof x === "object" && x !== null) {
      if (levels === 0) return TOO_DEEP;
      budget = Array.isArray(x) ? walkArray(x, levels - 1, budget) : walkObject(x as Record<string, unknown>, levels - 1, budget);
      if (budget < 0) return budget;
    }
  }
  return budget;
}

function walkArray(a: readonly unknown[], levels: number, budget: number): number {
  const n = a.length;
  if ((budget -= n) < 0) return TOO_MANY;
  for (let i = 0; i < n; i++) {
    const x = a[i];
    if (typeof x === "object" && x !== null) {
      if (levels === 0) return TOO_DEEP;
      budget = Array.isArray(x) ? walkArray(x, levels - 1, budget) : walkObject(x as Record<string, unknown>, levels - 1, budget);
      if (budget < 0) return budget;
    }
  }
  return budget;
}

function walkStrict(v: object, depth: number, maxDepth: number, budget: number, tally: SchemaTally | null): number {
  if (depth > maxDepth) return TOO_DEEP;
  if (!Array.isArray(v) && !isPlainRecord(v)) return NOT_JSON;
  if (Array.isArray(v)) {
    if ((budget -= v.length) < 0) return TOO_MANY;
    if (tally !== null) tally.bytes += 2 + v.length;
    for (let i = 0; i < v.length; i++) {
      budget = walkValue(v[i], depth, maxDepth, budget, tally);
      if (budget < 0) return budget;
    }
    return budget;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if ((budget -= keys.length) < 0) return TOO_MANY;
  if (tally !== null) tally.bytes += 2;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (tally !== null) {
      // quotes, colon, comma; at most 6 bytes per UTF-16 unit (\u001f, \udc00).
      tally.bytes += 4 + 6 * k.length;
      if (k.charCodeAt(0) === 36 /* $ */) {
        if ((k !== "$schema" || depth > 1) && SPECIAL_KEYS.has(k)) tally.special = true;
        else if (k === "$ref") tally.refs = true;
      }
    }
    budget = walkValue(o[k], depth, maxDepth, budget, tally);
    if (budget < 0) return budget;
  }
  return budget;
}

function walkValue(x: unknown, depth: number, maxDepth: number, budget: number, tally: SchemaTally | null): number {
  if (typeof x === "object" && x !== null) return walkStrict(x, depth + 1, maxDepth, budget, tally);
  if (!isJsonScalar(x)) return NOT_JSON;
  if (tally !== null) tally.bytes += typeof x === "string" ? 2 + 6 * x.length : 32;
  return budget;
}

/**
 * Keys that can make `collectAnchors` find something: `$anchor`, and the keywords it
 * refuses. A `$schema` in the root object is not counted (compiling the root checks it first).
 */
const SPECIAL_KEYS: ReadonlySet<string> = new Set(["$anchor", "$id", "$dynamicRef", "$dynamicAnchor", "$schema"]);

interface SchemaTally {
  /** An upper bound on the UTF-8 size of the value's JSON text. */
  bytes: number;
  special: boolean;
  refs: boolean;
}

export interface SchemaMeasure {
  readonly fault: MeasureFault | "too_large" | null;
  /** A key that `collectAnchors` must look at occurs somewhere (see SPECIAL_KEYS). */
  readonly special: boolean;
  /** A `$ref` key occurs somewhere (as a keyword or not). */
  readonly refs: boolean;
}

/**
 * The schema's bounds in one walk: levels, nodes, JSON-ness, and size. The size is bounded
 * from above on the way; only a schema whose bound passes `maxBytes` is serialised to be
 * measured exactly.
 */
export function measureSchema(value: unknown, maxDepth: number, maxNodes: number, maxBytes: number): SchemaMeasure {
  const tally: SchemaTally = { bytes: 0, special: false, refs: false };
  let fault: MeasureFault | "too_large" | null;
  if (typeof value !== "object" || value === null) {
    fault = !isJsonScalar(value) ? "not_json" : maxNodes < 1 ? "too_many_nodes" : null;
    tally.bytes = 32 + (typeof value === "string" ? 6 * value.length : 0);
  } else {
    const left = walkStrict(value, 1, maxDepth, maxNodes - 1, tally);
    fault = left >= 0 ? null : left === TOO_DEEP ? "too_deep" : left === TOO_MANY ? "too_many_nodes" : "not_json";
  }
  if (fault === null && tally.bytes > maxBytes && jsonByteLength(value) > maxBytes) fault = "too_large";
  return { fault, special: tally.special, refs: tally.refs };
}

function isJsonScalar(v: unknown): boolean {
  return v === null || typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));
}

function isPlainRecord(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** UTF-8 size of the value's JSON text; call only after `measure` accepted it. */
function jsonByteLength(value: unknown): number {
  return utf8Length(JSON.stringify(value));
}
