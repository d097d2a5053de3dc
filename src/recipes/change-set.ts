/**
 * What the catalog is asked to re-read and what it answers: the ChangeSet a
 * watcher batch (or a full load) becomes, and the outcome of applying it.
 */

/** What changed on disk, as a watcher reports it. */
export interface ChangeSet {
  /** Roots (by index) whose list of skill directories must be re-read. */
  readonly roots: ReadonlySet<number>;
  /** Skill directories to re-read; a directory that is not (or no longer) a skill is fine. */
  readonly skillDirs: ReadonlyArray<{ readonly rootIndex: number; readonly dir: string }>;
  /** Private playbooks to re-read, by slug. */
  readonly privateSlugs: ReadonlySet<string>;
  /** Re-read the whole private directory. */
  readonly privateAll: boolean;
}

export interface ApplyResult {
  /** Anything in the snapshot (skills, recipes, diagnostics) differs. */
  readonly changed: boolean;
  /** Skills or recipes a client can see differ (not only diagnostics). */
  readonly visible: boolean;
  /** Skill directories whose recipe files were re-read (for logs and tests). */
  readonly reloadedSkills: readonly string[];
}
