/**
 * Structured problems met while loading skills and recipes (docs/skill-packs.md).
 * Every loader reports through these; nothing that a pack author can get
 * wrong is an exception.
 */
export type Severity = "error" | "warning";

/** The one table of diagnostic codes. Add new codes here, never inline. */
export const DIAGNOSTIC_CODES = {
  frontmatter_missing: "SKILL.md has no YAML frontmatter between --- lines",
  frontmatter_invalid: "SKILL.md frontmatter is not valid YAML or not a mapping",
  non_spec_top_level_keys: "SKILL.md has top-level keys outside the Agent Skills format",
  invalid_metadata: "a metadata.dcc-mcp value has the wrong type",
  duplicate_skill: "another skill with this name was found earlier in priority order",
  reserved_skill_name: "the skill name is reserved",
  invalid_skill_name: "the skill name cannot be part of a recipe id",
  recipe_path_escapes: "a recipe path resolves outside the skill directory",
  recipe_path_missing: "a recipe path names a file that does not exist",
  recipe_glob_empty: "a recipe glob matches no file",
  recipe_path_loop: "a recipe glob runs into a symbolic link loop",
  file_unreadable: "a file could not be read",
  file_too_large: "a file exceeds the size limit",
  not_utf8: "a file is not valid UTF-8",
  yaml_parse_error: "a YAML file does not parse",
  yaml_duplicate_key: "a YAML mapping repeats a key",
  yaml_alias_limit: "a YAML file expands too many aliases",
  pack_missing_recipes: "a YAML recipe pack has no top-level recipes: list",
  recipe_invalid_entry: "a YAML recipe entry is malformed",
  duplicate_recipe: "a recipe name repeats within one skill",
  duplicate_anchor: "a Markdown anchor repeats within one skill",
  schema_fails_closed: "a recipe schema is refused by the validator",
  schema_draft07_accepted: "a recipe schema declares Draft-07; it is read as Draft 2020-12",
  private_playbook_invalid: "a private playbook file is malformed",
  reload_kept_last_good: "a file became malformed; its last good recipes are kept",
} as const;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

export interface Diagnostic {
  readonly severity: Severity;
  readonly code: DiagnosticCode;
  readonly skill?: string;
  /** Skill-relative (or skill-root-relative) path; never an absolute host path. */
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  readonly message: string;
}

export function diagnostic(
  severity: Severity,
  code: DiagnosticCode,
  message: string,
  where: { skill?: string; file?: string; line?: number; column?: number } = {},
): Diagnostic {
  const d: { -readonly [K in keyof Diagnostic]: Diagnostic[K] } = { severity, code, message };
  if (where.skill !== undefined) d.skill = where.skill;
  if (where.file !== undefined) d.file = where.file;
  if (where.line !== undefined) d.line = where.line;
  if (where.column !== undefined) d.column = where.column;
  return Object.freeze(d);
}

/** Diagnostics of one code kept per file before the rest are summed up (see capDiagnostics). */
export const MAX_DIAGNOSTICS_PER_FILE_AND_CODE = 20;

/** The summary capDiagnostics writes; capping capped diagnostics again (file, then skill) adds its count up. */
const SUMMARY = /^and (\d+) more "[a-z_]+" diagnostics/;

/**
 * The first `max` diagnostics of each skill, file and code, then one that
 * says how many more there were: a pack of 100,000 repeated names must not
 * become 99,999 warnings (each listed, logged and sent to clients).
 */
export function capDiagnostics(diagnostics: readonly Diagnostic[], max = MAX_DIAGNOSTICS_PER_FILE_AND_CODE): Diagnostic[] {
  const seen = new Map<string, number>();
  const kept: Diagnostic[] = [];
  const over = new Map<string, { first: Diagnostic; count: number; at: number }>();
  for (const d of diagnostics) {
    const key = `${d.skill ?? ""}\u0000${d.file ?? ""}\u0000${d.code}`;
    const summarised = SUMMARY.exec(d.message);
    const n = summarised === null ? (seen.get(key) ?? 0) + 1 : Infinity;
    if (summarised === null) seen.set(key, n);
    if (n <= max) {
      kept.push(d);
      continue;
    }
    const more = summarised === null ? 1 : Number(summarised[1]);
    const group = over.get(key);
    if (group === undefined) {
      // The summary stands where the first diagnostic left out would have.
      over.set(key, { first: d, count: more, at: kept.length });
      kept.push(d);
    } else group.count += more;
  }
  for (const { first, count, at } of over.values()) {
    const where = first.file !== undefined ? ` in ${first.file}` : "";
    kept[at] = diagnostic(first.severity, first.code, `and ${count} more "${first.code}" diagnostics${where} (the first ${max} are listed)`, {
      ...(first.skill !== undefined ? { skill: first.skill } : {}),
      ...(first.file !== undefined ? { file: first.file } : {}),
    });
  }
  return kept;
}
