/** A skill directory found by discovery, with its parsed SKILL.md. */
export interface SkillInfo {
  /** Frontmatter `name`, or the directory name when empty. */
  readonly name: string;
  /** Absolute path of the skill directory (never sent to clients). */
  readonly dir: string;
  /**
   * The skill directory's real path as resolved when SKILL.md was read from
   * it: every file of the skill is read inside it (util/read-inside.ts).
   * Absent only in skills built by hand; readers then resolve `dir`.
   */
  readonly realDir?: string;
  /** Absolute path of the skill root it was found under. */
  readonly root: string;
  /** Position of that root in priority order (0 = highest). */
  readonly rootIndex: number;
  readonly description: string;
  readonly license?: string;
  readonly compatibility?: string;
  readonly allowedTools?: string | readonly string[];
  /** `metadata.dcc-mcp.dcc`, default `python`; `any` matches every DCC. */
  readonly dcc: string;
  readonly version?: string;
  readonly tags: readonly string[];
  readonly searchHint?: string;
  /** `metadata.dcc-mcp.layer` lower-cased (`domain`, `infrastructure`, `thin-harness`, `example`), when set. */
  readonly layer?: string;
  /** `metadata.dcc-mcp.search-aliases` (or `aliases`), when any. */
  readonly searchAliases?: readonly string[];
  /** `metadata.dcc-mcp.example-prompts` (or `examplePrompts`), when any. */
  readonly examplePrompts?: readonly string[];
  /** `metadata.dcc-mcp.depends` merged with `metadata/depends.md`, when any. */
  readonly depends?: readonly string[];
  /** `metadata.dcc-mcp.products`, when any. */
  readonly products?: readonly string[];
  /** `metadata.dcc-mcp.recipes` normalised to a list of names/globs, as written. */
  readonly recipePatterns: readonly string[];
  /** The merged `dcc-mcp` metadata (nested wins over flat), kept for display. */
  readonly dccMetadata: Readonly<Record<string, unknown>>;
  /** The whole `metadata` mapping as written. */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Markdown body of SKILL.md after the frontmatter. */
  readonly body: string;
}
