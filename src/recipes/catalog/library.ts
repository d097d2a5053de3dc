/**
 * The live recipe library of one DCC: discovery → loaders → immutable catalog
 * snapshot → search index. Tool handlers call `current()` once per request
 * and work on that snapshot; every change publishes a new one, so a request
 * that started on revision N finishes on N whatever is published meanwhile.
 *
 * Hot reload (docs/skill-packs.md) flows one way: the file watcher's batches
 * and the store's word of other replicas' writes become change sets in the
 * library's one queue; once the first load is done they are applied one at a
 * time by the incremental catalog (those that come meanwhile fold into one),
 * and each that changes anything publishes a new snapshot.
 */
import path from "node:path";
import type { Logger } from "pino";
import { buildSnapshot, withPlaybook, type CatalogSnapshot } from "./catalog.js";
import { changeSetOf, IncrementalCatalog, mergeChanges, type ApplyResult, type ChangeSet } from "./reload.js";
import type { CreateOptions, PlaybookStore, StoreResult } from "../store/contract.js";
import type { WriteTiming } from "../store/deadline.js";
import { openStores } from "../store/open-store.js";
import type { PlaybookDraft, PlaybookPatch } from "../store/playbook-values.js";
import type { UsageStore } from "../store/usage.js";
import type { PgConnections } from "../store/pg/pg-connections.js";
import { ParseCache } from "../packs/parse-cache.js";
import type { SearchEngine } from "../search/engine.js";
import { watchSkills, type SkillWatcher, type SkillWatcherOptions } from "../../skills/watcher.js";

/** What a DCC's state directory holds, named in one place. */
export interface StateFiles {
  /** Parsed packs across restarts (parse-cache.ts). */
  readonly parseCache: string;
  /** Use counts of recipes (store/usage.ts). */
  readonly usage: string;
  /** Cached embedding vectors (search/vector-cache.ts). */
  readonly vectors: string;
}

export function stateFiles(stateDir: string): StateFiles {
  return {
    parseCache: path.join(stateDir, "parsed-packs"),
    usage: path.join(stateDir, "usage.json"),
    vectors: path.join(stateDir, "vectors"),
  };
}

export interface LibrarySettings {
  readonly dcc: string;
  readonly skillRoots: readonly string[];
  readonly privateDir: string;
  readonly stateDir: string;
  /** postgres://… to keep playbooks and usage counts in PostgreSQL; absent or null: files. */
  readonly storeUrl?: string | null;
  /** The PostgreSQL rows' owner (users file: a user id); default "", the single user. */
  readonly owner?: string;
  /** Shared PostgreSQL connections by URL (users file); absent: the library's store opens its own. */
  readonly pgConnections?: PgConnections;
  /** How long a playbook write may take before the store gives up without committing (below the request timeout); absent: no limit. */
  readonly writeTimeoutMs?: number;
  /** Revisions kept per private playbook; default 50. */
  readonly historyLimit?: number;
}

export interface RecipeLibraryOptions {
  readonly settings: LibrarySettings;
  readonly search: SearchEngine;
  readonly logger: Logger;
  /** Parse worker threads per large load; default parseWorkerCount(), 0 = the calling thread only. */
  readonly parseWorkers?: number;
}

/** Why a snapshot was published; `visible` is false when only diagnostics changed. */
export interface CatalogChange {
  readonly source: "load" | "reload" | "write";
  readonly visible: boolean;
}

export type CatalogListener = (snapshot: CatalogSnapshot, previous: CatalogSnapshot | null, change: CatalogChange) => void;

export type WatchOptions = Pick<SkillWatcherOptions, "debounceMs" | "maxWaitMs" | "depth" | "pollMs">;

export class RecipeLibrary {
  readonly dcc: string;
  readonly settings: LibrarySettings;
  readonly search: SearchEngine;
  readonly store: PlaybookStore;
  readonly usage: UsageStore;
  private readonly closeStores: () => Promise<void>;
  private readonly logger: Logger;
  private snapshot: CatalogSnapshot | null = null;
  private revision = 0;
  private readonly catalog: IncrementalCatalog;
  private readonly parseCache: ParseCache;
  private listeners = new Set<CatalogListener>();
  /** Serializes full loads and reload batches: the catalog state is not re-entrant. */
  private exclusive: Promise<unknown> = Promise.resolve();
  private firstLoad: Promise<unknown> | null = null;
  private watcher: SkillWatcher | null = null;
  /** Changes waiting while one is applied, folded into one; null when none wait. */
  private queued: ChangeSet | null = null;
  /** The loop applying queued changes, while it runs. */
  private draining: Promise<void> | null = null;
  /** Skills and recipes the running full load has read so far (start-up progress). */
  private progress = { loading: false, skills: 0, recipes: 0 };

  constructor(options: RecipeLibraryOptions) {
    this.settings = options.settings;
    this.dcc = options.settings.dcc;
    this.search = options.search;
    this.logger = options.logger.child({ dcc: this.dcc });
    const files = stateFiles(options.settings.stateDir);
    const stores = openStores({
      dcc: this.dcc,
      privateDir: options.settings.privateDir,
      usageFile: files.usage,
      storeUrl: options.settings.storeUrl ?? null,
      ...(options.settings.owner !== undefined ? { owner: options.settings.owner } : {}),
      logger: this.logger,
      ...(options.settings.pgConnections ? { connections: options.settings.pgConnections } : {}),
      ...(options.settings.writeTimeoutMs !== undefined ? { writeTimeoutMs: options.settings.writeTimeoutMs } : {}),
      ...(options.settings.historyLimit !== undefined ? { historyLimit: options.settings.historyLimit } : {}),
    });
    this.store = stores.store;
    this.usage = stores.usage;
    this.closeStores = stores.close;
    // Writes other replicas made: re-read them as the watcher's private-dir events are.
    this.store.onChange?.((change) =>
      this.enqueue({ roots: new Set(), skillDirs: [], privateSlugs: new Set(change.all ? [] : change.slugs), privateAll: change.all }),
    );
    this.parseCache = new ParseCache(files.parseCache, this.logger);
    this.catalog = new IncrementalCatalog({
      dcc: this.dcc,
      roots: this.settings.skillRoots,
      store: this.store,
      parseCache: this.parseCache,
      ...(options.parseWorkers !== undefined ? { parseWorkers: options.parseWorkers } : {}),
      onSkillLoaded: (recipes) => {
        this.progress.skills += 1;
        this.progress.recipes += recipes.length;
        this.search.warm(recipes);
      },
    });
  }

  /** The snapshot a request should use, or null before the first load. */
  current(): CatalogSnapshot | null {
    return this.snapshot;
  }

  /** A full load's progress: skills and recipes read so far (a copy; `loading` false between loads). */
  loadProgress(): { readonly loading: boolean; readonly skills: number; readonly recipes: number } {
    return { ...this.progress };
  }

  /** Called with each new snapshot after it is published. */
  onChange(listener: CatalogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Full load from disk: discovery, every skill, every private playbook. */
  load(): Promise<CatalogSnapshot> {
    const run = this.serialize(async () => {
      const started = performance.now();
      this.progress = { loading: true, skills: 0, recipes: 0 };
      await Promise.all([this.usage.load(), this.parseCache.load()]);
      try {
        await this.catalog.loadAll();
      } finally {
        this.progress.loading = false;
      }
      const snapshot = this.build(++this.revision);
      this.publish(snapshot, { source: "load", visible: true });
      for (const d of snapshot.diagnostics) {
        this.logger[d.severity === "error" ? "warn" : "info"]({ diagnostic: d }, "skill diagnostic");
      }
      this.logger.info(
        {
          skills: snapshot.skills.size,
          recipes: snapshot.recipes.size,
          diagnostics: snapshot.diagnostics.length,
          ms: Math.round(performance.now() - started),
          parseCache: this.parseCache.stats(),
          parseWorkers: this.catalog.lastParseWorkers(),
        },
        "catalog loaded",
      );
      // After publishing: the catalog is served while the cache is written.
      void this.persistParseCache();
      return snapshot;
    });
    this.firstLoad ??= run.catch(() => undefined);
    return run;
  }

  /**
   * Re-reads what `changes` names and publishes a new snapshot when anything
   * differs. Calls are queued behind each other and behind `load()`.
   */
  applyChanges(changes: ChangeSet): Promise<ApplyResult> {
    return this.serialize(async () => {
      const started = performance.now();
      const result = await this.catalog.apply(changes);
      // Parses of packs since replaced would otherwise pile up until the next write.
      this.parseCache.forget(this.catalog.cacheKeys());
      const read = performance.now();
      if (result.changed && this.snapshot !== null) {
        // Built from the catalog state at this instant, so a playbook the
        // daemon wrote while the batch was read is included.
        const snapshot = this.build(++this.revision);
        this.publish(snapshot, { source: "reload", visible: result.visible });
        for (const d of snapshot.diagnostics) {
          if (d.code === "reload_kept_last_good") this.logger.warn({ diagnostic: d }, "skill diagnostic");
        }
        this.logger.info(
          {
            revision: snapshot.revision,
            skills: result.reloadedSkills.length,
            visible: result.visible,
            readMs: Math.round(read - started),
            publishMs: Math.round(performance.now() - read),
          },
          "catalog reloaded",
        );
      }
      return result;
    });
  }

  /** Starts hot reload; resolves once the watcher sees changes. Idempotent. */
  async watch(options: WatchOptions = {}): Promise<void> {
    this.watcher ??= watchSkills({
      roots: this.settings.skillRoots,
      privateDir: this.settings.privateDir,
      onBatch: (batch) => this.enqueue(changeSetOf(batch, (name) => this.store.slugFromFile(name))),
      logger: this.logger,
      ...options,
    });
    await this.watcher.ready();
  }

  /** Stops hot reload, drops what it queued, and waits for a batch being applied. */
  async stopWatching(): Promise<void> {
    const watcher = this.watcher;
    this.watcher = null;
    await watcher?.close();
    this.queued = null;
    await this.whenIdle();
  }

  /** Resolves when no reload batch is queued or running and no background write is in flight. */
  async whenIdle(): Promise<void> {
    while (this.draining !== null) await this.draining;
    await this.parseCache.idle();
  }

  private enqueue(changes: ChangeSet): void {
    this.queued = this.queued === null ? changes : mergeChanges(this.queued, changes);
    this.draining ??= this.drain();
  }

  private async drain(): Promise<void> {
    try {
      // Changes that arrive during the first load are applied after it.
      await this.firstLoad;
      for (let changes = this.queued; changes !== null; changes = this.queued) {
        this.queued = null;
        try {
          await this.applyChanges(changes);
        } catch (error) {
          this.logger.error({ err: error }, "hot reload failed");
        }
      }
    } finally {
      this.draining = null;
    }
  }

  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const run = this.exclusive.then(work, work);
    this.exclusive = run.catch(() => undefined);
    return run;
  }

  private build(revision: number): CatalogSnapshot {
    return buildSnapshot({ dcc: this.dcc, revision, ...this.catalog.parts(), index: this.search });
  }

  async createPlaybook(draft: PlaybookDraft, options?: CreateOptions): Promise<StoreResult> {
    const result = await this.store.create(draft, options);
    if (result.ok) this.showPlaybook(result.playbook.slug, result);
    return result;
  }

  async updatePlaybook(slug: string, patch: PlaybookPatch, expectedRevision?: number, timing?: WriteTiming): Promise<StoreResult> {
    const result = await this.store.update(slug, patch, expectedRevision, timing);
    if (result.ok) this.showPlaybook(slug, result);
    return result;
  }

  /** A new revision equal to an old one (also bringing a deleted playbook back). */
  async restorePlaybook(slug: string, revision: number, expectedRevision?: number, timing?: WriteTiming): Promise<StoreResult> {
    const result = await this.store.restore(slug, revision, expectedRevision, timing);
    if (result.ok) this.showPlaybook(slug, result);
    return result;
  }

  /** A tombstone: the playbook leaves the catalog (search, list, prompts, the page) at once; its history stays. */
  async deletePlaybook(slug: string, expectedRevision?: number, timing?: WriteTiming): Promise<StoreResult> {
    const result = await this.store.remove(slug, expectedRevision, timing);
    if (result.ok) await this.applyChanges({ roots: new Set(), skillDirs: [], privateAll: false, privateSlugs: new Set([slug]) });
    return result;
  }

  /** Flush pending writes (usage counts, queued playbook writes, the parse cache). */
  async flush(): Promise<void> {
    // The cache is written between loads and reload batches, when the set of
    // packs in use is whole; before the first load there is nothing to keep.
    const parsed = this.snapshot === null ? Promise.resolve() : this.serialize(() => this.persistParseCache());
    await Promise.all([this.store.flush(), this.usage.flush(), parsed]);
  }

  /** Flush, then release the store's connections. */
  async close(): Promise<void> {
    await this.flush();
    await this.closeStores();
  }

  /** Never rejects: a cache that cannot be written only costs the next start its speed. */
  private persistParseCache(): Promise<void> {
    return this.parseCache.persist(this.catalog.cacheKeys()).catch((err: unknown) => {
      this.logger.warn({ err: (err as Error).message }, "parse cache not written");
    });
  }

  private showPlaybook(slug: string, result: StoreResult & { ok: true }): void {
    // The catalog remembers the write, so the watcher event it causes is a no-op.
    const recipe = this.catalog.notePlaybookWritten(result.playbook);
    const base = this.snapshot;
    if (base === null) return;
    this.logger.debug({ slug }, "playbook written");
    this.publish(withPlaybook(base, recipe, ++this.revision), { source: "write", visible: true });
  }

  private publish(snapshot: CatalogSnapshot, change: CatalogChange): void {
    const previous = this.snapshot;
    // Index first, then expose: a search that sees revision N finds N's recipes.
    this.search.update([...snapshot.recipes.values()], snapshot.revision);
    this.snapshot = snapshot;
    for (const listener of this.listeners) {
      try {
        listener(snapshot, previous, change);
      } catch (error) {
        this.logger.error({ err: error }, "catalog listener failed");
      }
    }
  }
}
