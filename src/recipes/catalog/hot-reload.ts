/**
 * Hot reload (docs/skill-packs.md): the watcher's batches, and changes the store heard
 * of from other replicas, applied one at a time once the first load is done.
 * Batches that come while one is applied wait in one PendingChanges queue and
 * are applied together.
 */
import type { Logger } from "pino";
import { PendingChanges, type ChangeBatch } from "../../skills/pending-changes.js";

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
import { watchSkills, type SkillWatcher, type SkillWatcherOptions } from "../../skills/watcher.js";

export type WatchOptions = Pick<SkillWatcherOptions, "debounceMs" | "maxWaitMs" | "depth" | "pollMs">;

export interface HotReloadOptions {
  readonly roots: readonly string[];
  readonly privateDir: string;
  readonly logger: Logger;
  /** A private-dir file name → its playbook slug, null for anything else (the store's). */
  readonly slugFromFile: (fileName: string) => string | null;
  /** Applies one change set; calls are not overlapped. */
  readonly apply: (changes: ChangeSet) => Promise<unknown>;
  /** Settles once the first full load has; null before it started. */
  readonly firstLoad: () => Promise<unknown> | null;
}

export class HotReload {
  private readonly pending = new PendingChanges();
  private draining: Promise<void> | null = null;
  private watcher: SkillWatcher | null = null;

  constructor(private readonly options: HotReloadOptions) {}

  /** Starts the watcher; resolves once it sees changes. Idempotent. */
  async watch(options: WatchOptions = {}): Promise<void> {
    const { roots, privateDir, logger } = this.options;
    this.watcher ??= watchSkills({ roots, privateDir, onBatch: (batch) => this.enqueue(batch), logger, ...options });
    await this.watcher.ready();
  }

  /** Stops the watcher, drops what it queued, and waits for a batch being applied. */
  async stop(): Promise<void> {
    const watcher = this.watcher;
    this.watcher = null;
    await watcher?.close();
    this.pending.take();
    await this.idle();
  }

  /** Resolves when no batch is queued or being applied. */
  async idle(): Promise<void> {
    while (this.draining !== null) await this.draining;
  }

  enqueue(batch: ChangeBatch): void {
    this.pending.add(batch, batch.events);
    this.draining ??= this.drain();
  }

  private async drain(): Promise<void> {
    try {
      // Events that arrive during the first load are applied after it.
      await this.options.firstLoad();
      for (let batch = this.pending.take(); batch !== null; batch = this.pending.take()) {
        try {
          await this.options.apply(changeSetOf(batch, this.options.slugFromFile));
        } catch (error) {
          this.options.logger.error({ err: error }, "hot reload failed");
        }
      }
    } finally {
      this.draining = null;
    }
  }
}

/** A watcher batch as the catalog applies it: private files by playbook slug. */
function changeSetOf(batch: ChangeBatch, slugFromFile: (fileName: string) => string | null): ChangeSet {
  const privateSlugs = new Set<string>();
  let privateAll = batch.privateAll;
  for (const name of batch.privateFiles) {
    const slug = slugFromFile(name);
    if (slug !== null) privateSlugs.add(slug);
    // A .md file that is not a slug gets (or loses) a diagnostic from a full re-read.
    else if (name.endsWith(".md")) privateAll = true;
  }
  return { roots: batch.roots, skillDirs: batch.skillDirs, privateSlugs, privateAll };
}
