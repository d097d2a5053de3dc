/**
 * Tagged unions: when every branch of a oneOf/anyOf is `type: "object"`, requires the same
 * property P, and pins P with a distinct scalar `const`, at most one branch can pass and
 * P's value names it. The applicator then evaluates that branch alone; any other instance
 * (not an object, P missing, unknown tag) matches no branch. Exact, not a heuristic: it
 * only skips branches that would fail.
 */
import { isPlainObject } from "../json.js";

export interface Discriminator {
  readonly property: string;
  /** tag value → branch index */
  readonly branches: ReadonlyMap<unknown, number>;
}

export function findDiscriminator(branches: readonly unknown[]): Discriminator | null {
  if (branches.length < 2) return null;
  const first = branches[0];
  if (!isPlainObject(first) || !isPlainObject(first.properties)) return null;
  for (const property of Object.keys(first.properties)) {
    const map = new Map<unknown, number>();
    const ok = branches.every((b, i) => {
      const tag = tagOf(b, property);
      if (tag === undefined || map.has(tag)) return false;
      map.set(tag, i);
      return true;
    });
    if (ok) return { property, branches: map };
  }
  return null;
}

function tagOf(branch: unknown, property: string): unknown {
  if (!isPlainObject(branch) || branch.type !== "object") return undefined;
  if (!Array.isArray(branch.required) || !branch.required.includes(property)) return undefined;
  const props = branch.properties;
  if (!isPlainObject(props) || !Object.hasOwn(props, property)) return undefined;
  const p = props[property];
  if (!isPlainObject(p) || !Object.hasOwn(p, "const")) return undefined;
  const c = p.const;
  return c === null || typeof c === "string" || typeof c === "boolean" || typeof c === "number" ? c : undefined;
}

/** The only branch that can pass for this instance, or -1 when none can. */
export function pickBranch(d: Discriminator, inst: unknown): number {
  if (!isPlainObject(inst) || !Object.hasOwn(inst, d.property)) return -1;
  return d.branches.get(inst[d.property]) ?? -1;
}
