/**
 * The playbook store contract: what the catalog and the recipe tool need of
 * wherever private playbooks live. The file store (store.ts, the embedded
 * default) and the PostgreSQL store (pg/pg-store.ts) both implement it and
 * pass one contract test suite (test/recipes/private/contract.test.ts).
 *
 * The store is the one owner of playbook state: the catalog holds only what
 * the store last answered, and re-reads from it on every change signal (a
 * file event, a NOTIFY, a re-sync after a lost connection).
 *
 * The checks both stores must make identically (empty title, text that
 * cannot round-trip, the size limit, stale revisions, the idempotency key)
 * live here so their answers cannot drift apart.
 */
import { createHash } from "node:crypto";
import type { ToolErrorCode } from "../../util/error-codes.js";
import type { Diagnostic } from "../../util/diagnostics.js";
import type { Playbook } from "../types.js";
import type { HistoryPage, HistoryWindow } from "./history.js";
import { serialisePlaybook } from "./format.js";
import { echoed, lengthProblem, PLAYBOOK_LIMITS } from "./limits.js";
import { freezePlaybook, playbookFields, unstorableText, type PlaybookDraft, type PlaybookPatch } from "./playbook-values.js";

/** Store outcomes use the tool table's codes (a subset by type, never a copy). */
type StoreErrorCode = Extract<ToolErrorCode, "not_found" | "conflict" | "invalid_input" | "not_ready" | "internal">;

export type StoreResult =
  | {
      readonly ok: true;
      readonly playbook: Playbook;
      /** A create answered from its idempotency key: the playbook was created by an earlier call. */
      readonly replayed?: boolean;
    }
  | {
      readonly ok: false;
      readonly code: StoreErrorCode;
      readonly message: string;
      /** On a revision conflict: the revision the store holds now. */
      readonly currentRevision?: number;
    };

export type StoreFailure = StoreResult & { ok: false };

export type HistoryResult = { readonly ok: true; readonly page: HistoryPage } | StoreFailure;

/** One kept revision; `deleted` when the playbook is deleted now (its history and revisions stay readable). */
export type RevisionResult = { readonly ok: true; readonly playbook: Playbook; readonly deleted: boolean } | StoreFailure;

export interface StoreStatus {
  readonly kind: "file" | "postgres";
  /** Where, without secrets: a directory, or postgres://user@host:port/db. */
  readonly location: string;
  readonly ready: boolean;
  /** Why not ready (unreachable, schema too new …). */
  readonly problem?: string;
}

/** A change the store learnt of from elsewhere (another replica): re-read these slugs, or everything. */
export type StoreChange = { readonly all: true } | { readonly all: false; readonly slugs: readonly string[] };

export interface LoadAllResult {
  readonly playbooks: Playbook[];
  readonly diagnostics: Diagnostic[];
  /** The store could not be read at all: keep what was loaded before instead of emptying it. */
  readonly unavailable?: boolean;
}

/** What a write is told about its time (deadline.ts): when the request started (performance.now()). */
export interface WriteTiming {
  /** performance.now() when the request reached the tool; default: when the store was called. */
  readonly since?: number;
}

export interface CreateOptions extends WriteTiming {
  /**
   * A retry with the same key and the same fields answers the first create's
   * playbook instead of making another; the same key with other fields is a
   * conflict naming the key.
   */
  readonly idempotencyKey?: string;
}

export interface PlaybookStore {
  readonly status: () => StoreStatus;
  /** Every playbook (sorted by slug); malformed ones → diagnostics; never throws. */
  loadAll(): Promise<LoadAllResult>;
  /** One playbook: null when gone, malformed (with a diagnostic) or the slug is not valid. */
  loadOne(slug: string): Promise<{ playbook: Playbook | null; diagnostic?: Diagnostic }>;
  /** Slug from the title, unique in the store ("bake-normals", "bake-normals-2" …); never overwrites. */
  create(draft: PlaybookDraft, options?: CreateOptions): Promise<StoreResult>;
  /** Applies the patch to what the store holds now and bumps revision; `expectedRevision` mismatch → conflict. */
  update(slug: string, patch: PlaybookPatch, expectedRevision?: number, timing?: WriteTiming): Promise<StoreResult>;
  /** The kept revisions of a playbook, deleted ones included, newest first; not_found when it never existed here. */
  history(slug: string, window: HistoryWindow): Promise<HistoryResult>;
  /** One kept revision (a tombstone's revision answers the content it deleted). */
  loadRevision(slug: string, revision: number): Promise<RevisionResult>;
  /** A new revision equal to `revision`'s content (undeleting a deleted playbook); `expectedRevision` guards it like update. */
  restore(slug: string, revision: number, expectedRevision?: number, timing?: WriteTiming): Promise<StoreResult>;
  /** A tombstone revision: the playbook is not_found from then on, except in its history; restore brings it back. */
  remove(slug: string, expectedRevision?: number, timing?: WriteTiming): Promise<StoreResult>;
  /** Wait for every queued write; used at shutdown. */
  flush(): Promise<void>;
  /** Release connections and timers; after flush. */
  close(): Promise<void>;
  /** A file name in the watched private dir → its slug; null for anything else (and for stores without files). */
  slugFromFile(fileName: string): string | null;
  /** Changes made elsewhere (other replicas); stores whose only writer is a watched directory need not offer it. */
  onChange?(listener: (change: StoreChange) => void): () => void;
  /** Resolves after the first connection attempt: a message when the store can never work as configured (bad credentials, schema too new). */
  startupProblem(): Promise<string | null>;
}

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
const MAX_IDEMPOTENCY_KEY_LENGTH = PLAYBOOK_LIMITS.idempotencyKey;
const PATCH_KEYS = ["title", "summary", "whenToUse", "steps", "acceptanceCriteria", "tags", "document"] as const;

export function failure(code: StoreErrorCode, message: string): StoreResult & { ok: false } {
  return { ok: false, code, message };
}

export function notFound(slug: string): StoreResult & { ok: false } {
  return failure("not_found", `no private playbook "${slug}"`);
}

export function noRevision(slug: string, revision: number): StoreResult & { ok: false } {
  return failure("not_found", `playbook "${slug}" has no kept revision ${revision} (see its history)`);
}

export function notRestorable(slug: string, revision: number): StoreResult & { ok: false } {
  return failure("invalid_input", `revision ${revision} of "${slug}" is a deletion; restore a revision before it`);
}

/** The playbook a restore writes: `source`'s content as the next revision of `latest`. */
export function restoredPlaybook(source: Playbook, latestRevision: number, createdAt: string, stamp: string): Playbook {
  return freezePlaybook({ ...source, createdAt, updatedAt: stamp, revision: latestRevision + 1 });
}

export function staleRevision(slug: string, current: number, expected: number): StoreResult & { ok: false } {
  return {
    ok: false,
    code: "conflict",
    message: `playbook "${slug}" is at revision ${current}, not the expected ${expected}; get it again and reapply the change`,
    currentRevision: current,
  };
}

/** What makes a create invalid before it touches the store. */
export function draftProblem(draft: PlaybookDraft, options: CreateOptions | undefined): string | null {
  if (draft.title === "") return "title must not be empty";
  const key = options?.idempotencyKey;
  if (key !== undefined) {
    if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) return `idempotencyKey must be 1–${MAX_IDEMPOTENCY_KEY_LENGTH} characters`;
    if (/\p{Cs}/u.test(key)) return "idempotencyKey contains an unpaired UTF-16 surrogate";
  }
  return unstorableText(draft) ?? lengthProblem(draft);
}

/** What makes an update invalid before it touches the store. */
export function patchProblem(patch: PlaybookPatch, expectedRevision: number | undefined): string | null {
  if (expectedRevision !== undefined && (!Number.isSafeInteger(expectedRevision) || expectedRevision < 1)) {
    return "expectedRevision must be a positive integer";
  }
  const problem = unstorableText(patch) ?? lengthProblem(patch);
  if (problem) return problem;
  if (patch.title !== undefined && patch.title === "") return "title must not be empty";
  return null;
}

/**
 * The size limit is the file form's size in both stores, so a playbook one
 * store takes the other takes too (a move between them never fails).
 */
export function sizeProblem(playbook: Playbook, maxBytes: number, extra?: Readonly<Record<string, unknown>>): string | null {
  const bytes = Buffer.byteLength(serialisePlaybook(playbook, extra), "utf8");
  return bytes > maxBytes ? `the playbook would take ${bytes} bytes on disk; the limit is ${maxBytes}` : null;
}

export function newPlaybook(draft: PlaybookDraft, slug: string, stamp: string): Playbook {
  return freezePlaybook({
    slug,
    title: draft.title,
    summary: draft.summary,
    whenToUse: draft.whenToUse,
    steps: draft.steps,
    acceptanceCriteria: draft.acceptanceCriteria,
    tags: draft.tags ?? [],
    document: draft.document,
    createdAt: stamp,
    updatedAt: stamp,
    revision: 1,
  });
}

/** The patched playbook, or null when the patch names no field (nothing to write). */
export function patchedPlaybook(current: Playbook, patch: PlaybookPatch, stamp: string): Playbook | null {
  const changes: Partial<Record<(typeof PATCH_KEYS)[number], unknown>> = {};
  for (const key of PATCH_KEYS) {
    if (patch[key] !== undefined) changes[key] = patch[key];
  }
  if (Object.keys(changes).length === 0) return null;
  return freezePlaybook({
    ...current,
    ...(changes as Partial<Playbook>),
    slug: current.slug,
    updatedAt: stamp,
    revision: current.revision + 1,
  });
}

/** Keys are kept hashed: a key may carry a caller's request id, which the store has no reason to hold in clear. */
export function hashIdempotencyKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/**
 * What an idempotency key remembers of the create it answered: a digest of
 * the fields sent (tags defaulted as the store defaults them), so a reuse of
 * the key for another request is told apart from a retry.
 */
export function requestDigest(draft: PlaybookDraft): string {
  return createHash("sha256").update(JSON.stringify(playbookFields(draft)), "utf8").digest("hex");
}

/** The answer to a key reused with other fields: never a success, and never the other request's playbook. */
export function reusedKey(key: string): StoreResult & { ok: false } {
  return failure(
    "conflict",
    `idempotencyKey ${JSON.stringify(echoed(key))} was already used for a create with different fields; send a new key for a new playbook, or the first request's fields unchanged to get its answer again`,
  );
}

/** A create's idempotency key as the stores keep it: hashed, with the digest of its request. */
export interface KeyRecord {
  /** sha256 of the key (the key itself is never stored). */
  readonly hash: string;
  /** requestDigest of the create the key answered. */
  readonly digest: string;
  /** The key as sent, for messages only. */
  readonly key: string;
}
