/**
 * Keep-last-good (docs/skill-packs.md): a file that turns malformed keeps the
 * recipes of its last good read, with a `reload_kept_last_good` warning
 * beside the loader's own error, until it is fixed.
 */
import { stat } from "node:fs/promises";
import { diagnostic, type Diagnostic, type DiagnosticCode } from "../../util/diagnostics.js";

/** Loader codes meaning "this file could not be read as a whole": keep its last good recipes. */
const MALFORMED_CODES: ReadonlySet<DiagnosticCode> = new Set<DiagnosticCode>([
  "yaml_parse_error",
  "yaml_duplicate_key",
  "yaml_alias_limit",
  "pack_missing_recipes",
  "not_utf8",
  "file_too_large",
  "file_unreadable",
  "frontmatter_missing",
  "frontmatter_invalid",
  "non_spec_top_level_keys",
  "invalid_metadata",
  "private_playbook_invalid",
]);

/** The warning beside a malformed file's error while its last good version is served. */
export function kept(d: Diagnostic, what: string): Diagnostic {
  return diagnostic("warning", "reload_kept_last_good", `${what} became malformed; its last good version is served until it is fixed`, {
    ...(d.skill !== undefined ? { skill: d.skill } : {}),
    ...(d.file !== undefined ? { file: d.file } : {}),
  });
}

export function isMalformed(diagnostics: readonly Diagnostic[]): Diagnostic | undefined {
  return diagnostics.find((d) => d.severity === "error" && MALFORMED_CODES.has(d.code));
}

/** A recipe file read empty while it had recipes: most likely caught between truncate and write. */
export async function caughtEmpty(abs: string, skill: string, rel: string): Promise<Diagnostic | undefined> {
  const st = await stat(abs).catch(() => null);
  if (st === null || st.size > 0) return undefined;
  return diagnostic("error", "file_unreadable", `${rel} is empty`, { skill, file: rel });
}

export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
