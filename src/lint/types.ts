/** What `recipe-server lint` reports: one finding per problem, with a place and a fix. */
export type LintSeverity = "error" | "warning";

export interface LintFinding {
  /** A loader diagnostic code (src/util/diagnostics.ts) or a lint code (src/lint/rules.ts). */
  readonly code: string;
  readonly severity: LintSeverity;
  readonly skill?: string;
  /** Skill-relative, `/`-separated. */
  readonly file: string;
  /** The same file relative to the working directory, for editors and CI annotations. */
  readonly path: string;
  readonly line?: number;
  readonly column?: number;
  readonly message: string;
  /** One line telling the author what to change. */
  readonly fix: string;
}

/** A YAML path inside one recipe entry (`["inputs_schema", "properties", "x"]`). */
export type EntryPath = readonly (string | number)[];

/**
 * What a rule emits before positions are resolved: `at` is a path inside the
 * recipe entry, resolved against the file's YAML nodes only when needed.
 */
export interface RuleHit {
  readonly code: string;
  readonly message: string;
  /** Overrides the table's severity (some rules escalate). */
  readonly severity?: LintSeverity;
  /** Specific fix; the table's generic fix otherwise. */
  readonly fix?: string;
  /** Where inside the entry; the entry itself when absent. */
  readonly at?: EntryPath;
  /** Point at the key of the last path segment rather than its value. */
  readonly atKey?: boolean;
}

export interface LintStats {
  readonly roots: number;
  readonly skills: number;
  readonly recipes: number;
  readonly files: number;
  /** Findings silenced by `recipe-lint-disable` comments. */
  readonly suppressed: number;
  readonly ms: number;
}

export interface LintReport {
  readonly findings: LintFinding[];
  readonly stats: LintStats;
}
