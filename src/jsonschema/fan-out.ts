/**
 * A static bound on a schema's fan-out, for lint (docs/jsonschema.md): the most evaluation
 * steps (steps.ts) one instance location can cost through in-place applicators alone —
 * `$ref`, `allOf` / `anyOf` / `oneOf` branches, `not`, `if` with the larger of `then` /
 * `else`, `dependentSchemas` — every branch taken. A schema position over the budget here
 * fails every validation that reaches it with the runtime's maxSteps error (for allOf
 * chains) or can (anyOf / oneOf, where an early match stops). Member visits depend on the
 * instance and are not counted: this is a lower bound of the runtime's count.
 *
 * Walks positions with an explicit stack and memoises per pointer; counts saturate just past
 * the cap, so a 2^28 expansion costs as much to find as a 2^17 one.
 */
import { isPlainObject } from "./json.js";
import { escapeToken, parsePointer } from "./pointer.js";
import { SCHEMA_ARRAY_KEYWORDS, SCHEMA_MAP_KEYWORDS, SINGLE_SCHEMA_KEYWORDS } from "./vocabulary.js";

export interface FanOut {
  /** The largest count found, at most cap + 1. */
  readonly steps: number;
  /** The first position (document order) whose count passes the cap, else the largest's. */
  readonly pointer: string;
}

interface Position {
  readonly value: Readonly<Record<string, unknown>>;
  /** In-place children: summed. */
  readonly sum: string[];
  /** `then` / `else`: only the larger counts. */
  readonly either: string[];
}

/** Positions in document order; positions that are booleans have no children and cost nothing. */
function collect(root: unknown): { order: string[]; positions: Map<string, Position>; anchors: Map<string, string> } {
  const order: string[] = [];
  const positions = new Map<string, Position>();
  const anchors = new Map<string, string>();
  const stack: Array<readonly [unknown, string]> = [[root, ""]];
  while (stack.length > 0) {
    const [value, pointer] = stack.pop()!;
    if (!isPlainObject(value) || positions.has(pointer)) continue;
    order.push(pointer);
    const pos: Position = { value, sum: [], either: [] };
    positions.set(pointer, pos);
    if (typeof value.$anchor === "string") anchors.set(value.$anchor, pointer);
    const children: Array<readonly [unknown, string]> = [];
    for (const k of SINGLE_SCHEMA_KEYWORDS) if (Object.hasOwn(value, k)) children.push([value[k], `${pointer}/${k}`]);
    for (const k of SCHEMA_MAP_KEYWORDS) {
      const map = value[k];
      if (isPlainObject(map)) for (const key of Object.keys(map)) children.push([map[key], `${pointer}/${k}/${escapeToken(key)}`]);
    }
    for (const k of SCHEMA_ARRAY_KEYWORDS) {
      const list = value[k];
      if (Array.isArray(list)) list.forEach((x, i) => children.push([x, `${pointer}/${k}/${i}`]));
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    for (const k of ["allOf", "anyOf", "oneOf"]) {
      const list = value[k];
      if (Array.isArray(list)) list.forEach((_, i) => pos.sum.push(`${pointer}/${k}/${i}`));
    }
    if (Object.hasOwn(value, "not")) pos.sum.push(`${pointer}/not`);
    if (Object.hasOwn(value, "if")) {
      pos.sum.push(`${pointer}/if`);
      if (Object.hasOwn(value, "then")) pos.either.push(`${pointer}/then`);
      if (Object.hasOwn(value, "else")) pos.either.push(`${pointer}/else`);
    }
    const deps = value.dependentSchemas;
    if (isPlainObject(deps)) for (const key of Object.keys(deps)) pos.sum.push(`${pointer}/dependentSchemas/${escapeToken(key)}`);
  }
  return { order, positions, anchors };
}

/** A same-document ref as a canonical position pointer; null when it names no position. */
function refTarget(ref: unknown, anchors: ReadonlyMap<string, string>): string | null {
  if (typeof ref !== "string" || !ref.startsWith("#")) return null;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return null;
  }
  if (fragment !== "" && fragment[0] !== "/") return anchors.get(fragment) ?? null;
  const tokens = parsePointer(fragment);
  return tokens === null ? null : tokens.map((t) => `/${escapeToken(t)}`).join("");
}

export function worstFanOut(root: unknown, cap: number): FanOut {
  const { order, positions, anchors } = collect(root);
  const cost = new Map<string, number>();
  const onPath = new Set<string>();
  const costOf = (p: string): number => cost.get(p) ?? 0;
  const childrenOf = (p: string): { sum: string[]; either: string[] } => {
    const pos = positions.get(p)!;
    const target = refTarget(pos.value.$ref, anchors);
    const sum = target !== null && positions.has(target) ? [...pos.sum, target] : pos.sum;
    return { sum: sum.filter((c) => positions.has(c)), either: pos.either.filter((c) => positions.has(c)) };
  };
  for (const start of order) {
    if (cost.has(start)) continue;
    // Post-order over in-place edges; an edge back onto the path (a cycle the compiler
    // refuses anyway) adds nothing.
    const stack: Array<{ p: string; kids: string[]; i: number }> = [];
    const enter = (p: string): void => {
      onPath.add(p);
      const { sum, either } = childrenOf(p);
      stack.push({ p, kids: [...sum, ...either], i: 0 });
    };
    enter(start);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.i < top.kids.length) {
        const c = top.kids[top.i++]!;
        if (!cost.has(c) && !onPath.has(c)) enter(c);
        continue;
      }
      const { sum, either } = childrenOf(top.p);
      let n = 0;
      for (const c of sum) n += 1 + costOf(c);
      let most = 0;
      for (const c of either) most = Math.max(most, 1 + costOf(c));
      cost.set(top.p, Math.min(cap + 1, n + most));
      onPath.delete(top.p);
      stack.pop();
    }
  }
  let worst: FanOut = { steps: 0, pointer: "" };
  for (const p of order) {
    const n = costOf(p);
    if (n > cap) return { steps: n, pointer: p };
    if (n > worst.steps) worst = { steps: n, pointer: p };
  }
  return worst;
}
