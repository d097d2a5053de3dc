/**
 * Regression (users on PostgreSQL opened one pool and one LISTEN client per
 * user, so connections grew as replicas × users): measured on the server
 * side, in pg_stat_activity for the test's own database, while several
 * users make their first calls through the real SDK client.
 */
import fs from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { hashToken } from "../../src/server/transport/users.js";
import { sharedPostgres } from "../postgres.js";
import { call, connect, EXAMPLE_SKILLS, makeTempDir, startServer } from "./harness.js";
import { playbook } from "./playbook-args.js";

const USERS = 10;
/** PgConnection's default pool size: with sharing, one pool of at most this many plus one LISTEN client. */
const POOL_MAX = 8;

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`shared-connection tests skipped: ${cluster}`);

const token = (i: number): string => `artist-${i}-token-0123456789`;
const bearer = (t: string): Record<string, string> => ({ authorization: `Bearer ${t}` });

/** The server's connections to `url`'s database (not this probe's own): all, and those LISTENing. */
async function serverConnections(url: string): Promise<{ total: number; listening: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ total: string; listening: string }>(
      `SELECT count(*) AS total, count(*) FILTER (WHERE query ILIKE 'LISTEN %') AS listening
         FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
    );
    return { total: Number(rows[0]?.total), listening: Number(rows[0]?.listening) };
  } finally {
    await client.end();
  }
}

describe.skipIf(typeof cluster === "string")("users on PostgreSQL share one connection", () => {
  it(`${USERS} users open one pool and one LISTEN; closing the server releases every connection`, async () => {
    if (typeof cluster === "string") return;
    const dir = await makeTempDir();
    const file = path.join(dir, "users.json");
    const ids = Array.from({ length: USERS }, (_, i) => `artist${i}`);
    await fs.writeFile(file, JSON.stringify({ users: ids.map((id, i) => ({ id, tokenSha256: hashToken(token(i)) })) }));
    const url = await cluster.createDatabase();
    expect(await serverConnections(url)).toEqual({ total: 0, listening: 0 });
    const args = ["--users-file", file, "--stateless", "--store", url];
    const [a, b] = await Promise.all([startServer({ skillsPaths: [EXAMPLE_SKILLS], args }), startServer({ skillsPaths: [EXAMPLE_SKILLS], args })]);
    const clients: Client[] = [];
    let stopped = false;
    try {
      await a.server.ready();
      await b.server.ready();
      const before = await serverConnections(url);
      expect(before.listening).toBe(2); // one per replica, for the DCC libraries

      for (let i = 0; i < USERS; i += 1) {
        const client = await connect(a.url, "/mcp", bearer(token(i)));
        clients.push(client);
        expect((await call(client, "recipe", { action: "search", query: "anything", visibility: "private" })).success).toBe(true);
      }
      const after = await serverConnections(url);
      // Before the fix: a pool and a LISTEN client per user, 2 × 10 + the DCC's own on replica A alone.
      expect(after.listening).toBe(2);
      expect(after.total).toBeLessThanOrEqual(2 * (POOL_MAX + 1));
      expect(after.total - before.total).toBeLessThanOrEqual(POOL_MAX);

      // Sharing a connection shares no rows: A's write on replica 1 reaches A on replica 2, not B.
      const [aliceA, aliceB, bobB] = await Promise.all([
        Promise.resolve(clients[0] as Client),
        connect(b.url, "/mcp", bearer(token(0))),
        connect(b.url, "/mcp", bearer(token(1))),
      ]);
      clients.push(aliceB, bobB);
      expect((await call(aliceB, "recipe", { action: "search", query: "anything" })).success).toBe(true);
      const made = await call(aliceA, "recipe", playbook({ title: "Shared pool alice playbook" }));
      expect(made.success).toBe(true);
      const found = async (client: Client): Promise<string[]> =>
        ((await call(client, "recipe", { action: "search", query: "shared pool alice playbook", visibility: "private" })).context?.recipes ?? []).map(
          (r: { recipeId: string }) => r.recipeId,
        );
      await expect.poll(() => found(aliceB), { timeout: 10_000 }).toContain(made.context.recipeId);
      expect(await found(bobB)).not.toContain(made.context.recipeId);
      expect((await call(bobB, "recipe", { action: "get", recipeId: made.context.recipeId })).error).toBe("not_found");
      expect((await serverConnections(url)).listening).toBe(2);

      await Promise.all(clients.map((c) => c.close()));
      clients.length = 0;
      await Promise.all([a.stop(), b.stop()]);
      stopped = true;
      await expect.poll(() => serverConnections(url), { timeout: 5000 }).toEqual({ total: 0, listening: 0 });
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      if (!stopped) await Promise.all([a.stop(), b.stop()]);
      await fs.rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
