/** Compiles `pattern` / `patternProperties` regexes once per schema, with the `u` flag, screened. */
import type { SchemaErrorCode } from "./types.js";
import { screenPattern } from "./regex-screen.js";

export function compileRegex(
  cache: Map<string, RegExp>,
  pattern: unknown,
  fail: (code: SchemaErrorCode, message: string) => void,
): RegExp | null {
  if (typeof pattern !== "string") {
    fail("malformed", "pattern must be a string");
    return null;
  }
  const cached = cache.get(pattern);
  if (cached !== undefined) return cached;
  let re: RegExp;
  try {
    re = new RegExp(pattern, "u");
  } catch {
    fail("invalid_pattern", "pattern is not a valid Unicode regular expression");
    return null;
  }
  const verdict = screenPattern(pattern);
  if (!verdict.safe) {
    fail("unsafe_pattern", `pattern is unsafe: ${verdict.reason}`);
    return null;
  }
  cache.set(pattern, re);
  return re;
}
