/**
 * What the file store (store.ts) and the PostgreSQL store (pg/pg-store.ts)
 * do the same around their own reads and writes: the checks a create or an
 * update passes before it touches either (contract.ts), the slug names this
 * process has tried, the per-slug queue of updates, the writes flush() waits
 * for, and the order loadAll answers in. Each store adds only its storage.
 */
import path from "node:path";
import type { Diagnostic } from "../../util/diagnostics.js";
import type { Playbook } from "../types.js";
import {
  DEFAULT_MAX_FILE_BYTES,
  draftProblem,
  failure,
  hashIdempotencyKey,
  newPlaybook,
  notFound,
  patchProblem,
  requestDigest,
  sizeProblem,
  type CreateOptions,
  type HistoryResult,
  type KeyRecord,
  type RevisionResult,
  type LoadAllResult,
  type PlaybookStore,
  type StoreResult,
  type StoreStatus,
} from "./contract.js";
import { Deadline, type WriteTiming } from "./deadline.js";
import { DEFAULT_HISTORY_LIMIT, MIN_HISTORY_LIMIT, type HistoryWindow } from "./history.js";
import { KeyedMutex } from "../../util/concurrency.js";
import type { PlaybookDraft, PlaybookPatch } from "./playbook-values.js";
import { isValidSlug, slugCandidate, slugify } from "./slug.js";

/**
 * The frontmatter key holding a create's hashed idempotency key: in the file
 * itself, so a kill -9 cannot separate the two. The PostgreSQL store counts
 * the same bytes against the size limit.
 */
const IDEMPOTENCY_FIELD = "idempotencyKey";
/** Beside it, the digest of the create request the key answered. */
const REQUEST_FIELD = "idempotencyRequest";

export interface StoreBaseOptions {
  readonly now?: (() => Date) | undefined;
  /** Largest playbook, measured as its file form, in bytes. Default 1 MiB. */
  readonly maxFileBytes?: number | undefined;
  /**
   * How long a write may take from the start of its request before the store
   * gives up without committing (deadline.ts); null or absent: no limit.
   * The server sets it below its request timeout.
   */
  readonly writeTimeoutMs?: number | null | undefined;
  /** Revisions kept per playbook, newest first (history.ts); default 50, at least 2. */
  readonly historyLimit?: number | undefined;
  /** Whose playbooks (a users-file id; "" for the single user): history names it as each revision's user. */
  readonly owner?: string | undefined;
}

/** A checked create before a slug is picked: the playbook under the title's own slug, and what the file form holds besides. */
interface CreatePlan {
  readonly base: string;
  readonly stamp: string;
  readonly first: Playbook;
  readonly extra: Readonly<Record<string, unknown>>;
}

export abstract class StoreBase implements PlaybookStore {
  protected readonly now: () => Date;
  protected readonly maxFileBytes: number;
  protected readonly writeTimeoutMs: number | null;
  protected readonly historyLimit: number;
  protected readonly owner: string;
  private readonly locks = new KeyedMutex();
  private readonly pending = new Set<Promise<unknown>>();
  /** Slugs this process has created or found taken; concurrent creates of one title here never try the same name. */
  private readonly claimed = new Set<string>();
  private readonly nextSuffix = new Map<string, number>();

  constructor(options: StoreBaseOptions) {
    this.now = options.now ?? (() => new Date());
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.writeTimeoutMs = options.writeTimeoutMs ?? null;
    this.owner = options.owner ?? "";
    this.historyLimit = Math.max(MIN_HISTORY_LIMIT, options.historyLimit ?? DEFAULT_HISTORY_LIMIT);
  }

  abstract status(): StoreStatus;
  abstract startupProblem(): Promise<string | null>;
  abstract loadAll(): Promise<LoadAllResult>;
  abstract loadOne(slug: string): Promise<{ playbook: Playbook | null; diagnostic?: Diagnostic }>;
  /** A create that passed the checks; `key` is its idempotency key as stored. */
  protected abstract createChecked(draft: PlaybookDraft, key: KeyRecord | null, deadline: Deadline): Promise<StoreResult>;
  /** An update that passed the checks, queued behind the other updates of `slug` in this process. */
  protected abstract updateChecked(slug: string, patch: PlaybookPatch, expectedRevision: number | undefined, deadline: Deadline): Promise<StoreResult>;

  create(draft: PlaybookDraft, options?: CreateOptions): Promise<StoreResult> {
    const deadline = Deadline.start(this.writeTimeoutMs, options);
    const problem = draftProblem(draft, options);
    if (problem) return Promise.resolve(failure("invalid_input", problem));
    const key = options?.idempotencyKey;
    const record = key === undefined ? null : { hash: hashIdempotencyKey(key), digest: requestDigest(draft), key };
    return this.track(this.createChecked(draft, record, deadline));
  }

  abstract history(slug: string, window: HistoryWindow): Promise<HistoryResult>;
  abstract loadRevision(slug: string, revision: number): Promise<RevisionResult>;
  protected abstract restoreChecked(slug: string, revision: number, expectedRevision: number | undefined, deadline: Deadline): Promise<StoreResult>;
  protected abstract removeChecked(slug: string, expectedRevision: number | undefined, deadline: Deadline): Promise<StoreResult>;

  restore(slug: string, revision: number, expectedRevision?: number, timing?: WriteTiming): Promise<StoreResult> {
    const deadline = Deadline.start(this.writeTimeoutMs, timing);
    if (!isValidSlug(slug)) return Promise.resolve(notFound(slug));
    if (!Number.isSafeInteger(revision) || revision < 1) return Promise.resolve(failure("invalid_input", "revision must be a positive integer"));
    const problem = patchProblem({}, expectedRevision);
    if (problem) return Promise.resolve(failure("invalid_input", problem));
    return this.queued(slug, deadline, "restore", () => this.restoreChecked(slug, revision, expectedRevision, deadline));
  }

  remove(slug: string, expectedRevision?: number, timing?: WriteTiming): Promise<StoreResult> {
    const deadline = Deadline.start(this.writeTimeoutMs, timing);
    if (!isValidSlug(slug)) return Promise.resolve(notFound(slug));
    const problem = patchProblem({}, expectedRevision);
    if (problem) return Promise.resolve(failure("invalid_input", problem));
    return this.queued(slug, deadline, "delete", () => this.removeChecked(slug, expectedRevision, deadline));
  }

  /** `work` behind the other writes of `slug` in this process, unless the deadline passed while it waited. */
  private queued(slug: string, deadline: Deadline, operation: "update" | "restore" | "delete", work: () => Promise<StoreResult>): Promise<StoreResult> {
    return this.track(this.locks.run(slug, () => (deadline.passed() ? Promise.resolve(deadline.expired(operation)) : work())));
  }

  update(slug: string, patch: PlaybookPatch, expectedRevision?: number, timing?: WriteTiming): Promise<StoreResult> {
    const deadline = Deadline.start(this.writeTimeoutMs, timing);
    if (!isValidSlug(slug)) return Promise.resolve(notFound(slug));
    const problem = patchProblem(patch, expectedRevision);
    if (problem) return Promise.resolve(failure("invalid_input", problem));
    const stale = this.knownStale(slug, expectedRevision);
    if (stale) return Promise.resolve(stale);
    return this.queued(slug, deadline, "update", () => this.updateChecked(slug, patch, expectedRevision, deadline));
  }

  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    await this.locks.idle();
  }

  async close(): Promise<void> {
    await this.flush();
  }

  slugFromFile(fileName: string): string | null {
    // The PostgreSQL store's diagnostics name a row as the file it would be in the file store.
    const base = path.basename(fileName);
    if (!base.endsWith(".md")) return null;
    const stem = base.slice(0, -3);
    return isValidSlug(stem) ? stem : null;
  }

  /** A conflict known without reading the store, answered before the update queues; none by default. */
  protected knownStale(_slug: string, _expectedRevision: number | undefined): StoreResult | null {
    return null;
  }

  /** The size check and the parts every slug candidate shares, or the refusal. */
  protected planCreate(draft: PlaybookDraft, key: KeyRecord | null): CreatePlan | StoreResult {
    const stamp = this.now().toISOString();
    const base = slugify(draft.title);
    const first = newPlaybook(draft, base, stamp);
    const extra = idempotencyExtra(key);
    const tooBig = sizeProblem(first, this.maxFileBytes, extra);
    return tooBig ? failure("invalid_input", tooBig) : { base, stamp, first, extra };
  }

  /** The next name for `base` no create of this process has tried (nor in `taken`); synchronous, so two creates never pick one. */
  protected claimSlug(base: string, taken?: ReadonlySet<string>): string {
    let n = this.nextSuffix.get(base) ?? 1;
    let slug = slugCandidate(base, n);
    while (this.claimed.has(slug) || taken?.has(slug) === true || !isValidSlug(slug)) {
      n += 1;
      slug = slugCandidate(base, n);
    }
    this.claimed.add(slug);
    this.nextSuffix.set(base, n + 1);
    return slug;
  }

  /** A claimed name whose write failed for another reason than being taken: free to try again. */
  protected unclaim(slug: string): void {
    this.claimed.delete(slug);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.pending.add(work);
    const done = (): void => void this.pending.delete(work);
    work.then(done, done);
    return work;
  }
}

/** What the file form holds besides the playbook: the hashed idempotency key of its create and its request's digest, if any. */
export function idempotencyExtra(key: { readonly hash: string; readonly digest: string | null } | null): Readonly<Record<string, unknown>> {
  if (key === null) return {};
  return key.digest === null ? { [IDEMPOTENCY_FIELD]: key.hash } : { [IDEMPOTENCY_FIELD]: key.hash, [REQUEST_FIELD]: key.digest };
}

/**
 * Whether a stored create answers `key`: "same" for a retry of the request
 * it holds the digest of, "other" for a reuse with other fields. A create
 * stored before digests were kept has none and is taken as a retry.
 */
export function keyMatch(storedDigest: string | null, key: KeyRecord): "same" | "other" {
  return storedDigest === null || storedDigest === key.digest ? "same" : "other";
}

/** The request digest a file form holds, if any. */
export function requestDigestOf(extra: Readonly<Record<string, unknown>>): string | null {
  const digest = extra[REQUEST_FIELD];
  return typeof digest === "string" ? digest : null;
}

/** The hashed idempotency key a file form holds, if any. */
export function idempotencyHashOf(extra: Readonly<Record<string, unknown>>): string | null {
  const key = extra[IDEMPOTENCY_FIELD];
  return typeof key === "string" ? key : null;
}

/** loadAll's answer in the contract's order: playbooks by slug, diagnostics by file. */
export function sortedLoad(playbooks: Playbook[], diagnostics: Diagnostic[]): LoadAllResult {
  playbooks.sort((a, b) => compareText(a.slug, b.slug));
  diagnostics.sort((a, b) => compareText(a.file ?? "", b.file ?? ""));
  return { playbooks, diagnostics };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
