/**
 * Usage counts in the recipe_server_usage table, behind the same UsageStore
 * interface as the JSON file. `record` stays synchronous and in memory; each
 * debounced flush adds this replica's new uses to the row (count = count +
 * delta), so replicas add up instead of overwriting each other. `get` answers
 * from memory: the table as read at load plus this replica's uses since.
 */
import { addUses, type UsageEntry, type UsageStore } from "../usage.js";
import { describe, type PgConnection, type PgLogger } from "./pg-connection.js";

export interface PgUsageOptions {
  readonly connection: PgConnection;
  readonly dcc: string;
  readonly now?: () => Date;
  readonly flushDelayMs?: number;
  readonly logger?: PgLogger;
}

export function openPgUsageStore(options: PgUsageOptions): UsageStore {
  return new PgUsageStore(options);
}

class PgUsageStore implements UsageStore {
  private readonly entries = new Map<string, UsageEntry>();
  /** Uses recorded since the last successful flush. */
  private deltas = new Map<string, UsageEntry>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private loading: Promise<void> | undefined;
  private readonly now: () => Date;

  constructor(private readonly options: PgUsageOptions) {
    this.now = options.now ?? (() => new Date());
  }

  record(recipeId: string): void {
    const at = this.now().toISOString();
    this.entries.set(recipeId, { count: (this.entries.get(recipeId)?.count ?? 0) + 1, lastUsedAt: at });
    // PostgreSQL text cannot hold U+0000: such an id (only a hostile pack makes one) is counted in memory only,
    // rather than failing, and so holding back, every batch it is in.
    if (recipeId.includes("\u0000")) return;
    this.deltas.set(recipeId, { count: (this.deltas.get(recipeId)?.count ?? 0) + 1, lastUsedAt: at });
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.flush();
      }, this.options.flushDelayMs ?? 2000);
      this.timer.unref();
    }
  }

  get(recipeId: string): UsageEntry | undefined {
    return this.entries.get(recipeId);
  }

  load(): Promise<void> {
    return (this.loading ??= this.read());
  }

  /** Never rejects: counts that cannot be written now are kept for the next flush. */
  async flush(): Promise<void> {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.writing !== undefined) await this.writing;
    if (this.deltas.size === 0) return;
    const writing = this.write().finally(() => (this.writing = undefined));
    this.writing = writing;
    await writing;
  }

  private async read(): Promise<void> {
    await this.options.connection.firstAttempt;
    try {
      const { rows } = await this.options.connection.pool.query<{ recipe_id: string; count: string; last_used_at: string }>(
        "SELECT recipe_id, count, last_used_at FROM recipe_server_usage WHERE dcc = $1",
        [this.options.dcc],
      );
      for (const row of rows) {
        this.entries.set(row.recipe_id, addUses(this.entries.get(row.recipe_id), { count: Number(row.count), lastUsedAt: row.last_used_at }));
      }
    } catch (error) {
      this.options.logger?.warn({ err: describe(error) }, "usage counts unreadable from the playbook store; counting from zero");
    }
  }

  private async write(): Promise<void> {
    const batch = this.deltas;
    this.deltas = new Map();
    const ids = [...batch.keys()];
    try {
      await this.options.connection.pool.query(
        `INSERT INTO recipe_server_usage (dcc, recipe_id, count, last_used_at)
         SELECT $1, id, n, at FROM unnest($2::text[], $3::bigint[], $4::text[]) AS t(id, n, at)
         ON CONFLICT (dcc, recipe_id) DO UPDATE
           SET count = recipe_server_usage.count + EXCLUDED.count,
               last_used_at = GREATEST(recipe_server_usage.last_used_at, EXCLUDED.last_used_at)`,
        [this.options.dcc, ids, ids.map((id) => batch.get(id)!.count), ids.map((id) => batch.get(id)!.lastUsedAt)],
      );
    } catch (error) {
      // Put them back, added to whatever was recorded meanwhile.
      for (const [id, entry] of batch) this.deltas.set(id, addUses(this.deltas.get(id), entry));
      this.options.logger?.warn({ err: describe(error) }, "usage counts not written to the playbook store; kept for the next flush");
    }
  }
}
