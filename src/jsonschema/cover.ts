/**
 * Which schemas let the fast pass stand in for the instance walk (limits.ts `measure`).
 * A node "covers" when, after it accepted a value on the fast pass, every member of that
 * value was counted in State.nodes by a loop that visited it (properties, items), or
 * State.partial was set; its cover is then a bound on the value's nesting. When the root
 * covers within the depth limit, a valid instance needs no separate walk: the count says
 * whether it stays within the node limit. Anything this analysis cannot see through (ref
 * cycles, if/then/else, patternProperties, a schema without type) does not cover, and the
 * validator walks the instance first, as before.
 */
import type { CompiledKeyword, SchemaNode } from "./context.js";

const NONE = -1;
/** Marks a result that depended on a node still being computed (a cycle). */
const CYCLE = -2;
/** Deeper chains than this are left uncovered rather than followed. */
const MAX_STEPS = 256;

export function coverOf(node: SchemaNode): number {
  const r = compute(node, new Set(), 0);
  return r < 0 ? NONE : r;
}

function compute(node: SchemaNode, onPath: Set<SchemaNode>, steps: number): number {
  if (node.cover !== undefined) return node.cover;
  if (onPath.has(node) || steps > MAX_STEPS) return CYCLE;
  onPath.add(node);
  const r = own(node, onPath, steps);
  onPath.delete(node);
  // A result that leaned on a cycle is not kept as a bound; NONE is always safe.
  node.cover = r < 0 ? NONE : r;
  return r;
}

function own(node: SchemaNode, onPath: Set<SchemaNode>, steps: number): number {
  if (node.rejectsAll) return 0;
  const keywords = node.keywords;
  if (keywords === null) return NONE;
  let object = true;
  let array = true;
  let objectDepth = NONE;
  let arrayDepth = NONE;
  let best = NONE;
  const tighten = (d: number): void => {
    if (d >= 0 && (best < 0 || d < best)) best = d;
  };
  for (const k of keywords) {
    const c = k.cover;
    if (c === undefined) continue;
    if (c.object === false) object = false;
    if (c.array === false) array = false;
    if (c.iterates !== undefined) {
      // Members are checked at run time: one that reaches an uncovered schema as a
      // container sets State.partial, so an uncovered child adds no depth here.
      let depth = 1;
      for (const child of c.children ?? []) {
        const d = compute(child, onPath, steps + 1);
        if (d === CYCLE) return CYCLE;
        if (d + 1 > depth) depth = d + 1;
      }
      if (c.iterates === "object") objectDepth = Math.max(objectDepth, depth);
      else arrayDepth = Math.max(arrayDepth, depth);
    }
    if (c.all !== undefined) {
      for (const n of c.all) {
        const d = compute(n, onPath, steps + 1);
        if (d === CYCLE) return CYCLE;
        tighten(d);
      }
    }
    if (c.any !== undefined) {
      let worst = 0;
      for (const n of c.any) {
        const d = compute(n, onPath, steps + 1);
        if (d === CYCLE) return CYCLE;
        if (d < 0) {
          worst = NONE;
          break;
        }
        if (d > worst) worst = d;
      }
      tighten(worst);
    }
  }
  if ((!object || objectDepth >= 0) && (!array || arrayDepth >= 0)) {
    tighten(Math.max(0, object ? objectDepth : 0, array ? arrayDepth : 0));
  }
  return best;
}

export type { CompiledKeyword };
