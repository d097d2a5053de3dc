/**
 * Usage counts in the recipe_server_recipe_usage table (the PostgreSQL half
 * of usage-store.ts): one row per (scope, recipe, user) with a column per
 * counter. A batch is one statement that adds to the rows
 * (`ON CONFLICT … DO UPDATE SET get = t.get + EXCLUDED.get, …`), so
 * replicas add up and no count is ever overwritten. The scope is the DCC, or
 * `<dcc>:<user>` for a user's own playbooks (users file).
 */
import { BufferedUsageStore, type BufferOptions, type UsageStore } from "../usage-store.js";
import { COUNTER_INDEX, emptyTally, USAGE_COUNTERS, type Tally, type UsageRows } from "../usage-counts.js";
import type pg from "pg";
import { describe, type PgConnection } from "./pg-connection.js";

interface PgUsageOptions extends BufferOptions {
  readonly connection: PgConnection;
  readonly scope: string;
}

export function openPgUsageStore(options: PgUsageOptions): UsageStore {
  return new PgUsageStore(options);
}

const TABLE = "recipe_server_recipe_usage";
const COLUMNS = USAGE_COUNTERS.join(", ");
/**
 * One statement: the batch's id is recorded in recipe_server_usage_batches
 * and its rows are added only when the id is new, so a batch retried after a
 * write whose answer was lost (it may have committed) is not added twice.
 */
const UPSERT = `WITH fresh AS (
    INSERT INTO recipe_server_usage_batches (id) VALUES ($${USAGE_COUNTERS.length + 5}::uuid) ON CONFLICT DO NOTHING RETURNING id
  )
  INSERT INTO ${TABLE} (scope, recipe_id, user_id, ${COLUMNS}, last_used_at)
  SELECT $1, t.* FROM unnest($2::text[], $3::text[], ${USAGE_COUNTERS.map((_, i) => `$${i + 4}::bigint[]`).join(", ")}, $${USAGE_COUNTERS.length + 4}::text[])
    AS t(recipe_id, user_id, ${COLUMNS}, last_used_at)
  WHERE EXISTS (SELECT 1 FROM fresh)
  ON CONFLICT (scope, recipe_id, user_id) DO UPDATE SET
    ${USAGE_COUNTERS.map((c) => `${c} = ${TABLE}.${c} + EXCLUDED.${c}`).join(",\n    ")},
    last_used_at = GREATEST(${TABLE}.last_used_at, EXCLUDED.last_used_at)`;

interface UsageRow {
  readonly recipe_id: string;
  readonly user_id: string;
  readonly last_used_at: string;
  readonly [counter: string]: string;
}

class PgUsageStore extends BufferedUsageStore {
  private readonly connection: PgConnection;
  private readonly scope: string;

  constructor(options: PgUsageOptions) {
    super(options);
    this.connection = options.connection;
    this.scope = options.scope;
  }

  /** When batch ids older than a week were last removed (a lost answer's batch is retried on the next flush that reaches the database). */
  private prunedAt = 0;

  protected async writeBatch(batch: UsageRows, batchId: string): Promise<boolean> {
    try {
      await addBatch(this.connection.pool, this.scope, batch, batchId);
      if (Date.now() - this.prunedAt > 3_600_000) {
        this.prunedAt = Date.now();
        await this.connection.pool.query("DELETE FROM recipe_server_usage_batches WHERE applied_at < now() - interval '7 days'").catch(() => undefined);
      }
      return true;
    } catch (error) {
      this.logger?.warn({ err: describe(error), rows: batch.size }, "usage counts not written to the playbook store; kept for the next flush");
      return false;
    }
  }

  protected async readRows(recipeIds: readonly string[] | undefined): Promise<UsageRows | null> {
    const rows = await this.select(
      `SELECT recipe_id, user_id, ${COLUMNS}, last_used_at FROM ${TABLE} WHERE scope = $1${recipeIds === undefined ? "" : " AND recipe_id = ANY($2::text[])"}`,
      recipeIds === undefined ? [this.scope] : [this.scope, recipeIds],
    );
    if (rows === null) return null;
    const out: UsageRows = new Map();
    for (const row of rows) {
      let byUser = out.get(row.recipe_id);
      if (byUser === undefined) out.set(row.recipe_id, (byUser = new Map()));
      byUser.set(row.user_id, tallyOf(row));
    }
    return out;
  }

  protected async readTotals(): Promise<Map<string, Tally> | null> {
    const rows = await this.select(
      `SELECT recipe_id, '' AS user_id, ${USAGE_COUNTERS.map((c) => `sum(${c}) AS ${c}`).join(", ")}, max(last_used_at) AS last_used_at
         FROM ${TABLE} WHERE scope = $1 GROUP BY recipe_id`,
      [this.scope],
    );
    return rows === null ? null : new Map(rows.map((row) => [row.recipe_id, tallyOf(row)]));
  }

  private async select(sql: string, values: unknown[]): Promise<UsageRow[] | null> {
    await this.connection.firstAttempt;
    try {
      return (await this.connection.pool.query<UsageRow>(sql, values)).rows;
    } catch (error) {
      this.logger?.warn({ err: describe(error) }, "usage counts unreadable from the playbook store");
      return null;
    }
  }
}

/** Adds `batch` to the rows of `scope` once: a second call with the same `batchId` adds nothing. */
export async function addBatch(pool: Pick<pg.Pool, "query">, scope: string, batch: UsageRows, batchId: string): Promise<void> {
  const ids: string[] = [];
  const users: string[] = [];
  const counts: number[][] = USAGE_COUNTERS.map(() => []);
  const lasts: string[] = [];
  for (const [id, byUser] of batch) {
    for (const [user, tally] of byUser) {
      ids.push(id);
      users.push(user);
      for (let i = 0; i < counts.length; i++) counts[i]!.push(tally.counts[i]!);
      lasts.push(new Date(tally.last).toISOString());
    }
  }
  await pool.query(UPSERT, [scope, ids, users, ...counts, lasts, batchId]);
}

function tallyOf(row: UsageRow): Tally {
  const tally = emptyTally();
  for (const name of USAGE_COUNTERS) tally.counts[COUNTER_INDEX[name]] = Number(row[name]);
  const last = Date.parse(row.last_used_at);
  tally.last = Number.isNaN(last) ? 0 : last;
  return tally;
}
