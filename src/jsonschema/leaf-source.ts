/**
 * A leaf test (assemble.ts leafOf) as a JavaScript expression over `v`, for generated fast
 * paths: the type test, bounds and a small enum become comparisons with literals, and
 * what cannot be a literal (a pattern matcher, a length range, a large enum's Set) is bound as a
 * constant. Numbers are written with their shortest round-trip text; strings through
 * JSON.stringify; nothing else of the schema becomes source text.
 */
import type { LeafTest, SchemaNode } from "./context.js";
import type { GeneratedConstants } from "./generated.js";

/** Most members an enum is compared against one by one before its Set does the lookup. */
const INLINE_ENUM = 8;

/**
 * True when `v` passes `leaf`; `isInteger`, `testPattern`, `lengthWithin` and the pass's
 * state `st` (both charge the step budget) are in scope of the source.
 */
function leafSource(leaf: LeafTest, consts: GeneratedConstants): string {
  const terms: string[] = [];
  if (leaf.code >= 0) terms.push(typeTestSource(leaf.code, "v"));
  if (leaf.scalars !== null) terms.push(enumSource(leaf.scalars, consts));
  const r = leaf.range;
  if (r !== null) {
    if (r.lo !== -Infinity) terms.push(`v >= ${numberLiteral(r.lo)}`);
    if (r.hi !== Infinity) terms.push(`v <= ${numberLiteral(r.hi)}`);
    if (r.hasXlo) terms.push(`v > ${numberLiteral(r.xlo)}`);
    if (r.hasXhi) terms.push(`v < ${numberLiteral(r.xhi)}`);
  }
  if (leaf.length !== null) terms.push(`lengthWithin(v, ${consts.bind(leaf.length)}, st)`);
  if (leaf.pattern !== null) terms.push(`testPattern(${consts.bind(leaf.pattern)}, v, st)`);
  return terms.length === 0 ? "true" : terms.join(" && ");
}

/**
 * assemble.ts typeMatches as source over the variable `name` (by TYPE_CODES); `isInteger`
 * must be in scope of the source.
 */
export function typeTestSource(code: number, name: string): string {
  switch (code) {
    case 0:
      return `(typeof ${name} === "object" && ${name} !== null && !Array.isArray(${name}))`;
    case 1:
      return `Array.isArray(${name})`;
    case 2:
      return `typeof ${name} === "string"`;
    case 3:
      return `typeof ${name} === "number"`;
    case 4:
      return `isInteger(${name})`;
    case 5:
      return `typeof ${name} === "boolean"`;
    default:
      return `${name} === null`;
  }
}

function enumSource(scalars: ReadonlySet<unknown>, consts: GeneratedConstants): string {
  const literals: string[] = [];
  for (const s of scalars) {
    const lit = scalarLiteral(s);
    if (lit === null || scalars.size > INLINE_ENUM) return `${consts.bind(scalars)}.has(v)`;
    literals.push(`v === ${lit}`);
  }
  return `(${literals.join(" || ")})`;
}

function scalarLiteral(s: unknown): string | null {
  if (typeof s === "string") return JSON.stringify(s);
  if (typeof s === "number") return Number.isFinite(s) ? numberLiteral(s) : null;
  if (typeof s === "boolean" || s === null) return String(s);
  return null;
}

/** A finite number's shortest round-trip text; ±Infinity by name (bounds may be open). */
function numberLiteral(n: number): string {
  if (n === Infinity) return "Infinity";
  if (n === -Infinity) return "-Infinity";
  // JSON.stringify(-0) is "0": the same value to every comparison used here.
  return `(${JSON.stringify(n)})`;
}

/**
 * A member `v`'s test in a generated loop, returning `onFailure` when it fails: a leaf
 * inline (it accepts no container, so it needs no partial mark), else the node's own
 * check after marking a container it does not cover (cover.ts). `st` and `path` are the
 * loop's.
 */
export function memberSource(node: SchemaNode, consts: GeneratedConstants, onFailure: string): string {
  if (node.leaf !== null) return `if (!(${leafSource(node.leaf, consts)})) return ${onFailure};`;
  const n = consts.bind(node);
  return (
    `if (typeof v === "object" && v !== null && !(${n}.cover >= 0)) st.partial = true; ` +
    `if (!${n}.validate(v, st, null, path)) return ${onFailure};`
  );
}

/**
 * A member `v`'s test in a generated collecting loop (assemble.ts memberPasses): a leaf
 * inline, then collected at its path only when it fails; any other member asked quietly
 * first unless it is a container and every error is wanted. On failure the loop's `ok`
 * turns false, or it returns at once when only the first error is wanted. `segment` is a
 * source expression for the member's pointer segment; `quiet`, `resume` and the loop's
 * `st`, `path`, `ok` are in scope.
 */
export function collectMemberSource(node: SchemaNode, consts: GeneratedConstants, segment: string): string {
  const n = consts.bind(node);
  const fail = `if (!${n}.validate(v, st, null, path + ${segment})) { if (st.stop) return false; ok = false; }`;
  if (node.leaf !== null) return `if (!(${leafSource(node.leaf, consts)})) { ${fail} }`;
  return (
    `{ let pass = false; if (st.stop || typeof v !== "object" || v === null) { const saved = quiet(st); pass = ${n}.validate(v, st, null, path); resume(st, saved); } ` +
    `if (!pass) { ${fail} } }`
  );
}
