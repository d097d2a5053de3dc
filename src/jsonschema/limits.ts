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

interface Counter {
  nodes: number;
  readonly maxDepth: number;
  readonly maxNodes: number;
  fault: MeasureFault | null;
}

/**
 * Walks a value: containers count as nesting levels (the root container is level 1),
 * every value counts as a node. `strict` also refuses anything JSON cannot express.
 */
export function measure(value: unknown, maxDepth: number, maxNodes: number, strict: boolean): MeasureFault | null {
  const c: Counter = { nodes: 0, maxDepth, maxNodes, fault: null };
  walk(value, 0, c, strict);
  return c.fault;
}

function walk(v: unknown, depth: number, c: Counter, strict: boolean): void {
  if (++c.nodes > c.maxNodes) {
    c.fault = "too_many_nodes";
    return;
  }
  if (typeof v !== "object" || v === null) {
    if (strict && !isJsonScalar(v)) c.fault = "not_json";
    return;
  }
  if (depth + 1 > c.maxDepth) {
    c.fault = "too_deep";
    return;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      walk(v[i], depth + 1, c, strict);
      if (c.fault !== null) return;
    }
    return;
  }
  if (strict && !isPlainRecord(v)) {
    c.fault = "not_json";
    return;
  }
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    walk(o[k], depth + 1, c, strict);
    if (c.fault !== null) return;
  }
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
