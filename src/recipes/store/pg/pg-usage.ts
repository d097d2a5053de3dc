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
import { describe, type PgConnection } from "./pg-connection.js";

export interface PgUsageOptions extends BufferOptions {
  readonly connection: PgConnection;
  readonly scope: string;
}

export function openPgUsageStore(options: PgUsageOptions): UsageStore {
  return new PgUsageStore(options);
}

const TABLE = "recipe_server_recipe_usage";
const COLUMNS = USAGE_COUNTERS.join(", ");
const UPSERT = `INSERT INTO ${TABLE} (scope, recipe_id, user_id, ${COLUMNS}, last_used_at)
  SELECT $1, t.* FROM unnest($2::text[], $3::text[], ${USAGE_COUNTERS.map((_, i) => `$${i + 4}::bigint[]`).join(", ")}, $${USAGE_COUNTERS.length + 4}::text[])
    AS t(recipe_id, user_id, ${COLUMNS}, last_used_at)
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

  protected async writeBatch(batch: UsageRows): Promise<boolean> {
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
    try {
      await this.connection.pool.query(UPSERT, [this.scope, ids, users, ...counts, lasts]);
      return true;
    } catch (error) {
      this.logger?.warn({ err: describe(error), rows: ids.length }, "usage counts not written to the playbook store; kept for the next flush");
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

function tallyOf(row: UsageRow): Tally {
  const tally = emptyTally();
  for (const name of USAGE_COUNTERS) tally.counts[COUNTER_INDEX[name]] = Number(row[name]);
  const last = Date.parse(row.last_used_at);
  tally.last = Number.isNaN(last) ? 0 : last;
  return tally;
}
