/**
 * Turns a schema's compiled keywords into one check. The instance's type is read once and
 * picks a precomputed list (type-independent keywords first, then that type's, then the
 * late unevaluated* ones); a single-type `type` keyword is dropped from the list of the
 * group it names. The schema's own annotation record is allocated only when it has late
 * keywords.
 *
 * A schema with a single-type `type` and no late keyword also gets a fast path: while no
 * errors are collected, the type is tested inline and the rest runs as one list that
 * returns at the first failure. Collecting runs the general check (built on first use), so
 * errors and their order never depend on the path taken. Nodes that are only a scalar test
 * (`leafOf`) are also run inline by the property and item loops. Once in use, a typed
 * node with one check or more hands its fast path to a function generated for it (one
 * check too: this closure is shared by every such node, so its call of that check sees
 * them all and goes megamorphic; node-fast.ts).
 */
import type { Annotations, Check, CompiledKeyword, Group, JsonType, LeafTest, LengthRange, NumericRange, SchemaNode, State } from "./context.js";
import type { PatternMatcher } from "./regex.js";
import { mergeAnnotations, newAnnotations, quiet, resume } from "./context.js";
import { childPointer } from "./pointer.js";
import { generateGeneralCheck, generateNodeCheck, type GeneralLists } from "./node-fast.js";
import { inRange, lengthWithin } from "./keywords/validation.js";
import { testPattern } from "./steps.js";

const ALWAYS: Check = () => true;

/**
 * The node's check. A typed node with a list of keywords replaces `node.validate` by a
 * function generated for it after `generateAfter` fast-pass calls (node-fast.ts).
 */
export function assembleNode(compiled: readonly CompiledKeyword[], node: SchemaNode, generateAfter: number): Check {
  const typed = compiled.find((c) => c.singleType !== undefined);
  if (typed === undefined || compiled.some((c) => c.late === true)) {
    return assembleGeneral(compiled, generateAfter, (current, generated) => {
      // Only while the node is still this closure: callers read node.validate on each call.
      if (node.validate !== current) return false;
      node.validate = generated;
      return true;
    });
  }
  // Built on first use: most nodes of most schemas never collect an error.
  const general: LazyCheck = { check: null, compiled, generateAfter };
  const kind = typed.singleType!;
  const group = groupOf(kind);
  const rest: CompiledKeyword[] = [];
  for (const c of compiled) if (c !== typed && c.group === "any") rest.push(c);
  if (group !== "any") for (const c of compiled) if (c.group === group) rest.push(c);
  return typedFast(
    TYPE_CODES[kind],
    rest.map((c) => c.check),
    rest.filter((c) => c.fastSkip !== true),
    general,
    node,
    generateAfter,
    typed.check,
  );
}

/**
 * The node as a leaf test: at most one each of a scalar single-type `type`, an `enum` or
 * `const` of scalars, numeric bounds (under number or integer), a string length and a
 * `pattern` (under string), and nothing else.
 */
export function leafOf(compiled: readonly CompiledKeyword[]): LeafTest | null {
  let code = -1;
  let range: NumericRange | null = null;
  let length: LengthRange | null = null;
  let pattern: PatternMatcher | null = null;
  let scalars: ReadonlySet<unknown> | null = null;
  for (const c of compiled) {
    if (c.singleType !== undefined && code === -1 && c.singleType !== "object" && c.singleType !== "array") {
      code = TYPE_CODES[c.singleType];
    } else if (c.scalars !== undefined && scalars === null) scalars = c.scalars;
    else if (c.range !== undefined && range === null) range = c.range;
    else if (c.length !== undefined && length === null) length = c.length;
    else if (c.regex !== undefined && pattern === null) pattern = c.regex;
    else return null;
  }
  if (code === -1 && scalars === null) return null;
  // Bounds, lengths and patterns only apply to their own type: the type must pin it.
  if (range !== null && code !== 3 && code !== 4) return null;
  if ((length !== null || pattern !== null) && code !== 2) return null;
  return { code, range, length, pattern, scalars };
}

/** A leaf test, inline: small and top-level, so V8 inlines it into the loops that call it. */
export function leafPasses(leaf: LeafTest, v: unknown, st: State): boolean {
  if (leaf.code >= 0 && !typeMatches(leaf.code, v)) return false;
  if (leaf.scalars !== null && !leaf.scalars.has(v)) return false;
  if (leaf.range !== null && !inRange(v as number, leaf.range)) return false;
  if (leaf.length !== null && !lengthWithin(v as string, leaf.length, st)) return false;
  return leaf.pattern === null || testPattern(leaf.pattern, v as string, st);
}

/**
 * A member (property value, item) handed to its subschema. While collecting, the subschema
 * is first asked on the fast path (a leaf test, or its check with errors off): most
 * members pass, and then no path is built and no collecting closure runs. Only a member
 * that fails is validated again with errors on, at its own path. The collecting pass has
 * a budget of its own, so the repeated work on failing members stays bounded. When every
 * error is wanted, a container is collected without asking first: the pass runs only
 * because something failed, and asking first would walk a failing member's subtree once
 * per level above the failure.
 */
export function memberPasses(node: SchemaNode, v: unknown, st: State, path: string, key: string | number): boolean {
  if (!st.collect) return node.validate(v, st, null, path);
  const leaf = node.leaf;
  if (leaf !== null) {
    if (leafPasses(leaf, v, st)) return true;
  } else if (st.stop || typeof v !== "object" || v === null) {
    const saved = quiet(st);
    const ok = node.validate(v, st, null, path);
    resume(st, saved);
    if (ok) return true;
  }
  return node.validate(v, st, null, childPointer(path, key));
}

const TYPE_CODES: Readonly<Record<JsonType, number>> = {
  object: 0,
  array: 1,
  string: 2,
  number: 3,
  integer: 4,
  boolean: 5,
  null: 6,
};

/** One small top-level function: every node calls it, so V8 inlines it everywhere. */
function typeMatches(code: number, inst: unknown): boolean {
  switch (code) {
    case 0:
      return typeof inst === "object" && inst !== null && !Array.isArray(inst);
    case 1:
      return Array.isArray(inst);
    case 2:
      return typeof inst === "string";
    case 3:
      return typeof inst === "number";
    case 4:
      return Number.isInteger(inst);
    case 5:
      return typeof inst === "boolean";
    default:
      return inst === null;
  }
}

function runFrom(list: readonly Check[], from: number, inst: unknown, st: State, ev: Annotations | null, path: string): boolean {
  for (let i = from; i < list.length; i++) if (!list[i]!(inst, st, ev, path)) return false;
  return true;
}

function groupOf(kind: JsonType): Group {
  switch (kind) {
    case "object":
    case "array":
    case "string":
    case "number":
      return kind;
    case "integer":
      return "number";
    default:
      return "any";
  }
}

interface LazyCheck {
  check: Check | null;
  readonly compiled: readonly CompiledKeyword[];
  /** Collecting calls before the general check is generated (node-fast.ts). */
  readonly generateAfter: number;
}

/** Small and top-level, so V8 inlines it: the collecting path costs one call, not two. */
function generalOf(lazy: LazyCheck): Check {
  return (lazy.check ??= assembleGeneral(lazy.compiled, lazy.generateAfter, (current, generated) => {
    if (lazy.check !== current) return false;
    lazy.check = generated;
    return true;
  }));
}

/**
 * The fast path of a single-type node. Every call between nodes is an indirect call V8
 * cannot inline, so the common leaves (a type alone, with numeric bounds, with a string
 * length) test everything in this one closure, and short lists are called directly.
 * `withEv` serves callers that want annotations; `noEv` drops checks folded elsewhere.
 * A failure of the inline tests on the traced pass is traced by the keywords' own checks
 * (`typeCheck`, the `type` keyword's, first), run in the collecting order.
 */
function typedFast(
  code: number,
  withEv: readonly Check[],
  noEv: readonly CompiledKeyword[],
  general: LazyCheck,
  node: SchemaNode,
  generateAfter: number,
  typeCheck: Check,
): Check {
  if (withEv.length === 0) {
    return (inst, st, ev, path) =>
      st.collect ? generalOf(general)(inst, st, ev, path) : typeMatches(code, inst) || (st.trace && typeCheck(inst, st, ev, path));
  }
  const only = withEv.length === 1 && noEv.length === 1 ? noEv[0]! : undefined;
  const range = only?.range;
  if (range !== undefined && (code === 3 || code === 4)) {
    const rangeCheck = only!.check;
    return (inst, st, ev, path) =>
      st.collect
        ? generalOf(general)(inst, st, ev, path)
        : (typeMatches(code, inst) && inRange(inst as number, range)) ||
          (st.trace && typeCheck(inst, st, ev, path) && rangeCheck(inst, st, ev, path));
  }
  const length = only?.length;
  if (length !== undefined && code === 2) {
    const lengthCheck = only!.check;
    return (inst, st, ev, path) =>
      st.collect
        ? generalOf(general)(inst, st, ev, path)
        : (typeof inst === "string" && lengthWithin(inst, length, st)) ||
          (st.trace && typeCheck(inst, st, ev, path) && lengthCheck(inst, st, ev, path));
  }
  const list = noEv.map((c) => c.check);
  const n = list.length;
  const a = list[0] ?? ALWAYS;
  const b = list[1] ?? ALWAYS;
  let calls = 0;
  const assembled: Check = (inst, st, ev, path) => {
    if (st.collect) return generalOf(general)(inst, st, ev, path);
    // Only while the node is still this closure: callers read node.validate on each call.
    if (++calls > generateAfter && node.validate === assembled && n > 0) {
      const generated = generateNodeCheck(code, withEv, list, generalLists(general.compiled), typeCheck);
      if (generated !== null) {
        node.validate = generated;
        return generated(inst, st, ev, path);
      }
      calls = -Infinity;
    }
    if (!typeMatches(code, inst)) return st.trace && typeCheck(inst, st, ev, path);
    if (ev !== null) return runFrom(withEv, 0, inst, st, ev, path);
    if (n === 0) return true;
    if (!a(inst, st, ev, path)) return false;
    if (n === 1) return true;
    if (!b(inst, st, ev, path)) return false;
    return n === 2 || runFrom(list, 2, inst, st, ev, path);
  };
  return assembled;
}

/** Top-level, so V8 inlines it into every node's check. */
function checksFor(lists: GeneralLists, inst: unknown): readonly Check[] {
  switch (typeof inst) {
    case "object":
      return inst === null ? lists.other : Array.isArray(inst) ? lists.arr : lists.obj;
    case "string":
      return lists.str;
    case "number":
      return lists.num;
    default:
      return lists.other;
  }
}

/** The node's checks by instance type: type-independent first, then the type's, then the late ones. */
function generalLists(compiled: readonly CompiledKeyword[]): GeneralLists {
  const listFor = (group: Group | null): Check[] => {
    const out: Check[] = [];
    for (const c of compiled) if (c.group === "any" && (group === null || c.impliedByGroup !== group)) out.push(c.check);
    if (group === null) return out;
    for (const c of compiled) if (c.group === group && c.late !== true) out.push(c.check);
    for (const c of compiled) if (c.group === group && c.late === true) out.push(c.check);
    return out;
  };
  return {
    other: listFor(null),
    obj: listFor("object"),
    arr: listFor("array"),
    str: listFor("string"),
    num: listFor("number"),
    owns: compiled.some((c) => c.late === true),
  };
}

/**
 * The general check. After `generateAfter` calls it hands `install` a function generated
 * for it (node-fast.ts) to put in its own place; `install` says whether it did (the holder
 * may already hold something else), and the call is answered by the closure otherwise.
 */
function assembleGeneral(
  compiled: readonly CompiledKeyword[],
  generateAfter: number,
  install: (current: Check, generated: Check) => boolean,
): Check {
  const lists = generalLists(compiled);
  const other = lists.other;
  const owns = lists.owns;

  if (!owns && compiled.every((c) => c.group === "any" && c.impliedByGroup === undefined)) {
    if (other.length === 0) return ALWAYS;
    if (other.length === 1) return other[0]!;
  }

  const closure = generalClosure(lists);
  if (generateAfter === Infinity) return closure;
  let calls = 0;
  const counting: Check = (inst, st, ev, path) => {
    if (++calls > generateAfter) {
      calls = -Infinity;
      const generated = generateGeneralCheck(lists) ?? closure;
      if (install(counting, generated)) return generated(inst, st, ev, path);
    }
    return closure(inst, st, ev, path);
  };
  return counting;
}

function generalClosure(lists: GeneralLists): Check {
  if (!lists.owns) {
    return (inst, st, ev, path) => {
      const list = checksFor(lists, inst);
      const n = list.length;
      if (n === 0) return true;
      if (n === 1) return list[0]!(inst, st, ev, path);
      let ok = true;
      for (let i = 0; i < n; i++) {
        if (!list[i]!(inst, st, ev, path)) {
          if (st.stop) return false;
          ok = false;
        }
      }
      return ok;
    };
  }

  return (inst, st, ev, path) => {
    const list = checksFor(lists, inst);
    const local: Annotations = newAnnotations();
    let ok = true;
    for (let i = 0; i < list.length; i++) {
      if (!list[i]!(inst, st, local, path)) {
        if (st.stop) return false;
        ok = false;
      }
    }
    if (ok && ev !== null) mergeAnnotations(ev, local);
    return ok;
  };
}
