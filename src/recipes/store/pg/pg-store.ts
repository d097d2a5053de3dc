/**
 * The PostgreSQL playbook store: the same contract as the file store, for
 * replicas that share one database. Rows are scoped by DCC and owner.
 *
 * No lost update: an update reads the row, applies the patch, and writes
 * with `WHERE revision = <the revision read>` in the statement that writes;
 * zero rows means another replica wrote first: a conflict naming the current
 * revision. An update without expectedRevision reads the row FOR UPDATE in a
 * transaction instead, so it waits for the other writer rather than failing.
 * Within one replica, updates of one playbook queue (as in the file store),
 * so callers of one process never race each other for the row. No overwrite on
 * create: `INSERT … ON CONFLICT DO NOTHING` claims a slug or tries the next.
 * Every write NOTIFYs in the same statement, so the notice goes out exactly
 * when the row commits.
 */
import type { PoolClient } from "pg";
import type { Diagnostic } from "../../../util/diagnostics.js";
import { diagnostic } from "../../../util/diagnostics.js";
import type { Playbook } from "../../types.js";
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
  type StoreChange,
  type StoreFailure,
  type StoreResult,
  type StoreStatus,
} from "../contract.js";
import { historyPage, liveRecord, REVISION_EVENTS, withLive, type HistoryWindow, type RevisionEvent, type RevisionRecord } from "../history.js";
import type { Deadline } from "../deadline.js";
import { freezePlaybook, playbookFields, type PlaybookDraft, type PlaybookFields, type PlaybookPatch } from "../playbook-values.js";
import { PRIVATE_SKILL } from "../reader.js";
import { isValidSlug } from "../slug.js";
import { idempotencyExtra, keyMatch, sortedLoad, StoreBase, type StoreBaseOptions } from "../store-base.js";
import { describe, isConnectionError, NOTIFY_CHANNEL, type PgConnection, type PgLogger } from "./pg-connection.js";

interface PgStoreOptions extends StoreBaseOptions {
  readonly connection: PgConnection;
  readonly dcc: string;
  /** Whose playbooks; "" when the server has no users file. */
  readonly owner?: string;
  readonly logger?: PgLogger;
}

interface Row {
  slug: string;
  fields: string;
  revision: number;
  created_at: string;
  updated_at: string;
  idempotency_key: string | null;
  request_digest: string | null;
  deleted: boolean;
}

interface RevisionRow {
  slug: string;
  fields: string;
  revision: number;
  created_at: string;
  updated_at: string;
  event: string;
  restored_from: number | null;
  idempotency_key: null;
  request_digest: null;
}

const COLUMNS = "slug, fields, revision, created_at, updated_at, idempotency_key, request_digest, deleted";
const REVISION_COLUMNS = "slug, fields, revision, created_at, updated_at, event, restored_from";

/** SQLSTATEs of a statement the server stopped at our deadline: query_canceled (statement_timeout), lock_not_available (lock_timeout). */
const CANCELLED = new Set(["57014", "55P03"]);

type Operation = "create" | "update" | "restore" | "delete";

export function openPgStore(options: PgStoreOptions): PlaybookStore {
  return new PgPlaybookStore(options);
}

class PgPlaybookStore extends StoreBase {
  private readonly db: PgConnection;
  private readonly dcc: string;
  private readonly logger: PgLogger | undefined;

  constructor(options: PgStoreOptions) {
    super(options);
    this.db = options.connection;
    this.dcc = options.dcc;
    this.logger = options.logger;
  }

  status(): StoreStatus {
    return this.db.status();
  }

  startupProblem(): Promise<string | null> {
    return this.db.firstAttempt;
  }

  onChange(listener: (change: StoreChange) => void): () => void {
    return this.db.subscribe((n) => {
      if (n === "all") listener({ all: true });
      else if (n.dcc === this.dcc && n.owner === this.owner) listener({ all: false, slugs: [n.slug] });
    });
  }

  async loadAll(): Promise<LoadAllResult> {
    await this.db.firstAttempt;
    let rows: Row[];
    try {
      rows = (await this.db.pool.query<Row>(`SELECT ${COLUMNS} FROM recipe_server_playbooks WHERE dcc = $1 AND owner = $2 AND NOT deleted`, [this.dcc, this.owner])).rows;
    } catch (error) {
      if (!isConnectionError(error)) throw error;
      return {
        playbooks: [],
        diagnostics: [diagnostic("error", "private_playbook_invalid", this.db.notReadyMessage(), { skill: PRIVATE_SKILL })],
        unavailable: true,
      };
    }
    const playbooks: Playbook[] = [];
    const diagnostics: Diagnostic[] = [];
    for (const row of rows) {
      const playbook = fromRow(row);
      if (playbook !== null) playbooks.push(playbook);
      else diagnostics.push(badRow(row.slug));
    }
    return sortedLoad(playbooks, diagnostics);
  }

  async loadOne(slug: string): Promise<{ playbook: Playbook | null; diagnostic?: Diagnostic }> {
    if (!isValidSlug(slug)) return { playbook: null };
    const row = await this.select(slug).catch((error: unknown) => {
      if (isConnectionError(error)) return "down" as const;
      throw error;
    });
    // Unreachable reads as malformed, so the catalog keeps the last good copy instead of dropping it.
    if (row === "down") return { playbook: null, diagnostic: diagnostic("error", "private_playbook_invalid", this.db.notReadyMessage(), { skill: PRIVATE_SKILL, file: `${slug}.md` }) };
    if (row === null) return { playbook: null };
    const playbook = fromRow(row);
    return playbook === null ? { playbook: null, diagnostic: badRow(slug) } : { playbook };
  }

  protected createChecked(draft: PlaybookDraft, key: KeyRecord | null, deadline: Deadline): Promise<StoreResult> {
    return this.guard("create", () => this.transaction("create", deadline, (tx) => this.doCreate(tx, draft, key)));
  }

  protected updateChecked(slug: string, patch: PlaybookPatch, expectedRevision: number | undefined, deadline: Deadline): Promise<StoreResult> {
    return this.guard("update", () => this.transaction("update", deadline, (tx) => this.doUpdate(tx, slug, patch, expectedRevision)));
  }

  /**
   * `work` in one transaction whose statements the server cancels at the
   * deadline (statement_timeout and lock_timeout, set for this transaction
   * only); COMMIT is sent only before the deadline. So a write either commits
   * in time or is rolled back and answered as expired: a write the caller was
   * told failed is never in the table afterwards. A failed outcome rolls back.
   */
  private async transaction(operation: Operation, deadline: Deadline, work: (tx: PoolClient) => Promise<StoreResult>): Promise<StoreResult> {
    if (deadline.passed()) return deadline.expired(operation);
    const client = await this.db.pool.connect();
    // A checked-out client whose server goes away emits "error"; unheard it would end the process.
    // The statement in flight rejects too, and that rejection is the answer.
    let broken = false;
    const onError = (): void => {
      broken = true;
    };
    client.on("error", onError);
    let open = false;
    try {
      const left = deadline.remaining();
      if (left <= 0) return deadline.expired(operation);
      // A simple-protocol batch (no parameters): one round trip; the number is ours, an integer.
      const ms = Number.isFinite(left) ? Math.max(1, Math.floor(left)) : 0;
      await client.query(`BEGIN; SET LOCAL statement_timeout = ${ms}; SET LOCAL lock_timeout = ${ms}`);
      open = true;
      const result = await work(client);
      // A refusal or a replayed create wrote nothing: the finally block rolls back.
      if (!result.ok || result.replayed === true) return result;
      if (deadline.passed()) return deadline.expired(operation);
      open = false;
      try {
        await client.query("COMMIT");
      } catch (error) {
        if (!isConnectionError(error)) throw error;
        return outcomeUnknown(operation, this.db.location, error);
      }
      return result;
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (typeof code === "string" && CANCELLED.has(code)) return deadline.expired(operation);
      if (isConnectionError(error)) broken = true;
      throw error;
    } finally {
      if (open && !broken) await client.query("ROLLBACK").catch(() => undefined);
      client.off("error", onError);
      // A broken connection is destroyed rather than handed to the next caller.
      client.release(broken);
    }
  }

  private async doCreate(tx: PoolClient, draft: PlaybookDraft, key: KeyRecord | null): Promise<StoreResult> {
    if (key !== null) {
      const earlier = await this.byKey(tx, key);
      if (earlier !== null) return earlier;
    }
    const plan = this.planCreate(draft, key);
    if ("ok" in plan) return plan;
    const { base, stamp } = plan;
    const fields = JSON.stringify(playbookFields(draft));
    let taken: Set<string> | undefined;
    for (;;) {
      const slug = this.claimSlug(base, taken);
      const inserted = await tx.query(
        `WITH ins AS (
           INSERT INTO recipe_server_playbooks (dcc, owner, slug, fields, revision, created_at, updated_at, idempotency_key, request_digest)
           VALUES ($1, $2, $3, $4, 1, $5, $5, $6, $8) ON CONFLICT DO NOTHING RETURNING slug)
         SELECT pg_notify('${NOTIFY_CHANNEL}', $7) FROM ins`,
        [this.dcc, this.owner, slug, fields, stamp, key?.hash ?? null, this.payload(slug), key?.digest ?? null],
      ).catch((error: unknown) => {
        this.unclaim(slug);
        throw error;
      });
      if (inserted.rowCount === 1) {
        const playbook = newPlaybook(draft, slug, stamp);
        await this.record(tx, { playbook, event: "create" });
        return { ok: true, playbook };
      }
      // Either the slug is taken (it stays claimed) or another call with the same key won the race.
      if (key !== null) {
        const earlier = await this.byKey(tx, key);
        if (earlier !== null) return earlier;
      }
      // One look at every taken name instead of a round trip per name.
      taken ??= await this.takenSlugs(tx, base);
    }
  }

  private async doUpdate(tx: PoolClient, slug: string, patch: PlaybookPatch, expectedRevision: number | undefined): Promise<StoreResult> {
    // Without expectedRevision the row is locked, so the update waits for another writer instead of failing.
    const row = await this.select(slug, tx, expectedRevision === undefined);
    if (row === null) return notFound(slug);
    const current = fromRow(row);
    if (current === null) return failure("conflict", `${slug} is malformed in the store (${badRow(slug).message}); fix the row before updating it`);
    if (expectedRevision !== undefined && current.revision !== expectedRevision) return staleRevision(slug, current.revision, expectedRevision);
    const next = patchedPlaybook(current, patch, this.now().toISOString());
    if (next === null) return { ok: true, playbook: current };
    const stored = row.idempotency_key === null ? null : { hash: row.idempotency_key, digest: row.request_digest };
    const tooBig = sizeProblem(next, this.maxFileBytes, idempotencyExtra(stored));
    if (tooBig) return failure("invalid_input", tooBig);
    // The revision being replaced is kept (rows written before history was kept have no record yet).
    await this.record(tx, liveRecord(current), false);
    const written = await tx.query(
      `WITH upd AS (
         UPDATE recipe_server_playbooks SET fields = $4, revision = revision + 1, updated_at = $5
         WHERE dcc = $1 AND owner = $2 AND slug = $3 AND revision = $6 RETURNING revision)
       SELECT revision, pg_notify('${NOTIFY_CHANNEL}', $7) FROM upd`,
      [this.dcc, this.owner, slug, JSON.stringify(playbookFields(next)), next.updatedAt, current.revision, this.payload(slug)],
    );
    if (written.rowCount === 1) {
      await this.record(tx, { playbook: next, event: "update" });
      return { ok: true, playbook: next };
    }
    // Another replica wrote between the read and this statement.
    const now = await this.select(slug, tx);
    return now === null ? notFound(slug) : staleRevision(slug, now.revision, expectedRevision ?? current.revision);
  }

  private async byKey(tx: PoolClient, key: KeyRecord): Promise<StoreResult | null> {
    const { rows } = await tx.query<Row>(
      `SELECT ${COLUMNS} FROM recipe_server_playbooks WHERE dcc = $1 AND owner = $2 AND idempotency_key = $3`,
      [this.dcc, this.owner, key.hash],
    );
    const row = rows[0];
    const playbook = row === undefined ? null : fromRow(row);
    if (row === undefined || playbook === null) return null;
    if (keyMatch(row.request_digest, key) === "other") return reusedKey(key.key);
    return { ok: true, playbook, replayed: true };
  }

  private async takenSlugs(tx: PoolClient, base: string): Promise<Set<string>> {
    const { rows } = await tx.query<{ slug: string }>(
      "SELECT slug FROM recipe_server_playbooks WHERE dcc = $1 AND owner = $2 AND (slug = $3 OR starts_with(slug, $4))",
      [this.dcc, this.owner, base, `${base}-`],
    );
    return new Set(rows.map((r) => r.slug));
  }

  private async select(slug: string, on: Pick<PoolClient, "query"> = this.db.pool, forUpdate = false, withDeleted = false): Promise<Row | null> {
    const { rows } = await on.query<Row>(
      `SELECT ${COLUMNS} FROM recipe_server_playbooks WHERE dcc = $1 AND owner = $2 AND slug = $3${withDeleted ? "" : " AND NOT deleted"}${forUpdate ? " FOR UPDATE" : ""}`,
      [this.dcc, this.owner, slug],
    );
    return rows[0] ?? null;
  }

  async history(slug: string, window: HistoryWindow): Promise<HistoryResult> {
    if (!isValidSlug(slug)) return notFound(slug);
    return this.reading(async () => {
      const row = await this.select(slug, this.db.pool, false, true);
      if (row === null) return notFound(slug);
      const live = row.deleted ? null : fromRow(row);
      if (!row.deleted && live === null) return failure("conflict", `${slug} is malformed in the store (${badRow(slug).message}); fix the row before reading its history`);
      const records = withLive(await this.records(slug), live);
      return { ok: true, page: historyPage(records, this.owner, window) };
    });
  }

  async loadRevision(slug: string, revision: number): Promise<RevisionResult> {
    if (!isValidSlug(slug)) return notFound(slug);
    return this.reading(async () => {
      const row = await this.select(slug, this.db.pool, false, true);
      if (row === null) return notFound(slug);
      const live = row.deleted ? null : fromRow(row);
      if (live !== null && live.revision === revision) return { ok: true, playbook: live, deleted: false };
      const record = (await this.records(slug, revision))[0];
      return record === undefined ? noRevision(slug, revision) : { ok: true, playbook: record.playbook, deleted: row.deleted };
    });
  }

  protected restoreChecked(slug: string, revision: number, expectedRevision: number | undefined, deadline: Deadline): Promise<StoreResult> {
    return this.guard("restore", () =>
      this.transaction("restore", deadline, async (tx) => {
        const row = await this.select(slug, tx, true, true);
        if (row === null) return notFound(slug);
        if (expectedRevision !== undefined && expectedRevision !== row.revision) return staleRevision(slug, row.revision, expectedRevision);
        const live = row.deleted ? null : fromRow(row);
        const source: RevisionRecord | undefined = live !== null && live.revision === revision ? { playbook: live, event: "update" } : (await this.records(slug, revision, tx))[0];
        if (source === undefined) return noRevision(slug, revision);
        if (source.event === "delete") return notRestorable(slug, revision);
        if (live !== null) await this.record(tx, liveRecord(live), false);
        const next = restoredPlaybook({ ...source.playbook, slug }, row.revision, row.created_at, this.now().toISOString());
        const stored = row.idempotency_key === null ? null : { hash: row.idempotency_key, digest: row.request_digest };
        const tooBig = sizeProblem(next, this.maxFileBytes, idempotencyExtra(stored));
        if (tooBig) return failure("invalid_input", tooBig);
        await this.rewrite(tx, next, row.revision, false);
        await this.record(tx, { playbook: next, event: "restore", restoredFrom: revision });
        return { ok: true, playbook: next };
      }),
    );
  }

  protected removeChecked(slug: string, expectedRevision: number | undefined, deadline: Deadline): Promise<StoreResult> {
    return this.guard("delete", () =>
      this.transaction("delete", deadline, async (tx) => {
        const row = await this.select(slug, tx, true);
        if (row === null) return notFound(slug);
        const current = fromRow(row);
        if (current === null) return failure("conflict", `${slug} is malformed in the store (${badRow(slug).message}); fix the row before deleting it`);
        if (expectedRevision !== undefined && expectedRevision !== current.revision) return staleRevision(slug, current.revision, expectedRevision);
        await this.record(tx, liveRecord(current), false);
        const tombstone = freezePlaybook({ ...current, updatedAt: this.now().toISOString(), revision: current.revision + 1 });
        await this.rewrite(tx, tombstone, current.revision, true);
        await this.record(tx, { playbook: tombstone, event: "delete" });
        return { ok: true, playbook: tombstone };
      }),
    );
  }

  /** The row as `next` (its revision follows `from`, which the row holds: the row is locked FOR UPDATE), with the notice. */
  private async rewrite(tx: PoolClient, next: Playbook, from: number, deleted: boolean): Promise<void> {
    const written = await tx.query(
      `WITH upd AS (
         UPDATE recipe_server_playbooks SET fields = $4, revision = $5, updated_at = $6, deleted = $7
         WHERE dcc = $1 AND owner = $2 AND slug = $3 AND revision = $8 RETURNING revision)
       SELECT revision, pg_notify('${NOTIFY_CHANNEL}', $9) FROM upd`,
      [this.dcc, this.owner, next.slug, JSON.stringify(playbookFields(next)), next.revision, next.updatedAt, deleted, from, this.payload(next.slug)],
    );
    if (written.rowCount !== 1) throw new Error(`playbook row ${next.slug} changed under its row lock`);
  }

  /** Keeps one revision (replacing a record of the same number unless `replace` is false), then drops what falls past the limit. */
  private async record(tx: PoolClient, record: RevisionRecord, replace = true): Promise<void> {
    const p = record.playbook;
    await tx.query(
      `INSERT INTO recipe_server_playbook_revisions (dcc, owner, slug, revision, fields, created_at, updated_at, event, restored_from)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (dcc, owner, slug, revision) DO ${replace ? "UPDATE SET fields = EXCLUDED.fields, updated_at = EXCLUDED.updated_at, event = EXCLUDED.event, restored_from = EXCLUDED.restored_from" : "NOTHING"}`,
      [this.dcc, this.owner, p.slug, p.revision, JSON.stringify(playbookFields(p)), p.createdAt, p.updatedAt, record.event, record.restoredFrom ?? null],
    );
    if (replace) {
      await tx.query("DELETE FROM recipe_server_playbook_revisions WHERE dcc = $1 AND owner = $2 AND slug = $3 AND revision <= $4", [
        this.dcc,
        this.owner,
        p.slug,
        p.revision - this.historyLimit,
      ]);
    }
  }

  /** Kept records of `slug` (one revision, or all), oldest first; rows this code cannot read are left out. */
  private async records(slug: string, revision?: number, on: Pick<PoolClient, "query"> = this.db.pool): Promise<RevisionRecord[]> {
    const { rows } = await on.query<RevisionRow>(
      `SELECT ${REVISION_COLUMNS} FROM recipe_server_playbook_revisions WHERE dcc = $1 AND owner = $2 AND slug = $3${revision === undefined ? "" : " AND revision = $4"} ORDER BY revision`,
      revision === undefined ? [this.dcc, this.owner, slug] : [this.dcc, this.owner, slug, revision],
    );
    const out: RevisionRecord[] = [];
    for (const row of rows) {
      const playbook = fromRow({ ...row, idempotency_key: null, request_digest: null, deleted: false });
      if (playbook === null) continue;
      const event = REVISION_EVENTS.includes(row.event as RevisionEvent) ? (row.event as RevisionEvent) : "update";
      out.push({ playbook, event, ...(row.restored_from !== null ? { restoredFrom: row.restored_from } : {}) });
    }
    return out;
  }

  /** A read that answers not_ready while the database is unreachable. */
  private async reading<T>(work: () => Promise<T>): Promise<T | StoreFailure> {
    if (this.db.isFatal()) return failure("not_ready", this.db.notReadyMessage());
    try {
      return await work();
    } catch (error) {
      if (!isConnectionError(error)) throw error;
      return failure("not_ready", this.db.notReadyMessage());
    }
  }

  private payload(slug: string): string {
    return JSON.stringify({ dcc: this.dcc, owner: this.owner, slug });
  }

  /** A database that is not there answers not_ready naming the store; a bad statement is a bug and throws. */
  private async guard(operation: string, work: () => Promise<StoreResult>): Promise<StoreResult> {
    if (this.db.isFatal()) return failure("not_ready", this.db.notReadyMessage());
    try {
      return await work();
    } catch (error) {
      if (!isConnectionError(error)) throw error;
      this.logger?.warn({ store: this.db.location, operation, err: describe(error) }, "playbook store write failed");
      return failure("not_ready", `the playbook store ${this.db.location} is unreachable (${describe(error)}); try again shortly`);
    }
  }
}

/** A row as a playbook; null when its fields are not what this code writes (edited by hand in SQL). */
function fromRow(row: Row): Playbook | null {
  let f: Partial<PlaybookFields>;
  try {
    f = JSON.parse(row.fields) as Partial<PlaybookFields>;
  } catch {
    return null;
  }
  const isText = (v: unknown): v is string => typeof v === "string";
  const texts = (v: unknown): v is string[] => Array.isArray(v) && v.every(isText);
  const steps = f.steps;
  if (!isText(f.title) || f.title === "" || !isText(f.summary) || !isText(f.whenToUse) || !isText(f.document)) return null;
  if (!texts(f.acceptanceCriteria) || !texts(f.tags) || !Array.isArray(steps) || !steps.every((s) => isText(s?.title) && isText(s?.detail))) return null;
  return freezePlaybook({
    slug: row.slug,
    title: f.title,
    summary: f.summary,
    whenToUse: f.whenToUse,
    steps,
    acceptanceCriteria: f.acceptanceCriteria,
    tags: f.tags,
    document: f.document,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    revision: row.revision,
  });
}

function badRow(slug: string): Diagnostic {
  return diagnostic("error", "private_playbook_invalid", "the stored fields are not a playbook (edited outside recipe-server?)", { skill: PRIVATE_SKILL, file: `${slug}.md` });
}

/** A COMMIT whose answer was lost with the connection: it may or may not have landed, and the caller is told how to find out. */
function outcomeUnknown(operation: Operation, location: string, error: unknown): StoreResult {
  const check =
    operation === "create"
      ? "send the create again with the same idempotencyKey: if it was stored, that answers it instead of making another"
      : "get the playbook and compare its revision with the one you updated";
  return failure("not_ready", `the connection to the playbook store ${location} was lost while the ${operation} was committing (${describe(error)}), so whether it was stored is unknown; ${check}`);
}
