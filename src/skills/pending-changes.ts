/**
 * What changed on disk since the last batch: the watcher folds raw events
 * into it until a quiet moment, then takes the whole of it as one batch;
 * duplicates fold away (a directory named twice is read once).
 */

/** What to re-read, as a watcher reports it. */
export interface ChangeBatch {
  /** Roots (by index) whose skill directories must be re-listed. */
  readonly roots: ReadonlySet<number>;
  /** Directories that may be (or may have been) a skill; the root itself when it may be one. */
  readonly skillDirs: ReadonlyArray<{ readonly rootIndex: number; readonly dir: string }>;
  /** Base names of changed files directly in the private directory. */
  readonly privateFiles: ReadonlySet<string>;
  /** The private directory itself appeared or went away. */
  readonly privateAll: boolean;
  /** Raw events folded into this batch. */
  readonly events: number;
}

/** What add() takes: a batch's parts, any of them as a plain list. */
interface ChangesToAdd {
  readonly roots?: Iterable<number>;
  readonly skillDirs?: Iterable<{ readonly rootIndex: number; readonly dir: string }>;
  readonly privateFiles?: Iterable<string>;
  readonly privateAll?: boolean;
}

export class PendingChanges {
  private roots = new Set<number>();
  private dirs = new Map<string, { rootIndex: number; dir: string }>();
  private privateFiles = new Set<string>();
  private privateAll = false;
  private events = 0;

  /** Events folded in since the last take(). */
  get size(): number {
    return this.events;
  }

  /** Folds in one event's worth (or a whole batch) of changes. */
  add(changes: ChangesToAdd, events = 1): void {
    for (const r of changes.roots ?? []) this.roots.add(r);
    for (const d of changes.skillDirs ?? []) this.dirs.set(`${d.rootIndex}\u0000${d.dir}`, { rootIndex: d.rootIndex, dir: d.dir });
    for (const name of changes.privateFiles ?? []) this.privateFiles.add(name);
    if (changes.privateAll === true) this.privateAll = true;
    this.events += events;
  }

  /** Everything folded in so far, as one batch (null when nothing was), and starts afresh. */
  take(): ChangeBatch | null {
    if (this.events === 0) return null;
    const batch: ChangeBatch = { roots: this.roots, skillDirs: [...this.dirs.values()], privateFiles: this.privateFiles, privateAll: this.privateAll, events: this.events };
    this.roots = new Set();
    this.dirs = new Map();
    this.privateFiles = new Set();
    this.privateAll = false;
    this.events = 0;
    return batch;
  }
}
