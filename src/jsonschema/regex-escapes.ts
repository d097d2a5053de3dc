/**
 * The ECMA-262 escapes that stand for one fixed code point (`\t` … `\0`,
 * `\xHH`), shared by the pattern translator and the linear-class check,
 * which must read them alike.
 */
const SINGLE_CODE_POINT_ESCAPES: ReadonlyMap<string, number> = new Map([
  ["t", 0x09],
  ["n", 0x0a],
  ["v", 0x0b],
  ["f", 0x0c],
  ["r", 0x0d],
  ["0", 0x00],
]);

/** The escape whose backslash is at `p[i]`: its code point and where it ends, or null when it is not a fixed one. */
export function fixedEscape(p: string, i: number): { readonly cp: number; readonly end: number } | null {
  const e = p[i + 1]!;
  const cp = SINGLE_CODE_POINT_ESCAPES.get(e);
  if (cp !== undefined) return { cp, end: i + 2 };
  return e === "x" ? { cp: parseInt(p.slice(i + 2, i + 4), 16), end: i + 4 } : null;
}
