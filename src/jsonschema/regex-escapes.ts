/**
 * The ECMA-262 escapes that stand for one fixed code point (`\t` … `\0`),
 * shared by the pattern translator and the linear-class check, which must
 * read them alike.
 */
export const SINGLE_CODE_POINT_ESCAPES: ReadonlyMap<string, number> = new Map([
  ["t", 0x09],
  ["n", 0x0a],
  ["v", 0x0b],
  ["f", 0x0c],
  ["r", 0x0d],
  ["0", 0x00],
]);
