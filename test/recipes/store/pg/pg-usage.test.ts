/** Usage counts in PostgreSQL: counts kept by older versions survive the migration, and a replica down for a while loses nothing. */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openStores, type OpenedStores } from "../../../../src/recipes/store/open-store.js";
import { migrate, MIGRATIONS } from "../../../../src/recipes/store/pg/pg-migrations.js";
import { sharedPostgres } from "../../../postgres.js";

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`usage table tests skipped: ${cluster}`);

const opened: OpenedStores[] = [];
afterAll(async () => {
  await Promise.all(opened.map((o) => o.close()));
});

function open(url: string, owner?: string): OpenedStores {
  const stores = openStores({
    dcc: "maya",
    privateDir: "/nonexistent",
    usageFile: "/nonexistent/usage.json",
    storeUrl: url,
    usageFlushMs: 3_600_000,
    ...(owner !== undefined ? { owner } : {}),
  });
  opened.push(stores);
  return stores;
}

async function withClient<T>(url: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

describe.skipIf(typeof cluster === "string")("PostgreSQL usage counts", () => {
  it("counts of the one-count table (before kinds) are kept as gets, a user's under their own scope", async () => {
    if (typeof cluster === "string") return;
    const url = await cluster.createDatabase();
    await withClient(url, async (client) => {
      await migrate(client, MIGRATIONS.slice(0, 3));
      await client.query(
        `INSERT INTO recipe_server_usage (dcc, recipe_id, count, last_used_at) VALUES
           ('maya', 'maya-modeling/bevel', 7, '2026-11-01T00:00:00.000Z'),
           ('maya:alice', 'private/notes', 2, '2026-11-02T00:00:00.000Z')`,
      );
    });
    const shared = open(url);
    await shared.store.startupProblem();
    await shared.usage.load();
    expect(shared.usage.get("maya-modeling/bevel")?.counts[0]).toBe(7);
    shared.usage.record("maya-modeling/bevel", "apply", "bob");
    await shared.usage.flush();
    expect((await shared.usage.read({ user: "bob" })).recipes.get("maya-modeling/bevel")).toMatchObject({
      total: { get: 7, apply: 1 },
      mine: { get: 0, apply: 1 },
    });
    const alice = open(url, "alice");
    await alice.store.startupProblem();
    expect((await alice.usage.read()).recipes.get("private/notes")?.total).toMatchObject({ get: 2, lastUsedAt: "2026-11-02T00:00:00.000Z" });
    expect(await withClient(url, async (c) => (await c.query("SELECT to_regclass('recipe_server_usage') AS t")).rows[0])).toEqual({ t: null });
  });

  it("a batch that cannot be written (database gone) is kept and written once it is back", async () => {
    if (typeof cluster === "string") return;
    const url = await cluster.createDatabase();
    const replica = open(url);
    await replica.store.startupProblem();
    replica.usage.record("s/r", "get");
    // The table is gone for a while (a restore, a DBA's mistake): the write fails, the count stays buffered.
    await withClient(url, (c) => c.query("ALTER TABLE recipe_server_recipe_usage RENAME TO parked"));
    await replica.usage.flush();
    expect(replica.usage.get("s/r")?.counts[0]).toBe(1);
    replica.usage.record("s/r", "get");
    await withClient(url, (c) => c.query("ALTER TABLE parked RENAME TO recipe_server_recipe_usage"));
    await replica.usage.flush();
    const other = open(url);
    await other.store.startupProblem();
    expect((await other.usage.read()).recipes.get("s/r")?.total.get).toBe(2);
  });
});
