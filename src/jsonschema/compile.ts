/**
 * Compiles a schema into closures once: limits first, then anchors, then every schema
 * position (refs resolved to compiled nodes), then a check for ref cycles that make no
 * progress on the instance. Each call builds its own context; nothing is shared between
 * compiled schemas.
 *
 * `checkSchema` runs this same walk in check-only mode: every position is visited in the
 * same order and every keyword compiler validates its operands and visits its subschemas
 * exactly as when compiling, then returns before building anything (see
 * KeywordContext.checkOnly). The first fault found is therefore the one compiling reports,
 * by construction rather than by a second copy of the rules.
 */
import type { CompileOptions, CompileResult, SchemaError, SchemaErrorCode } from "./types.js";
import type { Check, CompiledKeyword, KeywordContext, SchemaNode } from "./context.js";
import type { SchemaErrorCode as Code } from "./types.js";
import { own, pushError, schemaFault, traceHere } from "./context.js";
import { assembleNode, leafOf } from "./assemble.js";
import { GENERATE_AFTER } from "./generated.js";
import { isPlainObject } from "./json.js";
import { declaresDraft07, draft07Refusal } from "./draft07.js";
import type { AnchorResult } from "./vocabulary.js";
import { collectAnchors, refusedCoreKeyword, SCHEMA_ARRAY_KEYWORDS, SCHEMA_MAP_KEYWORDS, SINGLE_SCHEMA_KEYWORDS } from "./vocabulary.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH, DEFAULT_MAX_NODES, measureSchema } from "./limits.js";
import { KEYWORD_TABLE, planKeywords, plannedCompiler } from "./keywords/index.js";
import { escapeToken, parsePointer } from "./pointer.js";
import { compileRegex, type PatternMatcher } from "./regex.js";
import { DEFAULT_MAX_STEPS } from "./steps.js";
import { createValidator } from "./validator.js";

interface CompileContext {
  readonly root: unknown;
  /**
   * Compiled nodes by pointer, so refs can close cycles and no position compiles twice.
   * null in check-only mode on a document without any `$ref` key: every position is then
   * reached once, by the tree walk alone (each keyword compiler visits distinct pointers
   * below its node, once), so the cache could never hit.
   */
  readonly nodes: Map<string, SchemaNode> | null;
  readonly anchors: ReadonlyMap<string, string>;
  /** Allocated on first use, like `edges`: most schemas have no pattern. */
  regexes: Map<string, PatternMatcher> | null;
  /** In-place edges (same instance location) between schema pointers, for cycle detection. */
  edges: Map<string, string[]> | null;
  /** Ref targets waiting to be compiled (value, pointer, node, schema level): deferred so long ref chains do not recurse. */
  readonly pending: Array<readonly [unknown, string, SchemaNode, number]>;
  /** CompileOptions.maxDepth: schema levels, one per subschema (the root is level 1). */
  readonly maxDepth: number;
  /** Only the verdict is wanted: nodes stay the shared placeholder, nothing is assembled. */
  readonly checkOnly: boolean;
  /** CompileOptions.generateAfter, resolved. */
  readonly generateAfter: number;
  /**
   * Some key refusedCoreKeyword looks at occurs below the root (measureSchema's `special`);
   * when not, only the root object needs that check.
   */
  readonly special: boolean;
  error: SchemaError | null;
}

type GraphResult = { readonly ok: true; readonly root: SchemaNode } | { readonly ok: false; readonly error: SchemaError };

export function compileSchema(schema: unknown, options?: CompileOptions): CompileResult {
  const maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
  const maxNodes = options?.maxNodes ?? DEFAULT_MAX_NODES;
  const compiled = compileGraph(schema, options);
  if (!compiled.ok) return compiled;
  const maxSteps = options?.maxSteps ?? DEFAULT_MAX_STEPS;
  return { ok: true, validator: createValidator(compiled.root, { maxDepth, maxNodes, maxSteps, allErrors: options?.allErrors ?? true }) };
}

/**
 * The verdict compileSchema would give, without building a validator: null when it
 * compiles, else the very error compileSchema reports (the first fault, same order of
 * discovery). For callers that only need to know whether a schema is usable.
 */
export function checkSchema(schema: unknown, options?: CompileOptions): SchemaError | null {
  const checked = walkSchema(schema, options, true);
  return checked.ok ? null : checked.error;
}

/** The compiled node graph behind a validator (also what tests of the analyses read). */
export function compileGraph(schema: unknown, options?: CompileOptions): GraphResult {
  return walkSchema(schema, options, false);
}

function walkSchema(schema: unknown, options: CompileOptions | undefined, checkOnly: boolean): GraphResult {
  const maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
  const maxNodes = options?.maxNodes ?? DEFAULT_MAX_NODES;
  const maxBytes = options?.maxBytes ?? DEFAULT_MAX_BYTES;

  // The JSON walks' own bound: a schema level is at most two JSON levels (`properties` and
  // the member), and data (`const`, `enum`, `default`) may nest below the deepest one.
  const maxJsonDepth = JSON_LEVELS_PER_SCHEMA_LEVEL * maxDepth;
  const { fault, special, refs } = measureSchema(schema, maxJsonDepth, maxNodes, maxBytes);
  if (fault === "too_deep") return refuse("too_deep", `Schema JSON nests deeper than ${maxJsonDepth} levels`, "");
  if (fault === "too_many_nodes") return refuse("too_many_nodes", `Schema has more than ${maxNodes} nodes`, "");
  if (fault === "not_json") return refuse("malformed", "Schema is not a JSON value", "");
  if (fault === "too_large") return refuse("too_large", `Schema is larger than ${maxBytes} bytes of JSON`, "");

  // Without any key it could report, the anchor walk finds nothing and refuses nothing.
  const anchors: AnchorResult = special ? collectAnchors(schema) : NO_ANCHORS;
  if (!anchors.ok) return { ok: false, error: anchors.error };
  if (declaresDraft07(schema)) {
    const changed = draft07Refusal(schema);
    if (changed !== null) return { ok: false, error: changed };
  }

  const cc: CompileContext = {
    root: schema,
    nodes: checkOnly && !refs ? null : new Map(),
    anchors: anchors.anchors,
    regexes: null,
    edges: null,
    pending: [],
    maxDepth,
    checkOnly,
    generateAfter: generateAfterOf(options),
    special,
    error: null,
  };
  const root = compileNode(cc, schema, "", 1);
  while (cc.error === null && cc.pending.length > 0) {
    const [value, pointer, node, level] = cc.pending.pop()!;
    compileInto(cc, value, pointer, node, level);
  }
  if (cc.error !== null) return { ok: false, error: cc.error };

  const cycle = cc.edges === null ? null : findCycle(cc.edges);
  if (cycle !== null) {
    return refuse("malformed", "$ref cycle that makes no progress on the instance", cycle);
  }
  return { ok: true, root };
}

/** See walkSchema: the bound on a schema's JSON nesting, per schema level allowed. */
const JSON_LEVELS_PER_SCHEMA_LEVEL = 4;

/** `$defs`, and Draft-07's `definitions` read the same way (draft07.ts). */
const DEFS_KEYWORDS = ["$defs", "definitions"] as const;

const SINGLE: ReadonlySet<string> = new Set(SINGLE_SCHEMA_KEYWORDS);
const MULTI: ReadonlySet<string> = new Set([...SCHEMA_MAP_KEYWORDS, ...SCHEMA_ARRAY_KEYWORDS]);

/**
 * The schema level of a ref target, from its pointer: one per subschema along the way, as
 * the tree walk counts (a map or list keyword and its member are one level). A token that
 * is no schema position (a ref into `enum` or `default`) counts a level of its own.
 */
function levelOf(tokens: readonly string[]): number {
  let level = 1;
  for (let i = 0; i < tokens.length; i++) {
    if (!SINGLE.has(tokens[i]!) && MULTI.has(tokens[i]!) && i + 1 < tokens.length) i++;
    level++;
  }
  return level;
}

function refuse(code: SchemaErrorCode, message: string, schemaPath: string): { readonly ok: false; readonly error: SchemaError } {
  return { ok: false, error: schemaFault(code, message, schemaPath) };
}

function fail(cc: CompileContext, code: SchemaErrorCode, message: string, pointer: string): void {
  // The first fault wins: it is the one the schema author has to fix first.
  if (cc.error === null) cc.error = schemaFault(code, message, pointer);
}

const ALWAYS: Check = () => true;

/** Shared by every schema without anchors; only ever read (ReadonlyMap). */
const NO_ANCHORS: AnchorResult = Object.freeze({ ok: true, anchors: new Map<string, string>() });

/**
 * What check-only mode hands out for every subschema and ref target: keyword compilers
 * return before reading it, and it is never assembled or mutated.
 */
const CHECKED: SchemaNode = Object.freeze({ validate: ALWAYS, pointer: "", keywords: null, rejectsAll: false, cover: undefined, leaf: null });

function newNode(cc: CompileContext, pointer: string): SchemaNode {
  if (cc.checkOnly) return CHECKED;
  return { validate: ALWAYS, pointer, keywords: null, rejectsAll: false, cover: undefined, leaf: null };
}

function compileNode(cc: CompileContext, value: unknown, pointer: string, level: number): SchemaNode {
  const nodes = cc.nodes;
  if (nodes === null) return compileInto(cc, value, pointer, CHECKED, level);
  const cached = nodes.get(pointer);
  if (cached !== undefined) return cached;
  const node = newNode(cc, pointer);
  nodes.set(pointer, node);
  compileInto(cc, value, pointer, node, level);
  return node;
}

/** A ref target gets its node now (so cycles can close) and its body later. */
function deferNode(cc: CompileContext, value: unknown, pointer: string, level: number): SchemaNode {
  // Only refs defer, and a document with a `$ref` key always has the cache.
  const nodes = cc.nodes!;
  const cached = nodes.get(pointer);
  if (cached !== undefined) return cached;
  const node = newNode(cc, pointer);
  nodes.set(pointer, node);
  cc.pending.push([value, pointer, node, level]);
  return node;
}

function compileInto(cc: CompileContext, value: unknown, pointer: string, node: SchemaNode, level: number): SchemaNode {
  if (cc.error !== null) return node;
  if (level > cc.maxDepth) {
    fail(cc, "too_deep", `Schema nests deeper than ${cc.maxDepth} schema levels`, pointer);
    return node;
  }

  if (value === true) return node;
  if (value === false) {
    if (cc.checkOnly) return node;
    node.rejectsAll = true;
    node.validate = (_inst, st, _ev, path) => {
      if (st.collect) pushError(st, path, pointer, "false", "No value is allowed here");
      else if (st.trace) traceHere(st, pointer, "false", "No value is allowed here");
      return false;
    };
    return node;
  }
  if (!isPlainObject(value)) {
    fail(cc, "malformed", "A schema must be an object or a boolean", pointer);
    return node;
  }
  if (!checkCoreKeywords(cc, value, pointer)) return node;

  const kc = new NodeContext(cc, value, pointer, level);
  const plan = planKeywords(value);
  const compiled: CompiledKeyword[] = [];
  for (let e = 0; e < KEYWORD_TABLE.length; e++) {
    const compile = plannedCompiler(plan, e);
    if (compile === null) continue;
    const out = compile(kc);
    if (cc.error !== null) return node;
    if (out === null) continue;
    if (Array.isArray(out)) compiled.push(...out);
    else compiled.push(out);
  }
  for (const name of DEFS_KEYWORDS) {
    const defs = own(value, name);
    if (defs === undefined) continue;
    if (!isPlainObject(defs)) fail(cc, "malformed", `${name} must be an object`, `${pointer}/${name}`);
    else for (const k of Object.keys(defs)) compileNode(cc, defs[k], `${pointer}/${name}/${escapeToken(k)}`, level + 1);
  }
  if (cc.checkOnly) return node;
  node.validate = assembleNode(compiled, node, cc.generateAfter);
  node.keywords = compiled;
  node.leaf = leafOf(compiled);
  return node;
}

function checkCoreKeywords(cc: CompileContext, schema: Record<string, unknown>, pointer: string): boolean {
  if (!cc.special && pointer !== "") return true;
  const refused = refusedCoreKeyword(schema, pointer);
  if (refused === null) return true;
  if (cc.error === null) cc.error = refused;
  return false;
}

function addEdge(cc: CompileContext, from: string, to: string): void {
  const edges = (cc.edges ??= new Map());
  const list = edges.get(from);
  if (list === undefined) edges.set(from, [to]);
  else list.push(to);
}

/** Same-document refs only: "#", "#/json/pointer" (percent- and ~-decoded) or "#anchor". */
function resolveRef(cc: CompileContext, from: string, ref: string, loc: string): SchemaNode | null {
  if (ref !== "" && ref[0] !== "#") {
    fail(cc, "external_ref", "$ref must stay inside this schema document", loc);
    return null;
  }
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    fail(cc, "unresolved_ref", "$ref fragment is not valid percent-encoding", loc);
    return null;
  }
  let target: string;
  if (fragment === "" || fragment[0] === "/") target = fragment;
  else {
    const anchored = cc.anchors.get(fragment);
    if (anchored === undefined) {
      fail(cc, "unresolved_ref", "$ref names an anchor that does not exist", loc);
      return null;
    }
    target = anchored;
  }
  const tokens = parsePointer(target);
  let value: unknown = cc.root;
  for (const t of tokens ?? []) {
    if (Array.isArray(value) && /^(?:0|[1-9][0-9]*)$/.test(t) && Number(t) < value.length) value = value[Number(t)];
    else if (isPlainObject(value) && Object.hasOwn(value, t)) value = value[t];
    else {
      fail(cc, "unresolved_ref", "$ref points at a location that does not exist", loc);
      return null;
    }
  }
  const canonical = (tokens ?? []).map((t) => `/${escapeToken(t)}`).join("");
  addEdge(cc, from, canonical);
  return deferNode(cc, value, canonical, levelOf(tokens ?? []));
}

/** What keyword compilers see of the compile context, for one schema object. */
class NodeContext implements KeywordContext {
  constructor(
    private readonly cc: CompileContext,
    readonly schema: Readonly<Record<string, unknown>>,
    readonly at: string,
    private readonly level: number,
  ) {}

  get checkOnly(): boolean {
    return this.cc.checkOnly;
  }

  get generateAfter(): number {
    return this.cc.generateAfter;
  }

  sub(value: unknown, pointer: string, inPlace: boolean): SchemaNode {
    if (inPlace) addEdge(this.cc, this.at, pointer);
    return compileNode(this.cc, value, pointer, this.level + 1);
  }

  ref(ref: string, pointer: string): SchemaNode | null {
    return resolveRef(this.cc, this.at, ref, pointer);
  }

  regex(pattern: unknown, pointer: string): PatternMatcher | null {
    return compileRegex((this.cc.regexes ??= new Map()), pattern, (code, msg) => fail(this.cc, code, msg, pointer));
  }

  fail(code: Code, message: string, pointer: string): void {
    fail(this.cc, code, message, pointer);
  }
}

/** A count of validations, or Infinity; anything else (NaN, negative) means the default. */
function generateAfterOf(options: CompileOptions | undefined): number {
  const n = options?.generateAfter;
  return typeof n === "number" && n >= 0 ? n : GENERATE_AFTER;
}

/**
 * Finds a cycle among in-place edges ($ref, allOf, anyOf, oneOf, not, if/then/else,
 * dependentSchemas): such a cycle re-enters a schema on the same instance location and
 * would never terminate. Iterative DFS: a ref chain may be thousands of links long.
 */
export function findCycle(edges: ReadonlyMap<string, readonly string[]>): string | null {
  if (edges.size === 0) return null;
  const state = new Map<string, 1 | 2>(); // 1 = on the current path, 2 = done
  for (const start of edges.keys()) {
    if (state.has(start)) continue;
    const stack: Array<[string, number]> = [[start, 0]];
    state.set(start, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const next = edges.get(top[0]);
      if (next === undefined || top[1] >= next.length) {
        state.set(top[0], 2);
        stack.pop();
        continue;
      }
      const to = next[top[1]++]!;
      const s = state.get(to);
      if (s === 1) return to;
      if (s === undefined) {
        state.set(to, 1);
        stack.push([to, 0]);
      }
    }
  }
  return null;
}
