/**
 * The placeholder grammar shared by the materializer and lint (docs/skill-packs.md):
 * `${name}`, dotted `${a.b}`, and indexes into arrays as real packs write
 * them, `${a.faces[0]}` or `${a.faces.0}`. One grammar in one place, so lint
 * flags exactly what apply would leave as a literal.
 */

/** A name segment: letters, digits, `_` and `-` (freecad's `fem-review` style). */
const SEGMENT = "[A-Za-z0-9_-]+";
const PATH = `${SEGMENT}(?:\\.${SEGMENT}|\\[[0-9]+\\])*`;

/** Every well-formed placeholder inside a string. */
export const PLACEHOLDER = new RegExp(`\\$\\{(${PATH})\\}`, "g");
/** A string that is one placeholder and nothing else (substituted by value, not text). */
export const WHOLE_PLACEHOLDER = new RegExp(`^\\$\\{(${PATH})\\}$`);

/** One step of a placeholder path: a key, or an index written `[n]`. */
export type PathStep = { readonly key: string } | { readonly index: number };

/** `a.b[0].c` → key a, key b, index 0, key c. A dotted all-digit key (`a.0`) stays a key: it indexes arrays too. */
export function placeholderPath(name: string): PathStep[] {
  const steps: PathStep[] = [];
  for (const m of name.matchAll(/([A-Za-z0-9_-]+)|\[([0-9]+)\]/g)) {
    steps.push(m[1] !== undefined ? { key: m[1] } : { index: Number(m[2]) });
  }
  return steps;
}

/** The top-level input a placeholder reads. */
export function placeholderRoot(name: string): string {
  return /^[A-Za-z0-9_-]+/.exec(name)?.[0] ?? name;
}

/** Placeholders in `text`, and whether a `${` is left that is none of them. */
export function scanPlaceholders(text: string): { names: string[]; malformed: boolean } {
  if (!text.includes("${")) return { names: [], malformed: false };
  const names = [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!);
  return { names, malformed: text.replace(PLACEHOLDER, "").includes("${") };
}

/** Step keys whose values are parameters the materializer fills (the rest is prose). */
export function isParameterKey(key: string): boolean {
  return /^(?:fallback_)?(?:arguments|inputs)$/.test(key);
}
