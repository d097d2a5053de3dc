/**
 * The private playbook store (docs/tools.md): one Markdown file per playbook in the
 * private dir, written atomically, with updates to one playbook serialized.
 *
 * The files are the truth. Every call looks at the file (a parse is reused
 * only while inode, size and times are unchanged) and every update re-reads
 * it under the per-slug lock, so edits a human made by hand are the base the
 * patch applies to. Two stores on one directory never hand out the same slug:
 * names are claimed with an exclusive hard link.
 *
 * Updates to one playbook are serialized twice: a promise chain per slug
 * queues callers of this store, and a lock file per slug arbitrates between
 * stores (several DCCs sharing one --private-dir, or several processes).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { diagnostic, type Diagnostic } from "../../util/diagnostics.js";
import type { Playbook } from "../types.js";
import { cleanupStaleTempFiles, createFileExclusive, ensurePrivateDir, fsyncDir, isTempFileName, writeFileAtomic } from "./atomic-write.js";
import { acquireFileLock, cleanupStaleLocks, isLockFileName } from "./file-lock.js";
import {
  failure,
  newPlaybook,
  noRevision,
  notFound,
  notRestorable,
  patchedPlaybook,
  restoredPlaybook,
  reusedKey,
  sizeProblem,
  staleRevision,
  type HistoryResult,
  type KeyRecord,
  type LoadAllResult,
  type PlaybookStore,
  type RevisionResult,
  type StoreResult,
  type StoreStatus,
} from "./contract.js";
import { FileHistory } from "./file-history.js";
import { historyPage, liveRecord, withLive, type HistoryWindow, type RevisionRecord } from "./history.js";
import { freezePlaybook } from "./playbook-values.js";
import type { Deadline } from "./deadline.js";
import { serialisePlaybook } from "./format.js";
import { KeyedMutex, mapLimit } from "../../util/concurrency.js";
import type { PlaybookDraft, PlaybookPatch } from "./playbook-values.js";
import { PlaybookFileReader, PRIVATE_SKILL, type ReadOutcome } from "./reader.js";
import { idempotencyHashOf, keyMatch, requestDigestOf, sortedLoad, StoreBase, type StoreBaseOptions } from "./store-base.js";
import { isValidSlug, slugify } from "./slug.js";

export type { PlaybookDraft, PlaybookPatch } from "./playbook-values.js";
export type { StoreResult } from "./contract.js";

/** The subset of a pino logger the store uses; a pino `Logger` fits. */
export interface StoreLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  debug?(fields: Record<string, unknown>, message: string): void;
}

interface PrivateStoreOptions extends StoreBaseOptions {
  readonly dir: string;
  readonly logger?: StoreLogger;
  /** How long an update waits for another process's lock on the same playbook. Default 10 s. */
  readonly lockTimeoutMs?: number;
}

/**
 * The file store: every *.md in the dir is a playbook (hand-written or
 * hand-edited files too); a missing dir is an empty store.
 */
export interface PrivateStore extends PlaybookStore {
  readonly dir: string;
}

const READ_CONCURRENCY = 32;
/** Temp and lock files older than this are treated as abandoned. */
const STALE_TEMP_MS = 60_000;

export function openPrivateStore(options: PrivateStoreOptions): PrivateStore {
  return new FilePrivateStore(options);
}

class FilePrivateStore extends StoreBase implements PrivateStore {
  readonly dir: string;
  private readonly logger: StoreLogger | undefined;
  private readonly lockTimeoutMs: number;
  private readonly reader: PlaybookFileReader;
  /**
   * The revision each playbook had when this store last read or wrote it.
   * Revisions only grow, so an expectedRevision below it is stale without
   * touching the disk; that keeps a herd of retrying callers from queueing a
   * file read each behind every write. A read that finds a lower revision (a
   * human restored an old copy) resets it, so a caller who re-reads can
   * always get through.
   */
  private readonly lastSeen = new Map<string, number>();
  /** Hashed idempotency key → slug, from the files' frontmatter; built by the first loadAll. */
  private keyIndex: Map<string, string> | null = null;
  private readonly keyLocks = new KeyedMutex();
  private readonly hist: FileHistory;

  constructor(options: PrivateStoreOptions) {
    super(options);
    this.dir = path.resolve(options.dir);
    this.logger = options.logger;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
    this.reader = new PlaybookFileReader(this.dir, this.maxFileBytes);
    this.hist = new FileHistory(this.dir, this.maxFileBytes, this.historyLimit);
  }

  status(): StoreStatus {
    return { kind: "file", location: this.dir, ready: true };
  }

  startupProblem(): Promise<string | null> {
    return Promise.resolve(null);
  }

  async loadAll(): Promise<LoadAllResult> {
    let names: string[];
    try {
      names = (await fs.readdir(this.dir, { withFileTypes: true }))
        .filter((entry) => entry.isFile() || entry.isSymbolicLink())
        .map((entry) => entry.name);
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return { playbooks: [], diagnostics: [] };
      return {
        playbooks: [],
        diagnostics: [diagnostic("error", "private_playbook_invalid", `the private playbook directory cannot be read (${errnoCode(error) ?? "error"})`, { skill: PRIVATE_SKILL })],
      };
    }
    await this.removeDebris(names);

    const playbooks: Playbook[] = [];
    const diagnostics: Diagnostic[] = [];
    // Dot-files are editor locks, swap files and our own temp files.
    const markdown = names.filter((name) => name.endsWith(".md") && !name.startsWith(".")).sort();
    const slugs: string[] = [];
    for (const name of markdown) {
      const slug = this.slugFromFile(name);
      if (slug === null) {
        diagnostics.push(
          diagnostic("error", "private_playbook_invalid", `the file name is not a playbook slug (lowercase a-z, 0-9 and single dashes); rename it to ${slugify(name.slice(0, -3))}.md`, { skill: PRIVATE_SKILL, file: name }),
        );
      } else {
        slugs.push(slug);
      }
    }
    const outcomes = await mapLimit(slugs, READ_CONCURRENCY, (slug) => this.read(slug));
    const keys = new Map<string, string>();
    for (const outcome of outcomes) {
      if (outcome.kind === "ok") {
        playbooks.push(outcome.stored.playbook);
        const key = idempotencyHashOf(outcome.stored.extra);
        if (key !== null) keys.set(key, outcome.stored.playbook.slug);
      } else if (outcome.kind === "invalid") diagnostics.push(outcome.diagnostic);
    }
    // Creates that finished while this scan ran are newer than it.
    for (const [key, slug] of this.keyIndex ?? []) keys.set(key, slug);
    this.keyIndex = keys;
    return sortedLoad(playbooks, diagnostics);
  }

  async loadOne(slug: string): Promise<{ playbook: Playbook | null; diagnostic?: Diagnostic }> {
    if (!isValidSlug(slug)) return { playbook: null };
    const outcome = await this.read(slug);
    if (outcome.kind === "ok") return { playbook: outcome.stored.playbook };
    if (outcome.kind === "invalid") return { playbook: null, diagnostic: outcome.diagnostic };
    return { playbook: null };
  }

  protected createChecked(draft: PlaybookDraft, key: KeyRecord | null, deadline: Deadline): Promise<StoreResult> {
    // One create per key at a time, so a retry racing its original waits for it.
    return key === null ? this.doCreate(draft, null, deadline) : this.keyLocks.run(key.hash, () => this.createOnce(draft, key, deadline));
  }

  private async createOnce(draft: PlaybookDraft, key: KeyRecord, deadline: Deadline): Promise<StoreResult> {
    if (this.keyIndex === null) await this.loadAll();
    const slug = this.keyIndex?.get(key.hash);
    if (slug !== undefined) {
      const earlier = await this.read(slug);
      if (earlier.kind === "ok" && idempotencyHashOf(earlier.stored.extra) === key.hash) {
        if (keyMatch(requestDigestOf(earlier.stored.extra), key) === "other") return reusedKey(key.key);
        return { ok: true, playbook: earlier.stored.playbook, replayed: true };
      }
      // The file is gone or was rewritten without the key: the key names nothing now.
      this.keyIndex?.delete(key.hash);
    }
    if (deadline.passed()) return deadline.expired("create");
    const result = await this.doCreate(draft, key, deadline);
    if (result.ok) this.keyIndex?.set(key.hash, result.playbook.slug);
    return result;
  }

  private async doCreate(draft: PlaybookDraft, key: KeyRecord | null, deadline: Deadline): Promise<StoreResult> {
    const plan = this.planCreate(draft, key);
    if ("ok" in plan) return plan;
    // The slug is not part of the file, so one serialisation serves every candidate name.
    const text = serialisePlaybook(plan.first, plan.extra);
    try {
      await ensurePrivateDir(this.dir);
      for (;;) {
        const slug = this.claimSlug(plan.base);
        // A deleted playbook's slug stays its own: its history can still restore it.
        if (await this.hist.exists(slug)) continue;
        let created: boolean | "late";
        try {
          created = await createFileExclusive(this.dir, `${slug}.md`, text, () => !deadline.passed());
        } catch (error) {
          this.unclaim(slug);
          throw error;
        }
        if (created === "late") {
          this.unclaim(slug);
          return deadline.expired("create");
        }
        if (created) {
          this.logger?.debug?.({ slug }, "private playbook created");
          const playbook = newPlaybook(draft, slug, plan.stamp);
          await this.keep({ playbook, event: "create" });
          return { ok: true, playbook };
        }
        // Taken on disk (another store, a human, an earlier run): stays claimed, try the next.
      }
    } catch (error) {
      return this.internal("create", plan.base, error);
    }
  }

  async history(slug: string, window: HistoryWindow): Promise<HistoryResult> {
    if (!isValidSlug(slug)) return notFound(slug);
    try {
      const live = await this.read(slug);
      if (live.kind === "invalid") return malformed(slug, live.diagnostic.message) as HistoryResult;
      const records = withLive(await this.hist.records(slug), live.kind === "ok" ? live.stored.playbook : null);
      if (records.length === 0) return notFound(slug);
      return { ok: true, page: historyPage(records, this.owner, window) };
    } catch (error) {
      return this.internal("read the history of", slug, error) as HistoryResult;
    }
  }

  async loadRevision(slug: string, revision: number): Promise<RevisionResult> {
    if (!isValidSlug(slug)) return notFound(slug);
    try {
      const live = await this.read(slug);
      if (live.kind === "ok" && live.stored.playbook.revision === revision) return { ok: true, playbook: live.stored.playbook, deleted: false };
      const record = await this.hist.read(slug, revision);
      const deleted = live.kind === "missing";
      if (record !== null) return { ok: true, playbook: record.playbook, deleted };
      return live.kind === "missing" && !(await this.hist.exists(slug)) ? notFound(slug) : noRevision(slug, revision);
    } catch (error) {
      return this.internal("read a revision of", slug, error) as RevisionResult;
    }
  }

  protected restoreChecked(slug: string, revision: number, expectedRevision: number | undefined, deadline: Deadline): Promise<StoreResult> {
    return this.locked(slug, "restore", deadline, async () => {
      const live = await this.read(slug);
      if (live.kind === "invalid") return malformed(slug, live.diagnostic.message);
      const kept = await this.hist.revisions(slug);
      if (live.kind === "missing" && kept.length === 0) return notFound(slug);
      const current = live.kind === "ok" ? live.stored.playbook : null;
      const latest = Math.max(current?.revision ?? 0, kept.at(-1) ?? 0) + (current === null && (await this.tombstoneMissing(slug, kept)) ? 1 : 0);
      if (expectedRevision !== undefined && expectedRevision !== latest) return staleRevision(slug, latest, expectedRevision);
      const source = current?.revision === revision ? { playbook: current, event: "update" as const } : await this.hist.read(slug, revision);
      if (source === null) return noRevision(slug, revision);
      if (source.event === "delete") return notRestorable(slug, revision);
      if (live.kind === "ok") await this.hist.ensure(liveRecord(live.stored.playbook));
      const first = kept.length > 0 ? await this.hist.read(slug, kept[0]!) : null;
      const createdAt = current?.createdAt ?? first?.playbook.createdAt ?? source.playbook.createdAt;
      const next = restoredPlaybook(source.playbook, latest, createdAt, this.now().toISOString());
      const extra = live.kind === "ok" ? live.stored.extra : {};
      const tooBig = sizeProblem(next, this.maxFileBytes, extra);
      if (tooBig) return failure("invalid_input", tooBig);
      if (!(await writeFileAtomic(this.dir, `${slug}.md`, serialisePlaybook(next, extra), () => !deadline.passed()))) return deadline.expired("restore");
      this.lastSeen.set(slug, next.revision);
      await this.keep({ playbook: next, event: "restore", restoredFrom: revision });
      return { ok: true, playbook: next };
    });
  }

  protected removeChecked(slug: string, expectedRevision: number | undefined, deadline: Deadline): Promise<StoreResult> {
    return this.locked(slug, "delete", deadline, async () => {
      const live = await this.read(slug);
      if (live.kind === "missing") return notFound(slug);
      if (live.kind === "invalid") return malformed(slug, live.diagnostic.message);
      const current = live.stored.playbook;
      if (expectedRevision !== undefined && expectedRevision !== current.revision) return staleRevision(slug, current.revision, expectedRevision);
      // The content the deletion removes is kept first, so the tombstone can always be undone.
      await this.hist.ensure(liveRecord(live.stored.playbook));
      if (deadline.passed()) return deadline.expired("delete");
      await fs.rm(path.join(this.dir, `${slug}.md`));
      await fsyncDir(this.dir);
      this.lastSeen.delete(slug);
      const tombstone = freezePlaybook({ ...current, updatedAt: this.now().toISOString(), revision: current.revision + 1 });
      await this.keep({ playbook: tombstone, event: "delete" });
      return { ok: true, playbook: tombstone };
    });
  }

  /** Deleted (no live file) and the newest record is not a tombstone: the delete was cut short after the unlink. */
  private async tombstoneMissing(slug: string, kept: readonly number[]): Promise<boolean> {
    const newest = kept.at(-1);
    if (newest === undefined || (await this.read(slug)).kind !== "missing") return false;
    return (await this.hist.read(slug, newest))?.event !== "delete";
  }

  /**
   * Records a revision the live file already holds. Best effort: the write it
   * records is committed, and a record that could not be written now is
   * written from the live file before the next write replaces it.
   */
  private async keep(record: RevisionRecord): Promise<void> {
    try {
      await this.hist.write(record);
    } catch (error) {
      this.logger?.warn({ slug: record.playbook.slug, revision: record.playbook.revision, err: errnoCode(error) }, "playbook revision not recorded in history");
    }
  }

  /** `work` under the playbook's lock file, waiting at most until the deadline. */
  private async locked(slug: string, operation: "update" | "restore" | "delete", deadline: Deadline, work: () => Promise<StoreResult>): Promise<StoreResult> {
    try {
      const wait = Math.min(this.lockTimeoutMs, deadline.remaining());
      const lock = await acquireFileLock(this.dir, `${slug}.md`, { timeoutMs: wait, staleMs: STALE_TEMP_MS });
      if (lock.kind === "missing-dir") return notFound(slug);
      if (lock.kind === "timeout") {
        if (deadline.passed()) return deadline.expired(operation);
        return failure("conflict", `playbook "${slug}" is being written by another process; try again`);
      }
      try {
        return await work();
      } finally {
        await lock.release();
      }
    } catch (error) {
      return this.internal(operation, slug, error);
    }
  }

  protected async updateChecked(slug: string, patch: PlaybookPatch, expectedRevision: number | undefined, deadline: Deadline): Promise<StoreResult> {
    const stale = this.knownStale(slug, expectedRevision);
    if (stale) return stale;
    if (expectedRevision !== undefined) {
      // A stale revision is answered without taking the lock file: at the
      // moment of this read the revision differed, which is all a conflict says.
      // Retrying callers hit this path most, so it costs one stat when the
      // file is unchanged.
      let early: ReadOutcome;
      try {
        early = await this.read(slug);
      } catch (error) {
        return this.internal("update", slug, error);
      }
      if (early.kind === "missing") return notFound(slug);
      if (early.kind === "ok" && early.stored.playbook.revision !== expectedRevision) {
        return staleRevision(slug, early.stored.playbook.revision, expectedRevision);
      }
    }
    return this.locked(slug, "update", deadline, () => this.applyUpdate(slug, patch, expectedRevision, deadline));
  }

  private async applyUpdate(slug: string, patch: PlaybookPatch, expectedRevision: number | undefined, deadline: Deadline): Promise<StoreResult> {
    const current = await this.read(slug);
    if (current.kind === "missing") return notFound(slug);
    if (current.kind === "invalid") {
      return failure("conflict", `${slug}.md is malformed on disk (${current.diagnostic.message}); fix the file by hand before updating it`);
    }
    const { playbook, extra } = current.stored;
    if (expectedRevision !== undefined && expectedRevision !== playbook.revision) {
      return staleRevision(slug, playbook.revision, expectedRevision);
    }
    const next = patchedPlaybook(playbook, patch, this.now().toISOString());
    if (next === null) return { ok: true, playbook };
    const tooBig = sizeProblem(next, this.maxFileBytes, extra);
    if (tooBig) return failure("invalid_input", tooBig);
    // The revision being replaced is kept before it is replaced.
    await this.hist.ensure(liveRecord(current.stored.playbook));
    if (!(await writeFileAtomic(this.dir, `${slug}.md`, serialisePlaybook(next, extra), () => !deadline.passed()))) return deadline.expired("update");
    this.lastSeen.set(slug, next.revision);
    await this.keep({ playbook: next, event: "update" });
    return { ok: true, playbook: next };
  }

  private async read(slug: string): Promise<ReadOutcome> {
    const outcome = await this.reader.read(slug);
    if (outcome.kind === "ok") this.lastSeen.set(slug, outcome.stored.playbook.revision);
    else this.lastSeen.delete(slug);
    return outcome;
  }

  /** A conflict answer when expectedRevision is already known to be stale. */
  protected override knownStale(slug: string, expectedRevision: number | undefined): StoreResult | null {
    const seen = this.lastSeen.get(slug);
    return expectedRevision !== undefined && seen !== undefined && expectedRevision < seen
      ? staleRevision(slug, seen, expectedRevision)
      : null;
  }

  /** Temp and lock files an interrupted writer left behind. */
  private async removeDebris(names: readonly string[]): Promise<void> {
    const temps = names.filter(isTempFileName);
    const locks = names.filter(isLockFileName);
    if (temps.length === 0 && locks.length === 0) return;
    try {
      const removed = await cleanupStaleTempFiles(this.dir, temps, { maxAgeMs: STALE_TEMP_MS, now: Date.now() });
      const locksRemoved = await cleanupStaleLocks(this.dir, locks, STALE_TEMP_MS);
      if (removed.length > 0 || locksRemoved > 0) {
        this.logger?.warn({ tempFiles: removed.length, lockFiles: locksRemoved }, "removed files left by an interrupted playbook write");
      }
    } catch (error) {
      this.logger?.warn({ err: errnoCode(error) }, "could not remove stale playbook temp files");
    }
  }

  private internal(operation: string, slug: string, error: unknown): StoreResult {
    const code = errnoCode(error);
    if (code === undefined) throw error; // not an I/O failure: a bug, let it surface
    this.logger?.warn({ slug, code, operation }, "private playbook write failed");
    return failure("internal", `could not ${operation} private playbook "${slug}" (${code})`);
  }
}

function malformed(slug: string, message: string): StoreResult {
  return failure("conflict", `${slug}.md is malformed on disk (${message}); fix the file by hand before changing it`);
}

function errnoCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === "string" ? code : undefined;
}
