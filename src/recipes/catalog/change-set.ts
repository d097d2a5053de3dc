/**
 * What the catalog is asked to re-read and what it answers: the ChangeSet a
 * watcher batch (or a full load) becomes, and the outcome of applying it.
 */
import type { ChangeBatch } from "../../skills/pending-changes.js";

/**
 * A watcher batch with its private files named by playbook slug: roots to
 * re-list, skill directories to re-read (one that is not, or no longer, a
 * skill is fine), playbooks to re-read, or the whole private directory.
 */
export interface ChangeSet extends Pick<ChangeBatch, "roots" | "skillDirs" | "privateAll"> {
  readonly privateSlugs: ReadonlySet<string>;
}

export interface ApplyResult {
  /** Anything in the snapshot (skills, recipes, diagnostics) differs. */
  readonly changed: boolean;
  /** Skills or recipes a client can see differ (not only diagnostics). */
  readonly visible: boolean;
  /** Skill directories whose recipe files were re-read (for logs and tests). */
  readonly reloadedSkills: readonly string[];
}
