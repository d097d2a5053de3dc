/**
 * The PostgreSQL store under faults, on a cluster of this file's own (it is
 * stopped and restarted, which the run's shared cluster must never be):
 * down at start, restarted mid-run, a replica kill -9'd during writes, and
 * the start-up refusals that exit 2 with one line.
 */
import fs from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../src/recipes/store/pg/pg-migrations.js";
import { PG_PASSWORD, startPostgres, type PostgresCluster } from "../postgres.js";
import { call, connect, eventually, EXAMPLE_SKILLS, makeTempDir, startServer, type RunningServer } from "./harness.js";
import { cli, killDuringKeyedCreates, retryEveryKey } from "./kill-during-creates.js";
import { playbook } from "./playbook-args.js";

const started = await startPostgres();
if (typeof started === "string") console.log(`store fault tests skipped: ${started}`);
const cluster = typeof started === "string" ? null : (started as PostgresCluster);

afterAll(async () => {
  await cluster?.destroy();
});

async function rowsWith(url: string, sql: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as Array<Record<string, unknown>>;
  } finally {
    await client.end();
  }
}

async function readyz(server: RunningServer): Promise<{ ready: boolean; dccs: Array<{ store: { ready: boolean; location: string; problem?: string } }> }> {
  return (await (await fetch(`${server.url}/status`)).json()) as never;
}

describe.skipIf(cluster === null)("PostgreSQL store faults", () => {
  let url: string;
  beforeAll(async () => {
    url = await cluster!.createDatabase();
  });

  it("down at start: the server starts, serves public recipes, answers not_ready naming the store, and recovers by itself", async () => {
    await cluster!.stop();
    const server = await startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--store", url] });
    const client = await connect(server.url);
    try {
      const search = await call(client, "recipe", { action: "search", query: "bevel", visibility: "public" });
      expect(search.success).toBe(true);
      expect(search.context.recipes.length).toBeGreaterThan(0);
      const refused = await call(client, "recipe", playbook({ title: "While down" }));
      expect(refused).toMatchObject({ success: false, error: "not_ready" });
      expect(refused.message).toContain(`postgres://postgres@127.0.0.1:${cluster!.port}/`);
      expect(refused.message).not.toContain(PG_PASSWORD);
      const body = await readyz(server);
      expect(body.dccs[0]!.store).toMatchObject({ ready: false });
      expect(JSON.stringify(body)).not.toContain(PG_PASSWORD);
      expect(await (await fetch(`${server.url}/metrics`)).text()).toMatch(/recipe_server_store_ready\{dcc="maya"\} 0/);

      await cluster!.start();
      await eventually(async () => (await readyz(server)).dccs[0]!.store.ready, 20_000);
      const created = await call(client, "recipe", playbook({ title: "After recovery" }));
      expect(created.success).toBe(true);
    } finally {
      await client.close();
      await server.stop();
    }
  }, 120_000); // real processes and a PostgreSQL restart on a shared machine

  it("restarted mid-run: every acknowledged create is in the table and served again", async () => {
    const server = await startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--store", url] });
    const client = await connect(server.url);
    const acknowledged: string[] = [];
    let refused = 0;
    let stop = false;
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const answer = await call(client, "recipe", playbook({ title: `restart ${w} ${i}` }));
        if (answer.success) acknowledged.push(answer.context.recipeId as string);
        else {
          expect(answer.error).toBe("not_ready");
          refused += 1;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    };
    try {
      const writers = Promise.all([0, 1, 2, 3].map(writer));
      await eventually(() => acknowledged.length >= 20);
      await cluster!.stop();
      await new Promise((r) => setTimeout(r, 500));
      await cluster!.start();
      const afterRestart = acknowledged.length;
      await eventually(() => acknowledged.length >= afterRestart + 20, 20_000);
      stop = true;
      await writers;
      const rows = await rowsWith(url, "SELECT slug FROM recipe_server_playbooks");
      const slugs = new Set(rows.map((r) => `private/${String(r.slug)}`));
      expect(acknowledged.filter((id) => !slugs.has(id))).toEqual([]);
      expect(refused).toBeGreaterThan(0);
      // And the replica's catalog re-synced: each acknowledged one is served.
      for (const id of acknowledged.slice(-5)) expect((await call(client, "recipe", { action: "get", recipeId: id })).success).toBe(true);
    } finally {
      await client.close();
      await server.stop();
    }
  }, 120_000); // real processes and a PostgreSQL restart on a shared machine

  it("a replica kill -9'd during creates: every acknowledged one is there, and retries with the same idempotencyKey make no duplicate", async () => {
    const tmp = await makeTempDir();
    const args = ["--dcc", "maya", "--port", "0", "--embeddings", "none", "--no-watch", "--skills-path", EXAMPLE_SKILLS, "--store", url, "--private-dir", path.join(tmp, "p")];
    const run = await killDuringKeyedCreates(args);
    expect(run.output.stdout).toContain("serving MCP");
    expect(run.output.stdout + run.output.stderr).not.toContain(PG_PASSWORD);

    const survivor = await startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--store", url] });
    const again = await connect(survivor.url);
    try {
      await retryEveryKey(again, run);
      const rows = await rowsWith(url, "SELECT idempotency_key, count(*)::int AS n FROM recipe_server_playbooks WHERE idempotency_key IS NOT NULL GROUP BY 1 HAVING count(*) > 1");
      expect(rows).toEqual([]);
      const kill = await rowsWith(url, "SELECT count(*)::int AS n FROM recipe_server_playbooks WHERE slug LIKE 'kill-test-%'");
      expect(kill[0]!.n).toBe(run.sent.length);
    } finally {
      await again.close();
      await survivor.stop();
      await fs.rm(tmp, { recursive: true, force: true });
    }
  }, 120_000); // real processes and a PostgreSQL restart on a shared machine

  it("wrong credentials, a schema newer than the code, a malformed URL: one line on stderr, exit 2, no password", async () => {
    const base = ["--dcc", "maya", "--port", "0", "--embeddings", "none", "--no-watch", "--skills-path", EXAMPLE_SKILLS];
    const wrong = url.replace(encodeURIComponent(PG_PASSWORD), "not-the-password");
    const badLogin = await cli([...base, "--store", wrong]).exit;
    expect(badLogin.code).toBe(2);
    expect(badLogin.stderr.trim().split("\n")).toHaveLength(1);
    expect(badLogin.stderr).toMatch(/28P01.*password authentication failed/);
    expect(badLogin.stderr).not.toContain("not-the-password");

    const malformed = await cli([...base, "--store", "postgres//user:hunter2@host/db"]).exit;
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain("--store must be a postgres:// URL");
    expect(malformed.stderr).not.toContain("hunter2");

    const newer = await cluster!.createDatabase();
    await rowsWith(newer, "CREATE TABLE recipe_server_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())");
    await rowsWith(newer, "INSERT INTO recipe_server_schema (version) VALUES (99)");
    const tooNew = await cli([...base, "--store", newer]).exit;
    expect(tooNew.code).toBe(2);
    expect(tooNew.stderr).toContain(`schema is at version 99, newer than this recipe-server understands (${MIGRATIONS.length})`);
  }, 120_000); // real processes and a PostgreSQL restart on a shared machine
});
