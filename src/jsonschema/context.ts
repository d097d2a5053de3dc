/** Internal shapes shared by the compiler and the keyword files. */
import type { SchemaError, SchemaErrorCode, ValidationError } from "./types.js";
import type { PatternMatcher } from "./regex.js";

/**
 * Annotations collected for `unevaluatedProperties` / `unevaluatedItems`. Only allocated
 * when a schema uses one of them; everywhere else the slot is null and costs nothing.
 */
export interface Annotations {
  props: Set<string> | null;
  /**
   * Declared names of `properties` keywords that passed over this instance: an instance key
   * among them was evaluated. Kept by reference, so `properties` costs nothing per key.
   */
  named: Array<ReadonlyMap<string, number>> | null;
  allProps: boolean;
  /** Items [0, items) were evaluated by prefixItems. */
  items: number;
  allItems: boolean;
  containsIdx: Set<number> | null;
}

export function newAnnotations(): Annotations {
  return { props: null, named: null, allProps: false, items: 0, allItems: false, containsIdx: null };
}

export function addProp(ev: Annotations, key: string): void {
  (ev.props ??= new Set()).add(key);
}

export function addNamed(ev: Annotations, names: ReadonlyMap<string, number>): void {
  const named = (ev.named ??= []);
  if (!named.includes(names)) named.push(names);
}

/** Whether an instance key was evaluated by a `properties` keyword or one by one (addProp). */
export function evaluatedProp(ev: Annotations, key: string): boolean {
  if (ev.props !== null && ev.props.has(key)) return true;
  const named = ev.named;
  if (named === null) return false;
  for (let i = 0; i < named.length; i++) if (named[i]!.has(key)) return true;
  return false;
}

export function mergeAnnotations(into: Annotations, from: Annotations): void {
  if (from.allProps) into.allProps = true;
  else {
    if (from.props !== null) for (const k of from.props) addProp(into, k);
    if (from.named !== null) for (const m of from.named) addNamed(into, m);
  }
  if (from.allItems) into.allItems = true;
  if (from.items > into.items) into.items = from.items;
  if (from.containsIdx !== null) {
    const set = (into.containsIdx ??= new Set());
    for (const i of from.containsIdx) set.add(i);
  }
}

/** Per-call validation state: the validator reuses one between calls (validator.ts resets it). */
export interface State {
  /**
   * false on the fast path: no error objects, no path strings. Applicators that only need
   * a yes/no from a branch (anyOf, not, if, contains) switch it off around the branch.
   */
  collect: boolean;
  /**
   * Return at the first failure: always on the fast path, and when collecting only the first
   * error. Invariant: collect === false implies stop === true (the fast state and `quiet`
   * set both), so fast-path code may return at the first failure without reading `stop`.
   */
  stop: boolean;
  readonly errors: ValidationError[];
  refDepth: number;
  readonly maxRefDepth: number;
  /** Evaluation steps left in this pass's budget (steps.ts); negative once spent. */
  steps: number;
  /**
   * Fast pass only (see cover.ts): members of containers the pass iterated completely, and
   * whether some container reached a schema that does not account for all of it.
   */
  nodes: number;
  partial: boolean;
  /**
   * Fast pass in first-error mode: a failure outside the quiet branches is traced as it
   * unwinds, so its error is built without a second pass over the instance (see traceChild).
   * Only ever true while collect is false.
   */
  trace: boolean;
  /**
   * JSON Pointer from the current level to the traced failure, built as the failure unwinds
   * (each loop prepends its key); "" until a loop has added one.
   */
  trail: string;
  /** The traced failure's errors, their instance paths relative to `trail`. */
  traced: ValidationError[] | null;
  /**
   * Fast pass in all-errors mode: a member failure outside the quiet branches is marked in
   * `marks` as it unwinds (markFailure), so the collecting pass that follows skips, in the
   * loops on the failure's path, the members the fast pass already found valid (skipTo).
   * Only ever true while collect is false.
   */
  mark: boolean;
  /**
   * (loop, container, key) triples, one per loop the marked failure unwound through: the
   * first `markCount` entries. The array is reused between calls and never shortened
   * (setting an array's length on every call costs more than the marks save).
   */
  readonly marks: unknown[];
  markCount: number;
}

/**
 * Validates `inst` (found at instance pointer `path`; only maintained when collecting).
 * `ev` is non-null when an enclosing schema needs evaluation annotations.
 */
export type Check = (inst: unknown, st: State, ev: Annotations | null, path: string) => boolean;

/** A compiled schema; `validate` is replaced once compilation finishes so refs can cycle. */
export interface SchemaNode {
  validate: Check;
  readonly pointer: string;
  /** The node's keywords, for the static analysis in cover.ts; null for boolean schemas. */
  keywords: readonly CompiledKeyword[] | null;
  /** `false` schema: accepts nothing. */
  rejectsAll: boolean;
  /**
   * -1: a container that passes may hold values the fast pass never visited. d >= 0: after a
   * successful fast pass, every member of the value was counted in State.nodes (or
   * State.partial was set) and the value nests at most d levels. Computed on first use.
   */
  cover: number | undefined;
  /**
   * Set when the node is only a type test, maybe with numeric bounds or a string length:
   * loops over members test it inline on the fast path instead of calling `validate`.
   */
  leaf: LeafTest | null;
}

export interface LeafTest {
  /** See assemble.ts TYPE_CODES; -1 when the node has no `type`. */
  readonly code: number;
  readonly range: NumericRange | null;
  readonly length: LengthRange | null;
  readonly pattern: PatternMatcher | null;
  /** `enum` / `const` made only of scalars. */
  readonly scalars: ReadonlySet<unknown> | null;
}

/** What a keyword tells cover.ts about the values that can pass it. */
export interface CoverInfo {
  /** Kinds of container that can pass (type, enum, const restrict them). */
  readonly object?: boolean;
  readonly array?: boolean;
  /** Iterates every member of this kind of container on the fast path, counting them. */
  readonly iterates?: "object" | "array";
  /** Schemas the iterated members are validated by. */
  readonly children?: readonly SchemaNode[];
  /** In-place subschemas: "all" must pass (allOf, $ref), or one of "any" passes (anyOf, oneOf). */
  readonly all?: readonly SchemaNode[];
  readonly any?: readonly SchemaNode[];
}

export type Group = "any" | "object" | "array" | "string" | "number";

export interface CompiledKeyword {
  readonly check: Check;
  /** Which instance type the check applies to; the node dispatches once per type. */
  readonly group: Group;
  /** Runs after every other keyword of the node (unevaluated*). */
  readonly late?: boolean;
  /** Set on `type` when it names one type: instances of this group need no type check. */
  readonly impliedByGroup?: Group;
  /** Set on `type` when it names one type: the node tests it inline on the fast path. */
  readonly singleType?: JsonType;
  /**
   * Another keyword of the node checks this on the fast path when no annotations are wanted
   * (collect and ev both off), so typed nodes leave it out there: `minItems` / `maxItems`
   * folded into the items loop.
   */
  readonly fastSkip?: boolean;
  /** Numeric bounds, for nodes that test them inline (see assemble.ts). */
  readonly range?: NumericRange;
  /** String length bounds in code points, for nodes that test them inline. */
  readonly length?: LengthRange;
  readonly cover?: CoverInfo;
  /** `pattern`'s regex, for leaf tests. */
  readonly regex?: PatternMatcher;
  /** `enum` / `const` of scalars only: the allowed values, for leaf tests. */
  readonly scalars?: ReadonlySet<unknown>;
}

export interface NumericRange {
  readonly lo: number;
  readonly hi: number;
  /** -Infinity when absent. */
  readonly xlo: number;
  /** Infinity when absent. */
  readonly xhi: number;
  readonly hasXlo: boolean;
  readonly hasXhi: boolean;
}

export interface LengthRange {
  readonly lo: number;
  readonly hi: number;
}

export type JsonType = "null" | "boolean" | "object" | "array" | "number" | "string" | "integer";

/** What a keyword compiler gets: the schema object, where it is, and the compile services. */
export interface KeywordContext {
  readonly schema: Readonly<Record<string, unknown>>;
  /** Pointer of the schema object holding the keyword. */
  readonly at: string;
  /**
   * Only the verdict is wanted (checkSchema). A compiler then returns null right after its
   * last call to fail, sub, ref or regex, having made exactly the calls it makes when
   * compiling, in the same order; before that point it must not read the nodes sub and
   * ref return (they are a shared placeholder) nor depend on this flag.
   */
  readonly checkOnly: boolean;
  /** Validations before a keyword generates its fast path (CompileOptions.generateAfter). */
  readonly generateAfter: number;
  /** Compiles a subschema found at `pointer` (an in-place applicator passes inPlace=true). */
  sub(value: unknown, pointer: string, inPlace: boolean): SchemaNode;
  /** Resolves and compiles a same-document `$ref`; null after reporting a failure. */
  ref(ref: string, pointer: string): SchemaNode | null;
  /** Compiles a pattern for the linear-time matcher (regex.ts); null after reporting a failure. */
  regex(pattern: unknown, pointer: string): PatternMatcher | null;
  fail(code: SchemaErrorCode, message: string, pointer: string): void;
}

export type KeywordCompiler = (kc: KeywordContext) => CompiledKeyword | CompiledKeyword[] | null;

/**
 * Applicators that only need a yes/no from a branch (anyOf, oneOf, not, if, contains,
 * propertyNames) run it quietly; `resume` restores the caller's mode afterwards.
 */
export function quiet(st: State): number {
  const saved = (st.collect ? 1 : 0) | (st.stop ? 2 : 0) | (st.trace ? 4 : 0) | (st.mark ? 8 : 0);
  st.collect = false;
  st.stop = true;
  // A failing branch is an answer there, not the instance's error.
  st.trace = false;
  st.mark = false;
  return saved;
}

export function resume(st: State, saved: number): void {
  st.collect = (saved & 1) !== 0;
  st.stop = (saved & 2) !== 0;
  st.trace = (saved & 4) !== 0;
  st.mark = (saved & 8) !== 0;
}

/** Shared by the collecting states that skip nothing; never written. */
const NO_MARKS: unknown[] = Object.freeze([]) as unknown as unknown[];

/** A fresh collecting state (errors on; `stop` for the first error only). */
export function collectingState(
  stop: boolean,
  refDepth: number,
  maxRefDepth: number,
  steps: number,
  marks: unknown[] = NO_MARKS,
  markCount = 0,
): State {
  return { collect: true, stop, errors: [], refDepth, maxRefDepth, steps, nodes: 0, partial: false, trace: false, trail: "", traced: null, mark: false, marks, markCount };
}

/**
 * On the marking fast pass (all-errors mode), loop `loop` (a token of the keyword) failed
 * on container `c` at member `key`: every member it visited before `key` passed. Cold
 * path: called only on failure, once per loop the failure unwinds through.
 */
export function markFailure(st: State, loop: object, c: object, key: string | number): void {
  const m = st.marks;
  const n = st.markCount;
  m[n] = loop;
  m[n + 1] = c;
  m[n + 2] = key;
  st.markCount = n + 3;
}

/**
 * In the collecting pass after a marked failure: the member of `c` at which loop `loop`
 * failed on the fast pass, or undefined. The members the loop visits before it passed
 * with the same subschemas (validation is deterministic, and a member's verdict does not
 * depend on the loop's annotations), so they can have no error: the loop skips them.
 */
export function skipTo(st: State, loop: object, c: object): string | number | undefined {
  const m = st.marks;
  const n = st.markCount;
  for (let i = 0; i < n; i += 3) if (m[i + 1] === c && m[i] === loop) return m[i + 2] as string | number;
  return undefined;
}

/**
 * On the traced fast pass, the child at `key` failed; every loop the failure unwinds through
 * adds its key (`segment` is the key as a pointer segment, childPointer("", key); loops over
 * declared names keep theirs from compiling). The fast pass evaluates keywords and members
 * in the collecting order, so its first failure is where a collecting pass from the root
 * would have stopped, and the failing keyword records that pass's first error as it fails
 * (traceHere, traceError): the child's own failure has usually traced already. A leaf
 * tested inline by its loop is asked again on its own fast path, which traces; a failure
 * nothing traced (a fast path that checks in another order, see uniqueItems) re-runs the
 * child alone with errors on. Cold path: called only on failure.
 */
export function traceChild(st: State, node: SchemaNode, v: unknown, segment: string): void {
  if (st.traced === null) {
    if (node.leaf !== null) node.validate(v, st, null, "");
    if (st.traced === null) {
      // The re-run spends from the same budget: a failure cannot buy a second one.
      const sub = collectingState(true, st.refDepth, st.maxRefDepth, st.steps);
      node.validate(v, sub, null, "");
      st.steps = sub.steps;
      st.traced = sub.errors;
    }
  }
  st.trail = segment + st.trail;
}

/**
 * On the traced fast pass, a keyword failed that both passes evaluate at the same point of
 * its node (nothing the collecting pass checks first is skipped or reordered on the fast
 * path): its error, at the instance the keyword sees. Only the first failure records: the
 * fast pass returns at once after it, and the quiet branches do not trace.
 */
export function traceHere(st: State, keywordLocation: string, keyword: string, message: string): void {
  if (st.traced === null) st.traced = [{ instancePath: "", keywordLocation, keyword, message }];
}

/** As traceChild, for an error the loop itself reports at `segment` (an unexpected property or item). */
export function traceError(st: State, keywordLocation: string, keyword: string, message: string, segment: string): void {
  if (st.traced === null) st.traced = [{ instancePath: "", keywordLocation, keyword, message }];
  st.trail = segment + st.trail;
}

export function pushError(st: State, path: string, keywordLocation: string, keyword: string, message: string): void {
  st.errors.push({ instancePath: path, keywordLocation, keyword, message });
}

export function schemaFault(code: SchemaErrorCode, message: string, schemaPath: string): SchemaError {
  return { code, message, schemaPath };
}

export function own(o: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}
