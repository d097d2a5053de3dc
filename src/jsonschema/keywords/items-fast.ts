/**
 * The prefixItems / items fast path, generated for one schema object (see generated.ts).
 * The prefix is unrolled, leaf items are tested inline, and the semantics are the closure
 * loop's in items.ts (folded minItems / maxItems first, items counted for the instance
 * limits, partial marks, annotations when `ev` is given).
 */
import type { Annotations, SchemaNode, State } from "../context.js";
import { pushError, quiet, resume, skipTo } from "../context.js";
import { GeneratedConstants } from "../generated.js";
import { collectMemberSource, memberSource } from "../leaf-source.js";
import { lengthWithin } from "./validation.js";
import { charge } from "../steps.js";

export type ArrayFastPath = (arr: readonly unknown[], st: State, ev: Annotations | null, path: string) => boolean;

export interface ArrayFastPathParts {
  readonly prefix: readonly SchemaNode[];
  /** The schema items past the prefix must pass; null when `items` is absent. */
  readonly items: SchemaNode | null;
  /** `items: false`. */
  readonly forbidRest: boolean;
  readonly lo: number;
  readonly hi: number;
  /** Item `i` failed: traces it when the pass traces, answers false. */
  readonly failed: (st: State, i: number, v: unknown, arr: readonly unknown[]) => false;
  /** The array's length is outside minItems / maxItems: traces it when the pass traces, answers false. */
  readonly outOfBounds: (st: State, len: number) => false;
  /** An item past the prefix is forbidden: traces it when the pass traces, answers false. */
  readonly forbidden: (st: State, i: number, arr: readonly unknown[]) => false;
}

/** Most prefix members unrolled; a longer prefix keeps the closure loop. */
export const MAX_GENERATED_PREFIX = 16;

export function generateArrayFastPath(parts: ArrayFastPathParts): ArrayFastPath | null {
  const { prefix, items, forbidRest, lo, hi } = parts;
  const n = prefix.length;
  const consts = new GeneratedConstants();
  const lines: string[] = [];
  const bounds: string[] = [];
  if (lo > 0) bounds.push(`len < ${lo}`);
  if (hi !== Infinity) bounds.push(`len > ${hi}`);
  if (bounds.length > 0) lines.push(`if (${bounds.join(" || ")}) return outOfBounds(st, len);`);
  // After the bounds, as the closure loop charges (items.ts): one step an item.
  lines.push("charge(st, len);");
  prefix.forEach((node, i) => {
    lines.push(`if (len > ${i}) { const v = arr[${i}]; ${memberSource(node, consts, `failed(st, ${i}, v, arr)`)} }`);
  });
  if (items === null) {
    lines.push(`if (len > ${n}) st.partial = true;`);
    // items.ts compiles nothing without prefixItems or items, so here n >= 1.
    lines.push(`if (ev !== null && (len < ${n} ? len : ${n}) > ev.items) ev.items = len < ${n} ? len : ${n};`);
  } else {
    if (forbidRest) lines.push(`if (len > ${n}) return forbidden(st, ${n}, arr);`);
    else lines.push(`for (let i = ${n}; i < len; i++) { const v = arr[i]; ${memberSource(items, consts, "failed(st, i, v, arr)")} }`);
    lines.push("if (ev !== null) ev.allItems = true;");
  }
  const source = `${consts.declarations()}
return function itemsFast(arr, st, ev, path) {
  const len = arr.length;
  ${lines.join("\n  ")}
  st.nodes += len;
  return true;
};`;
  return consts.instantiate<ArrayFastPath>(source, {
    lengthWithin,
    charge,
    failed: parts.failed,
    outOfBounds: parts.outOfBounds,
    forbidden: parts.forbidden,
  });
}

export interface ArrayCollectPathParts {
  readonly prefix: readonly SchemaNode[];
  readonly items: SchemaNode | null;
  readonly forbidRest: boolean;
  /** Where an item past a forbidding prefix is reported. */
  readonly itemsLoc: string;
  readonly itemsName: string;
  readonly unexpected: string;
  /** The keyword's loop token (context.ts skipTo). */
  readonly token: object;
}

/**
 * The collecting pass's loop for one schema object, with the semantics of items.ts's
 * collecting closure: one step an item, the prefix unrolled, each item asked as
 * assemble.ts memberPasses asks it, the instance path built only for a failing item;
 * after a marked fast-pass failure, from the item it failed at (context.ts skipTo).
 */
export function generateArrayCollectPath(parts: ArrayCollectPathParts): ArrayFastPath | null {
  const { prefix, items, forbidRest } = parts;
  const n = prefix.length;
  const consts = new GeneratedConstants();
  const lines: string[] = ["charge(st, len);", "let ok = true;", "const from = skipTo(st, token, arr) ?? 0;"];
  prefix.forEach((node, i) => {
    lines.push(`if (len > ${i} && from <= ${i}) { const v = arr[${i}]; ${collectMemberSource(node, consts, JSON.stringify(`/${i}`))} }`);
  });
  if (items === null) {
    lines.push(`if (ev !== null && (len < ${n} ? len : ${n}) > ev.items) ev.items = len < ${n} ? len : ${n};`);
  } else {
    if (forbidRest) {
      const report = `pushError(st, path + "/" + i, ${consts.bind(parts.itemsLoc)}, ${consts.bind(parts.itemsName)}, ${consts.bind(parts.unexpected)});`;
      lines.push(`if (len > ${n}) { if (!st.collect) return false; for (let i = ${n}; i < len; i++) { ${report} if (st.stop) return false; } ok = false; }`);
    } else lines.push(`for (let i = from > ${n} ? from : ${n}; i < len; i++) { const v = arr[i]; ${collectMemberSource(items, consts, `"/" + i`)} }`);
    lines.push("if (ev !== null) ev.allItems = true;");
  }
  const source = `${consts.declarations()}
return function itemsCollect(arr, st, ev, path) {
  const len = arr.length;
  ${lines.join("\n  ")}
  return ok;
};`;
  return consts.instantiate<ArrayFastPath>(source, { lengthWithin, charge, quiet, resume, pushError, skipTo, token: parts.token });
}
