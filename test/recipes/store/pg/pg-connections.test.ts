/**
 * The process's shared store connections on a real PostgreSQL: one
 * connection per URL however many stores hold it, each store still hearing
 * only its own owner's rows, and the last release closing it.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { openStores } from "../../../../src/recipes/store/open-store.js";
import { PgConnections } from "../../../../src/recipes/store/pg/pg-connections.js";
import { sharedPostgres } from "../../../postgres.js";

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`shared store connection tests skipped: ${cluster}`);

async function backends(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
    );
    return Number(rows[0]?.n);
  } finally {
    await client.end();
  }
}

const storeOf = (connections: PgConnections, url: string, owner: string) =>
  openStores({ dcc: "maya", privateDir: "/nonexistent", usageFile: "/nonexistent/usage.json", storeUrl: url, owner, connections });

describe.skipIf(typeof cluster === "string")("shared PostgreSQL store connections", () => {
  it("stores naming one URL share one connection, hear only their owner's writes, and the last close releases it", async () => {
    if (typeof cluster === "string") return;
    const [url, other] = await Promise.all([cluster.createDatabase(), cluster.createDatabase()]);
    const connections = new PgConnections();
    const alice = storeOf(connections, url, "alice");
    const bob = storeOf(connections, url, "bob");
    const elsewhere = storeOf(connections, other, "alice");
    expect(connections.size()).toBe(2);
    expect(await Promise.all([alice.store.startupProblem(), bob.store.startupProblem(), elsewhere.store.startupProblem()])).toEqual([null, null, null]);

    const heardByBob: unknown[] = [];
    bob.store.onChange?.((change) => heardByBob.push(change));
    const heardByAlice: unknown[] = [];
    alice.store.onChange?.((change) => heardByAlice.push(change));
    const made = await alice.store.create({ title: "Only alice's", summary: "s", whenToUse: "w", steps: [{ title: "One", detail: "d" }], acceptanceCriteria: ["done"], document: "" });
    expect(made.ok).toBe(true);
    await expect.poll(() => heardByAlice.length, { timeout: 5000 }).toBeGreaterThan(0);
    expect(heardByBob).toEqual([]);

    await alice.close();
    await alice.close(); // a second close releases nothing more
    expect(connections.size()).toBe(2);
    expect(bob.store.status().ready).toBe(true);
    await bob.close();
    expect(connections.size()).toBe(1);
    await expect.poll(() => backends(url), { timeout: 5000 }).toBe(0);
    await elsewhere.close();
    expect(connections.size()).toBe(0);

    // Opened again after the last release: a fresh connection, not the closed one.
    const again = storeOf(connections, url, "alice");
    expect(await again.store.startupProblem()).toBeNull();
    expect(again.store.status().ready).toBe(true);
    await again.close();
  }, 30_000);
});
