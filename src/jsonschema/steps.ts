/**
 * The bound on evaluation steps per validation (docs/jsonschema.md). Every subschema visit
 * is a step: an in-place application (`$ref`, each `allOf` / `anyOf` / `oneOf` branch tried,
 * `not`, `if` / `then` / `else`, `dependentSchemas`) and every instance member handed to a
 * subschema (`properties`, `patternProperties`, `additionalProperties`, `prefixItems`,
 * `items`, `contains`, `propertyNames`, `unevaluated*`). Work that grows with a string's
 * length on top of the visit is charged by length too: a pattern match (re2js, ~100 ns a
 * character) and a code-point count, so a fan-out over one long string is bounded as well.
 *
 * Past the budget the pass stops by throwing StepBudgetExceeded, which validator.ts catches
 * and turns into an error datum. A throw rather than a returned flag: negating
 * applicators (`not`, `if`, `oneOf` counting) would read a "stop" false as an answer, and
 * every one of them would have to test a flag after every branch.
 */
import type { State } from "./context.js";
import type { PatternMatcher } from "./regex.js";

/**
 * Default budget: 200,000 steps. An instance at the node bound (10,000 values) visited by a
 * few subschemas each stays far below it; a schema that fans out (the l0…l27 chain of test/lint
 * of allOf [$ref, $ref], 2^28 visits) reaches it in tens of milliseconds.
 */
export const DEFAULT_MAX_STEPS = 200_000;

/** Characters of a string a pattern match is charged one step for (re2js: ~100 ns a character). */
const PATTERN_CHARS_PER_STEP = 8;
/** Characters a code-point count is charged one step for (~1 ns a character). */
const COUNT_CHARS_PER_STEP = 64;

export class StepBudgetExceeded extends Error {}

/** Takes `n` steps from the pass's budget; throws once it is spent. */
export function charge(st: State, n: number): void {
  if ((st.steps -= n) < 0) throw new StepBudgetExceeded("evaluation step budget spent");
}

/** One subschema visit: small, so V8 inlines it into every applicator. */
export function step(st: State): void {
  if (--st.steps < 0) throw new StepBudgetExceeded("evaluation step budget spent");
}

function chargePattern(st: State, s: string): void {
  charge(st, 1 + Math.floor(s.length / PATTERN_CHARS_PER_STEP));
}

export function chargeCount(st: State, s: string): void {
  charge(st, 1 + Math.floor(s.length / COUNT_CHARS_PER_STEP));
}

/** A pattern test charged by the string's length (every pattern test goes through here). */
export function testPattern(m: PatternMatcher, s: string, st: State): boolean {
  chargePattern(st, s);
  return m.test(s);
}
