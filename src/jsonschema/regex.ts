/**
 * Compiles `pattern` / `patternProperties` regexes once per schema (docs/jsonschema.md): the pattern
 * must be a valid ECMAScript Unicode regex, and it runs in time linear in the input by
 * construction: on V8 itself when it is in the deterministic class regex-linear.ts proves
 * linear (most schema patterns: `^[A-Za-z_][A-Za-z0-9_]{0,63}$`, `^[0-9a-f]{64}$`), else on
 * re2js, an RE2 automaton, after regex-translate.ts rewrote it with ECMA-262 meaning.
 */
import { RE2JS } from "re2js";
import type { SchemaErrorCode } from "./types.js";
import { translatePattern } from "./regex-translate.js";
import { linearOnBacktracking } from "./regex-linear.js";

/** What the keywords call: true when the pattern matches somewhere in `s` (ECMA `test`). */
export interface PatternMatcher {
  test(s: string): boolean;
}

export type PatternVerdict =
  | { readonly ok: true; readonly matcher: PatternMatcher }
  | { readonly ok: false; readonly code: SchemaErrorCode; readonly message: string };

/** The verdict on one pattern, with the message compile and lint both give. */
export function buildPattern(pattern: string): PatternVerdict {
  let native: RegExp;
  try {
    native = new RegExp(pattern, "u");
  } catch {
    return { ok: false, code: "invalid_pattern", message: "pattern is not a valid Unicode regular expression" };
  }
  // No `g` / `y` flag: test() keeps no state between calls.
  if (linearOnBacktracking(pattern)) return { ok: true, matcher: native };
  const translated = translatePattern(pattern);
  if (!translated.ok) return unsupported(translated.reason);
  try {
    return { ok: true, matcher: rememberingFailure(RE2JS.compile(translated.source)) };
  } catch (e) {
    // RE2's own limits (program size, nesting): its message names which.
    return unsupported(e instanceof Error ? e.message : String(e));
  }
}

/** Longest failing string remembered: a short one is all a re-test costs much on, and it bounds what is kept. */
const REMEMBERED_CHARS = 256;

/**
 * An automaton match costs ~100 ns a character, and a first-error failure tests the same
 * string twice: on the fast pass, then when the failing member is re-run to build its error
 * (context.ts traceChild). The last short string that failed answers the second test.
 * Strings compare by value, so the answer is the automaton's for any equal string.
 */
function rememberingFailure(m: PatternMatcher): PatternMatcher {
  let lastFailed: string | undefined;
  return {
    test(s: string): boolean {
      if (s === lastFailed) return false;
      const ok = m.test(s);
      if (!ok && s.length <= REMEMBERED_CHARS) lastFailed = s;
      return ok;
    },
  };
}

function unsupported(reason: string): PatternVerdict {
  return { ok: false, code: "unsupported_pattern", message: `pattern cannot be matched in linear time: ${reason}` };
}

export function compileRegex(
  cache: Map<string, PatternMatcher>,
  pattern: unknown,
  fail: (code: SchemaErrorCode, message: string) => void,
): PatternMatcher | null {
  if (typeof pattern !== "string") {
    fail("malformed", "pattern must be a string");
    return null;
  }
  const cached = cache.get(pattern);
  if (cached !== undefined) return cached;
  const verdict = buildPattern(pattern);
  if (!verdict.ok) {
    fail(verdict.code, verdict.message);
    return null;
  }
  cache.set(pattern, verdict.matcher);
  return verdict.matcher;
}
