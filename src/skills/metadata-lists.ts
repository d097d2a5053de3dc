/**
 * List-valued `metadata.dcc-mcp` keys, read as dcc-mcp-core's
 * `parse_csv_or_list` reads them, and `metadata/depends.md` as its
 * `merge_depends_from_metadata` does. Shared by SKILL.md parsing and
 * whoever reads recipe-level aliases.
 */

/** A comma-separated string or a list of strings (numbers kept as text); anything else is ignored with a warning. */
export function stringList(v: unknown, key: string, warn: (m: string) => void): string[] {
  if (v === undefined || v === null) return [];
  if (typeof v === "string") return v.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (Array.isArray(v)) {
    const out = v.filter((t): t is string | number => typeof t === "string" || typeof t === "number").map(String);
    if (out.length !== v.length) warn(`${key} must list strings; other items ignored`);
    return out;
  }
  warn(`${key} must be a list of strings; ignored`);
  return [];
}

/**
 * Example prompts: a list, or one string that is one prompt. Core splits a
 * string on commas as for tags, but a prompt is a sentence and its commas
 * are prose ("Is it strong enough, or does it need to be thicker?").
 */
export function promptList(v: unknown, key: string, warn: (m: string) => void): string[] {
  if (typeof v === "string") return v.trim() === "" ? [] : [v.trim()];
  return stringList(v, key, warn).map((p) => p.trim()).filter((p) => p !== "");
}

/** The first of `keys` that `m` holds (core reads the spellings of one key as one). */
export function firstKey(m: Readonly<Record<string, unknown>>, keys: readonly string[]): string | undefined {
  return keys.find((k) => Object.hasOwn(m, k) && m[k] !== undefined && m[k] !== null);
}

/** A dependency line as core reads `metadata/depends.md`: a `-`/`*` item or a bare name that is a skill slug. */
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** `depends` with the names of `metadata/depends.md` appended, each once; headings, prose and blank lines are skipped. */
export function mergeDependsText(depends: readonly string[], text: string): string[] {
  const out = [...depends];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const name = (line.startsWith("- ") || line.startsWith("* ") ? line.slice(2) : line).trim();
    if (name.length > 64 || !SLUG.test(name)) continue;
    if (!out.includes(name)) out.push(name);
  }
  return out;
}
