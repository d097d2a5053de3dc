/**
 * The store connection's LISTEN side on a real PostgreSQL: other writers'
 * notices arrive; a killed listening connection is re-established by itself
 * and its subscribers are told to re-read everything (a NOTIFY sent during
 * the gap is lost, the table is not).
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { NOTIFY_CHANNEL, PgConnection, type Notification } from "../../../../src/recipes/store/pg/pg-connection.js";
import { redactStoreUrl } from "../../../../src/util/pg-url.js";
import { sharedPostgres } from "../../../postgres.js";

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`store connection tests skipped: ${cluster}`);

const connections: PgConnection[] = [];
afterAll(async () => {
  await Promise.all(connections.map((c) => c.close()));
});

async function sql(url: string, text: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, params);
  } finally {
    await client.end();
  }
}

describe.skipIf(typeof cluster === "string")("PostgreSQL store connection", () => {
  it("hears other writers, and after its listening connection is killed reconnects and asks for a full re-read", async () => {
    if (typeof cluster === "string") return;
    const url = await cluster.createDatabase();
    const connection = new PgConnection({ url, location: redactStoreUrl(url), retryMs: 50 });
    connections.push(connection);
    expect(await connection.firstAttempt).toBeNull();
    const heard: Array<Notification | "all"> = [];
    connection.subscribe((n) => heard.push(n));

    await sql(url, "SELECT pg_notify($1, $2)", [NOTIFY_CHANNEL, JSON.stringify({ dcc: "maya", owner: "", slug: "from-elsewhere" })]);
    await sql(url, "SELECT pg_notify($1, $2)", [NOTIFY_CHANNEL, "not ours {"]);
    await expect.poll(() => heard.length, { timeout: 5000 }).toBe(1);
    expect(heard[0]).toEqual({ dcc: "maya", owner: "", slug: "from-elsewhere" });

    const dbName = new URL(url).pathname.slice(1);
    const killed = await sql(url, "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN%'", [dbName]);
    expect(killed.rows).toEqual([{ ok: true }]);
    await expect.poll(() => heard.includes("all"), { timeout: 10_000 }).toBe(true);
    expect(connection.status()).toMatchObject({ kind: "postgres", ready: true });
    expect(connection.status().location).not.toContain(":s3cret");

    // Listening again: later notices arrive as before.
    await sql(url, "SELECT pg_notify($1, $2)", [NOTIFY_CHANNEL, JSON.stringify({ dcc: "maya", owner: "", slug: "after" })]);
    await expect.poll(() => heard.some((n) => n !== "all" && n.slug === "after"), { timeout: 5000 }).toBe(true);
  });
});
