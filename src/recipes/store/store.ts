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
import { mapLimit } from "../../util/map-limit.js";
import type { Playbook } from "../types.js";
import { cleanupStaleTempFiles, createFileExclusive, ensurePrivateDir, isTempFileName, writeFileAtomic } from "./atomic-write.js";
import { acquireFileLock, cleanupStaleLocks, isLockFileName } from "./file-lock.js";
import { failure, newPlaybook, notFound, patchedPlaybook, sizeProblem, staleRevision, type LoadAllResult, type PlaybookStore, type StoreResult, type StoreStatus } from "./contract.js";
import { serialisePlaybook } from "./format.js";
import { KeyedMutex } from "./keyed-mutex.js";
import type { PlaybookDraft, PlaybookPatch } from "./playbook-values.js";
import { PlaybookFileReader, PRIVATE_SKILL, type ReadOutcome } from "./reader.js";
import { idempotencyHashOf, sortedLoad, StoreBase, type StoreBaseOptions } from "./store-base.js";
import { isValidSlug, slugify } from "./slug.js";

export type { PlaybookDraft, PlaybookPatch } from "./playbook-values.js";
export type { StoreResult } from "./contract.js";

/** The subset of a pino logger the store uses; a pino `Logger` fits. */
export interface StoreLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  debug?(fields: Record<string, unknown>, message: string): void;
}

export interface PrivateStoreOptions extends StoreBaseOptions {
  readonly dir: string;
  readonly logger?: StoreLogger;
  /** Temp and lock files older than this are treated as abandoned. Default 60 s. */
  readonly staleTempMs?: number;
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

export function openPrivateStore(options: PrivateStoreOptions): PrivateStore {
  return new FilePrivateStore(options);
}

class FilePrivateStore extends StoreBase implements PrivateStore {
  readonly dir: string;
  private readonly logger: StoreLogger | undefined;
  private readonly staleTempMs: number;
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

  constructor(options: PrivateStoreOptions) {
    super(options);
    this.dir = path.resolve(options.dir);
    this.logger = options.logger;
    this.staleTempMs = options.staleTempMs ?? 60_000;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
    this.reader = new PlaybookFileReader(this.dir, this.maxFileBytes);
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

  protected createChecked(draft: PlaybookDraft, hash: string | null): Promise<StoreResult> {
    // One create per key at a time, so a retry racing its original waits for it.
    return hash === null ? this.doCreate(draft, null) : this.keyLocks.run(hash, () => this.createOnce(draft, hash));
  }

  private async createOnce(draft: PlaybookDraft, hash: string): Promise<StoreResult> {
    if (this.keyIndex === null) await this.loadAll();
    const slug = this.keyIndex?.get(hash);
    if (slug !== undefined) {
      const earlier = await this.read(slug);
      if (earlier.kind === "ok" && idempotencyHashOf(earlier.stored.extra) === hash) {
        return { ok: true, playbook: earlier.stored.playbook, replayed: true };
      }
      // The file is gone or was rewritten without the key: the key names nothing now.
      this.keyIndex?.delete(hash);
    }
    const result = await this.doCreate(draft, hash);
    if (result.ok) this.keyIndex?.set(hash, result.playbook.slug);
    return result;
  }

  private async doCreate(draft: PlaybookDraft, hash: string | null): Promise<StoreResult> {
    const plan = this.planCreate(draft, hash);
    if ("ok" in plan) return plan;
    // The slug is not part of the file, so one serialisation serves every candidate name.
    const text = serialisePlaybook(plan.first, plan.extra);
    try {
      await ensurePrivateDir(this.dir);
      for (;;) {
        const slug = this.claimSlug(plan.base);
        let created: boolean;
        try {
          created = await createFileExclusive(this.dir, `${slug}.md`, text);
        } catch (error) {
          this.unclaim(slug);
          throw error;
        }
        if (created) {
          this.logger?.debug?.({ slug }, "private playbook created");
          return { ok: true, playbook: newPlaybook(draft, slug, plan.stamp) };
        }
        // Taken on disk (another store, a human, an earlier run): stays claimed, try the next.
      }
    } catch (error) {
      return this.internal("create", plan.base, error);
    }
  }

  protected async updateChecked(slug: string, patch: PlaybookPatch, expectedRevision: number | undefined): Promise<StoreResult> {
    const stale = this.knownStale(slug, expectedRevision);
    if (stale) return stale;
    try {
      if (expectedRevision !== undefined) {
        // A stale revision is answered without taking the lock file: at the
        // moment of this read the revision differed, which is all a conflict says.
        // Retrying callers hit this path most, so it costs one stat when the
        // file is unchanged.
        const early = await this.read(slug);
        if (early.kind === "missing") return notFound(slug);
        if (early.kind === "ok" && early.stored.playbook.revision !== expectedRevision) {
          return staleRevision(slug, early.stored.playbook.revision, expectedRevision);
        }
      }
      const lock = await acquireFileLock(this.dir, `${slug}.md`, { timeoutMs: this.lockTimeoutMs, staleMs: this.staleTempMs });
      if (lock.kind === "missing-dir") return notFound(slug);
      if (lock.kind === "timeout") {
        return failure("conflict", `playbook "${slug}" is being written by another process; try again`);
      }
      try {
        return await this.applyUpdate(slug, patch, expectedRevision);
      } finally {
        await lock.release();
      }
    } catch (error) {
      return this.internal("update", slug, error);
    }
  }

  private async applyUpdate(slug: string, patch: PlaybookPatch, expectedRevision: number | undefined): Promise<StoreResult> {
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
    await writeFileAtomic(this.dir, `${slug}.md`, serialisePlaybook(next, extra));
    this.lastSeen.set(slug, next.revision);
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
      const removed = await cleanupStaleTempFiles(this.dir, temps, { maxAgeMs: this.staleTempMs, now: Date.now() });
      const locksRemoved = await cleanupStaleLocks(this.dir, locks, this.staleTempMs);
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

function errnoCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === "string" ? code : undefined;
}
