/** Migrations on a real PostgreSQL: versioned, applied once, concurrent starts take turns, a newer schema is refused. */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { migrate, MIGRATIONS } from "../../../../src/recipes/store/pg/pg-migrations.js";
import { sharedPostgres } from "../../../postgres.js";

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`migration tests skipped: ${cluster}`);

async function withClient<T>(url: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

describe.skipIf(typeof cluster === "string")("playbook store migrations", () => {
  it("apply every version once, recorded in recipe_server_schema, even when replicas start together", async () => {
    if (typeof cluster === "string") return;
    const url = await cluster.createDatabase();
    const outcomes = await Promise.all(Array.from({ length: 4 }, () => withClient(url, (c) => migrate(c))));
    expect(outcomes.map((o) => (o.ok ? o.applied : -1)).sort()).toEqual([0, 0, 0, MIGRATIONS.length]);
    const versions = await withClient(url, async (c) => (await c.query("SELECT version FROM recipe_server_schema ORDER BY 1")).rows);
    expect(versions).toEqual(MIGRATIONS.map((_, i) => ({ version: i + 1 })));
  });

  it("a later version applies on top of the ones applied before", async () => {
    if (typeof cluster === "string") return;
    const url = await cluster.createDatabase();
    await withClient(url, (c) => migrate(c));
    const next = [...MIGRATIONS, "CREATE TABLE recipe_server_extra (id integer)"];
    expect(await withClient(url, (c) => migrate(c, next))).toEqual({ ok: true, applied: 1 });
    // The code that knows only the first version now refuses the database instead of writing to it.
    const refused = await withClient(url, (c) => migrate(c));
    expect(refused).toEqual({
      ok: false,
      message: `the database schema is at version ${next.length}, newer than this recipe-server understands (${MIGRATIONS.length}); upgrade recipe-server or point --store at another database`,
    });
  });

  it("a failing migration leaves nothing half-applied", async () => {
    if (typeof cluster === "string") return;
    const url = await cluster.createDatabase();
    await expect(withClient(url, (c) => migrate(c, [...MIGRATIONS, "CREATE TABLE broken ("]))).rejects.toThrow();
    const tables = await withClient(url, async (c) => (await c.query("SELECT to_regclass('recipe_server_playbooks') AS t")).rows[0]);
    expect(tables).toEqual({ t: null });
  });
});
