/**
 * Watches skill roots and the private playbook directory with chokidar and
 * reports debounced batches of what to re-read (docs/skill-packs.md). It does not read
 * skills itself: a batch names roots to re-list, skill directories to re-read
 * and private files, and the reader goes to disk for the truth. That makes
 * lost, duplicated or reordered events harmless as long as one arrives after
 * the last write, which is what editors' rename/replace, truncate-then-write
 * and chunked saves need.
 *
 * chokidar 4 has no globs and does not notice a watched path that does not
 * exist yet, so missing roots are tracked here: the nearest existing ancestor
 * is watched at depth 0 (only the entry leading to the root), and the root is
 * handed to the main watcher once it appears.
 */
import path from "node:path";
import { watch, type FSWatcher } from "chokidar";
import { PendingChanges, type ChangeBatch } from "./pending-changes.js";
import { classifyPath, directoryIdentity, identityOf, ignoredPath, nearestExisting, skillDirOf, watchTargets, within, type Target } from "./watch-paths.js";

export { classifyPath } from "./watch-paths.js";

export type WatchBatch = ChangeBatch;

export interface WatchLogger {
  debug(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface SkillWatcherOptions {
  /** Skill roots in priority order (absolute or relative to the cwd). */
  readonly roots: readonly string[];
  readonly privateDir?: string | null;
  readonly onBatch: (batch: WatchBatch) => void;
  /** Quiet time before a batch is delivered. Default 50 ms. */
  readonly debounceMs?: number;
  /** A burst that never goes quiet is still delivered after this long. Default 1000 ms. */
  readonly maxWaitMs?: number;
  /**
   * Directory levels watched below a root: root/skill is 1, so the default 6
   * covers root/skill/a/b/c/d/file. Deeper recipe files are still read on any
   * change to their skill, just not noticed on their own.
   */
  readonly depth?: number;
  /**
   * Poll every this many ms instead of listening for file system events:
   * for NFS, SMB and container volumes (k8s ConfigMaps, bind mounts from
   * another host) whose changes inotify never reports. Same debounce and
   * batches. Default null: events.
   */
  readonly pollMs?: number | null;
  readonly logger?: WatchLogger;
}

export interface SkillWatcher {
  /** Resolves once the initial scan is done and changes from now on are seen. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export function watchSkills(options: SkillWatcherOptions): SkillWatcher {
  const roots = options.roots.map((r) => path.resolve(r));
  const privateDir = options.privateDir ? path.resolve(options.privateDir) : null;
  const debounceMs = options.debounceMs ?? 50;
  const maxWaitMs = options.maxWaitMs ?? 1000;
  const depth = options.depth ?? 6;
  const pollMs = options.pollMs ?? null;
  const polling = pollMs === null ? {} : { usePolling: true, interval: pollMs, binaryInterval: pollMs };
  const logger = options.logger;

  const targets = watchTargets(roots, privateDir);

  // ---- batching -----------------------------------------------------------
  const pending = new PendingChanges();
  let quietTimer: NodeJS.Timeout | null = null;
  let firstEventAt = 0;
  let closed = false;

  const flush = (): void => {
    if (quietTimer !== null) clearTimeout(quietTimer);
    quietTimer = null;
    const batch = closed ? null : pending.take();
    if (batch === null) return;
    try {
      options.onBatch(batch);
    } catch (error) {
      logger?.warn({ err: error }, "hot reload batch handler failed");
    }
  };

  const schedule = (): void => {
    const now = Date.now();
    if (pending.size === 1) firstEventAt = now;
    if (quietTimer !== null) clearTimeout(quietTimer);
    const wait = Math.max(0, Math.min(debounceMs, firstEventAt + maxWaitMs - now));
    quietTimer = setTimeout(flush, wait);
  };

  const note = (changed: string): void => {
    if (closed) return;
    const c = classifyPath(roots, privateDir, changed);
    if (c.roots.length === 0 && c.skillDirs.length === 0 && c.privateFile === null && !c.privateAll) return;
    pending.add({ roots: c.roots, skillDirs: c.skillDirs, privateFiles: c.privateFile === null ? [] : [c.privateFile], privateAll: c.privateAll });
    schedule();
  };

  const noteTarget = (target: Target): void => {
    if (target.kind === "private") note(privateDir!);
    else note(roots[target.index]!);
  };

  // ---- skill directories re-created behind chokidar's back ------------------
  /**
   * chokidar 4 drops a second removal of the same path within 100 ms (its
   * 'remove' throttle), and misses a removal whose re-creation lands before
   * it re-reads the root. Either way a skill directory removed and re-created
   * in quick succession (rm -r, mkdir, rm -r, mkdir) stays listed as watched
   * while its watch hangs on the dead directory, and nothing written into the
   * new one is ever reported. So every cue that a root's entry changed names
   * a suspect, and once quiet each suspect's identity is compared with the
   * one chokidar saw (addDir's stats, or ours when we re-watched it). Nothing
   * is stat'ed for skills that never change.
   */
  const skillIdentities = new Map<string, string>();
  const suspects = new Map<string, { readonly watcher: FSWatcher; readonly root: string }>();
  let suspectTimer: NodeJS.Timeout | null = null;
  let firstSuspectAt = 0;
  let skillChecks: Promise<void> = Promise.resolve();

  const suspectSkill = (watcher: FSWatcher, root: string, dir: string): void => {
    if (closed) return;
    const now = Date.now();
    if (suspects.size === 0) firstSuspectAt = now;
    suspects.set(dir, { watcher, root });
    if (suspectTimer !== null) clearTimeout(suspectTimer);
    suspectTimer = setTimeout(checkSuspects, Math.max(0, Math.min(debounceMs, firstSuspectAt + maxWaitMs - now)));
  };

  const checkSuspects = (): void => {
    suspectTimer = null;
    const due = [...suspects];
    suspects.clear();
    skillChecks = skillChecks.then(async () => {
      for (const [dir, { watcher, root }] of due) {
        if (closed || watcher.closed) return;
        const identity = await directoryIdentity(dir);
        if (closed || watcher.closed) return;
        if (identity === null) {
          skillIdentities.delete(dir);
          continue;
        }
        if (skillIdentities.get(dir) === identity) continue;
        rewatchSkill(watcher, root, dir, identity);
      }
    });
  };

  /**
   * Drops chokidar's state for the skill directory the way a removal it saw
   * would (the handles of the directory and of everything under it are closed,
   * so chokidar's per-path handle cache, shared by all instances, keeps none
   * on the dead directory), then adds it back. _remove is typed but internal;
   * chokidar is pinned, and the regression test fails without this.
   */
  const rewatchSkill = (watcher: FSWatcher, root: string, dir: string, identity: string): void => {
    const name = path.basename(dir);
    if (watcher._throttled.get("remove")?.has(path.join(root, name)) === true) {
      // A removal of it within the last 100 ms: this one would be dropped too.
      setTimeout(() => suspectSkill(watcher, root, dir), 100).unref();
      return;
    }
    logger?.debug({ dir }, "skill directory re-created unseen, watching it afresh");
    watcher._remove(root, name, true);
    skillIdentities.set(dir, identity);
    // Internal add: its contents are reported as added (ignoreInitial spares only
    // the start), so the batch that follows names the skill once its watch is
    // in place, and its addDir is checked again like any other. Depth counts
    // from the skill here, one level more than from the root.
    watcher.add(dir, undefined, true);
    note(dir);
  };

  // ---- the main watcher ---------------------------------------------------
  const ignored = ignoredPath(roots, privateDir);

  const makeWatcher = (): FSWatcher => {
    const watcher = watch([], {
      ignoreInitial: true,
      persistent: true,
      followSymlinks: true,
      depth,
      ignored,
      ...polling,
      // Folds an editor's unlink+add (save by rename) into one change.
      atomic: true,
    });
    watcher.on("all", (event, changed, stats) => {
      note(changed);
      const abs = path.resolve(changed);
      if (event === "unlink" || event === "unlinkDir") {
        for (const t of targets.keys()) if (within(t, abs) !== null) checkTarget(t);
      }
      const skill = skillDirOf(roots, abs);
      if (skill !== null) {
        // What chokidar just stat'ed and is about to watch, or no longer watches.
        if (event === "addDir" && stats !== undefined) skillIdentities.set(skill.dir, identityOf(stats));
        else if (event === "unlinkDir") skillIdentities.delete(skill.dir);
        suspectSkill(watcher, skill.root, skill.dir);
      }
    });
    // chokidar reports no unlinkDir for a watched root itself (its parent is not
    // watched), so the root's own fs.watch events are the cue to check on it.
    // The same events name the root's entries that were created, removed or
    // renamed, also those chokidar missed (see suspectSkill).
    watcher.on("raw", (event, name, details: unknown) => {
      const watched = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
      if (typeof watched !== "string") return;
      const abs = path.resolve(watched);
      if (targets.has(abs)) checkTarget(abs);
      if (event !== "rename") return;
      if (typeof name !== "string" || name === "") return;
      // An entry of a root, or a skill directory's own watch telling it went (named by itself).
      const entry = roots.includes(abs) ? path.join(abs, name) : name === path.basename(abs) ? abs : null;
      const skill = entry === null ? null : skillDirOf(roots, entry);
      if (skill !== null && !ignored(skill.dir)) suspectSkill(watcher, skill.root, skill.dir);
    });
    watcher.on("error", (error) => logger?.warn({ err: error }, "file watcher error"));
    return watcher;
  };
  const main = makeWatcher();
  /**
   * A target that went away and came back gets a watcher of its own: chokidar
   * unwatch-then-add of one path on the same instance sometimes left the new
   * directory unwatched (seen as a flaky test), a fresh instance never did.
   */
  const rewatched = new Map<string, { readonly watcher: FSWatcher; readonly identity: string }>();
  const stopWatching = (target: string): void => {
    const own = rewatched.get(target);
    if (own === undefined) main.unwatch(target);
    else {
      rewatched.delete(target);
      void own.watcher.close();
    }
  };
  const watchAfresh = (target: string, identity: string): void => {
    // Both the event-driven check and the missing-root recheck may see the new
    // directory: one watcher per directory identity, never two racing closes.
    if (rewatched.get(target)?.identity === identity) return;
    stopWatching(target);
    const watcher = makeWatcher();
    rewatched.set(target, { watcher, identity });
    watcher.once("ready", () => {
      // Files written before the watch was in place have no event: re-read it whole.
      noteTarget(targets.get(target)!);
      // The directory seen may have been short-lived (rm -r, mkdir, rm -r,
      // mkdir): then this watch hangs on a dead inode or none, and no event of
      // its own would ever tell. Look again now that the watch is in place.
      checkTarget(target);
    });
    watcher.add(target);
  };

  // ---- missing roots --------------------------------------------------------
  const missing = new Set<string>();
  /** The directory each watched target was when its watch was set up. */
  const identities = new Map<string, string>();
  /** Nearest existing ancestors of the missing targets (path → identity): what the sentinel watches. */
  let sentinelPaths = new Map<string, string>();
  let sentinel: FSWatcher | null = null;
  let sentinelReady: Promise<void> = Promise.resolve();
  let rechecking: Promise<void> = Promise.resolve();

  const sentinelIgnored = (p: string): boolean => {
    const abs = path.resolve(p);
    if (sentinelPaths.has(abs)) return false;
    // Only entries on the way to a missing target are interesting.
    for (const m of missing) if (m === abs || within(abs, m) !== null) return false;
    return true;
  };

  /**
   * A fresh sentinel for each new set of ancestors, for the reason targets
   * get fresh watchers: an ancestor unwatched when its root appeared and
   * added back when the root went away again (rm -r, mkdir -p) sometimes
   * stayed unwatched on the same chokidar instance, so the root's return
   * went unnoticed.
   */
  const replaceSentinel = (paths: readonly string[]): void => {
    if (sentinel !== null) void sentinel.close();
    sentinel = null;
    if (paths.length === 0) return;
    const created = watch([], { ignoreInitial: true, persistent: true, depth: 0, ignored: sentinelIgnored, ...polling });
    // Once its watches are in place, look again: whatever was created or
    // removed between the last look and then has no event of its own (this
    // replaces a re-check on a timer that a loaded machine could outrun).
    sentinelReady = new Promise<void>((resolve) =>
      created.once("ready", () => {
        resolve();
        void recheck();
      }),
    );
    created.on("all", () => void recheck());
    // A watched ancestor that is itself removed gets no chokidar event, only a raw one.
    created.on("raw", () => void recheck());
    created.on("error", (error) => logger?.debug({ err: error }, "missing-root watcher error"));
    created.add([...paths]);
    sentinel = created;
  };

  const recheck = (): Promise<void> => {
    rechecking = rechecking.then(async () => {
      if (closed) return;
      const wanted = new Map<string, string>();
      for (const m of [...missing]) {
        const identity = await directoryIdentity(m);
        if (identity !== null) {
          missing.delete(m);
          identities.set(m, identity);
          watchAfresh(m, identity);
          logger?.debug({ target: targets.get(m)?.kind }, "watched directory appeared");
          // Re-read it whole now; watchAfresh reads it once more when the watch is in place.
          noteTarget(targets.get(m)!);
        } else {
          const nearest = await nearestExisting(m);
          wanted.set(nearest.dir, nearest.identity);
        }
      }
      // By identity, not path: an ancestor removed and re-created (rm -r
      // still under way, then mkdir -p) under the same path left the
      // sentinel watching the dead directory, and the root's return unseen.
      const same = wanted.size === sentinelPaths.size && [...wanted].every(([dir, identity]) => sentinelPaths.get(dir) === identity);
      sentinelPaths = wanted;
      if (!same) replaceSentinel([...wanted.keys()]);
    });
    return rechecking;
  };

  const checking = new Set<string>();
  /**
   * Targets cued while a check of theirs was under way. The cue may be the
   * removal that the check's stat came too early to see, and a dead watch
   * sends no second one: such a target is checked once more.
   */
  const cuedAgain = new Set<string>();
  const checkTarget = (target: string): void => {
    if (closed || missing.has(target)) return;
    if (checking.has(target)) {
      cuedAgain.add(target);
      return;
    }
    checking.add(target);
    void directoryIdentity(target).then(async (identity) => {
      checking.delete(target);
      if (cuedAgain.delete(target)) queueMicrotask(() => checkTarget(target));
      if (closed || missing.has(target)) return;
      if (identity !== null) {
        // Removed and re-created before we looked (rm -r + mkdir -p): the old
        // watch hangs on the dead inode, so watch the new directory afresh.
        if (identities.get(target) !== identity) {
          identities.set(target, identity);
          watchAfresh(target, identity);
          noteTarget(targets.get(target)!);
        }
        return;
      }
      // Drop chokidar's state for it: a re-created directory must be watched afresh.
      stopWatching(target);
      missing.add(target);
      logger?.debug({ target: targets.get(target)?.kind }, "watched directory went away");
      noteTarget(targets.get(target)!);
      await recheck();
    });
  };

  // ---- start ------------------------------------------------------------------
  const started = (async () => {
    const present: string[] = [];
    for (const t of targets.keys()) {
      const identity = await directoryIdentity(t);
      if (identity !== null) {
        identities.set(t, identity);
        present.push(t);
      } else missing.add(t);
    }
    const mainReady = present.length === 0 ? Promise.resolve() : new Promise<void>((resolve) => main.once("ready", () => resolve()));
    if (present.length > 0) main.add(present);
    await recheck();
    await Promise.all([mainReady, sentinelReady]);
    // A root removed or replaced while its watch was being set up has no event to tell.
    for (const t of present) checkTarget(t);
    logger?.debug({ watched: present.length, missing: missing.size }, "file watcher ready");
  })();

  return {
    ready: () => started,
    async close() {
      closed = true;
      if (quietTimer !== null) clearTimeout(quietTimer);
      await started.catch(() => undefined);
      await rechecking.catch(() => undefined);
      if (suspectTimer !== null) clearTimeout(suspectTimer);
      await skillChecks.catch(() => undefined);
      await Promise.all([main.close(), sentinel?.close(), ...[...rewatched.values()].map((w) => w.watcher.close())]);
    },
  };
}
