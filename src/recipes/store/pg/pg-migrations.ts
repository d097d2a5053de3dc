/**
 * The schema, as numbered migrations applied in order on start. The
 * recipe_server_schema table records each applied version; a database at a
 * version this code does not know (a newer server migrated it) is refused, so
 * an old replica never writes rows a newer one reads differently.
 *
 * Playbook fields are kept as one JSON text column: JSON escapes U+0000, which
 * PostgreSQL text and jsonb both refuse, so every string the file store takes
 * is stored here byte-exact too. Times are the ISO strings the tools answer.
 */
import type { ClientBase } from "pg";

export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE recipe_server_playbooks (
     dcc text NOT NULL,
     owner text NOT NULL,
     slug text NOT NULL,
     fields text NOT NULL,
     revision integer NOT NULL CHECK (revision >= 1),
     created_at text NOT NULL,
     updated_at text NOT NULL,
     idempotency_key text,
     PRIMARY KEY (dcc, owner, slug)
   );
   CREATE UNIQUE INDEX recipe_server_playbooks_idempotency
     ON recipe_server_playbooks (dcc, owner, idempotency_key) WHERE idempotency_key IS NOT NULL;
   CREATE TABLE recipe_server_usage (
     dcc text NOT NULL,
     recipe_id text NOT NULL,
     count bigint NOT NULL,
     last_used_at text NOT NULL,
     PRIMARY KEY (dcc, recipe_id)
   );`,
  // An idempotency key remembers the request it answered (a reuse with other fields is a conflict).
  `ALTER TABLE recipe_server_playbooks ADD COLUMN request_digest text;`,
  // History: every write keeps the playbook as it stood after it; a delete is a tombstone (the row stays, flagged).
  `ALTER TABLE recipe_server_playbooks ADD COLUMN deleted boolean NOT NULL DEFAULT false;
   CREATE TABLE recipe_server_playbook_revisions (
     dcc text NOT NULL,
     owner text NOT NULL,
     slug text NOT NULL,
     revision integer NOT NULL CHECK (revision >= 1),
     fields text NOT NULL,
     created_at text NOT NULL,
     updated_at text NOT NULL,
     event text NOT NULL CHECK (event IN ('create', 'update', 'restore', 'delete')),
     restored_from integer,
     PRIMARY KEY (dcc, owner, slug, revision)
   );`,
  // Usage per recipe, user and kind (usage-counts.ts): a column per counter, added to by each batch. The
  // scope is the old table's dcc column ("<dcc>" or "<dcc>:<user>"); its counts, which did not tell kinds
  // apart, are kept as gets.
  `CREATE TABLE recipe_server_recipe_usage (
     scope text NOT NULL,
     recipe_id text NOT NULL,
     user_id text NOT NULL,
     get bigint NOT NULL DEFAULT 0 CHECK (get >= 0),
     apply bigint NOT NULL DEFAULT 0 CHECK (apply >= 0),
     validate_pass bigint NOT NULL DEFAULT 0 CHECK (validate_pass >= 0),
     validate_fail bigint NOT NULL DEFAULT 0 CHECK (validate_fail >= 0),
     run_succeeded bigint NOT NULL DEFAULT 0 CHECK (run_succeeded >= 0),
     run_failed bigint NOT NULL DEFAULT 0 CHECK (run_failed >= 0),
     run_dry_run bigint NOT NULL DEFAULT 0 CHECK (run_dry_run >= 0),
     run_recovered bigint NOT NULL DEFAULT 0 CHECK (run_recovered >= 0),
     run_cancelled bigint NOT NULL DEFAULT 0 CHECK (run_cancelled >= 0),
     last_used_at text NOT NULL,
     PRIMARY KEY (scope, recipe_id, user_id)
   );
   CREATE TABLE recipe_server_usage_batches (
     id uuid PRIMARY KEY,
     applied_at timestamptz NOT NULL DEFAULT now()
   );
   INSERT INTO recipe_server_recipe_usage (scope, recipe_id, user_id, get, last_used_at)
     SELECT dcc, recipe_id, '', count, last_used_at FROM recipe_server_usage;
   DROP TABLE recipe_server_usage;`,
];

type MigrateOutcome = { readonly ok: true; readonly applied: number } | { readonly ok: false; readonly message: string };

// Any constant: replicas starting together take turns migrating.
const MIGRATION_LOCK = 0x72656369;

export async function migrate(client: ClientBase, known: readonly string[] = MIGRATIONS): Promise<MigrateOutcome> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(
      "CREATE TABLE IF NOT EXISTS recipe_server_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const { rows } = await client.query<{ version: number | null }>("SELECT max(version) AS version FROM recipe_server_schema");
    const at = rows[0]?.version ?? 0;
    if (at > known.length) {
      await client.query("ROLLBACK");
      return {
        ok: false,
        message: `the database schema is at version ${at}, newer than this recipe-server understands (${known.length}); upgrade recipe-server or point --store at another database`,
      };
    }
    for (let version = at + 1; version <= known.length; version++) {
      await client.query(known[version - 1]!);
      await client.query("INSERT INTO recipe_server_schema (version) VALUES ($1)", [version]);
    }
    await client.query("COMMIT");
    return { ok: true, applied: known.length - at };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
