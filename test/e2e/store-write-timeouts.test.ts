/**
 * A write the caller is told failed is never committed: the table-lock probe.
 * A psql-style session holds LOCK TABLE … ACCESS EXCLUSIVE on the playbook
 * table past the daemon's request timeout while agents create and update;
 * every answer is a failure, and once the lock lifts none of those writes is
 * in the table. The store cancels its statements at a deadline below the
 * request timeout (deadline.ts), so the failure is a tool answer that says
 * nothing was written, not a protocol timeout that leaves the write running.
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { sharedPostgres } from "../postgres.js";
import { call, connect, startServer, type RunningServer, type ToolAnswer } from "./harness.js";
import { playbook } from "./playbook-args.js";

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`store write timeout tests skipped: ${cluster}`);

const REQUEST_TIMEOUT_MS = 3000;

const servers: RunningServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

/** A tool answer, or the protocol error a call got instead. */
async function attempt(run: () => Promise<ToolAnswer>): Promise<ToolAnswer | { protocolError: string }> {
  try {
    return await run();
  } catch (error) {
    return { protocolError: (error as Error).message };
  }
}

/** Holds the lock until `release` is called; resolves once the lock is taken. */
async function lockTable(url: string): Promise<{ release(): Promise<void> }> {
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  await holder.query("BEGIN");
  await holder.query("LOCK TABLE recipe_server_playbooks IN ACCESS EXCLUSIVE MODE");
  return {
    async release() {
      await holder.query("COMMIT");
      await holder.end();
    },
  };
}

/** Until no backend but ours is running a statement on the database: whatever the daemon sent has finished. */
async function quiet(url: string): Promise<void> {
  const probe = new pg.Client({ connectionString: url });
  await probe.connect();
  try {
    for (;;) {
      const { rows } = await probe.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'",
      );
      if (Number(rows[0]?.n) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await probe.end();
  }
}

async function rows(url: string): Promise<Array<{ slug: string; revision: number; fields: string }>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ slug: string; revision: number; fields: string }>("SELECT slug, revision, fields FROM recipe_server_playbooks ORDER BY slug")).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(typeof cluster === "string")("write timeouts on the PostgreSQL store", () => {
  it(
    "regression: a write reported as failed is not committed — 6 creates and 6 updates under LOCK TABLE past the request timeout leave 0 rows",
    async () => {
      if (typeof cluster === "string") return;
      const url = await cluster.createDatabase();
      const server = await startServer({ args: ["--store", url, "--request-timeout-ms", String(REQUEST_TIMEOUT_MS)] });
      servers.push(server);
      const client = await connect(server.url);
      try {
        const before = await call(client, "recipe", playbook({ title: "Existing" }));
        expect(before.success).toBe(true);
        const lock = await lockTable(url);
        let answers: Array<ToolAnswer | { protocolError: string }>;
        try {
          answers = await Promise.all([
            ...Array.from({ length: 6 }, (_, i) => attempt(() => call(client, "recipe", playbook({ title: `Locked ${i}`, idempotencyKey: `locked-${i}` })))),
            ...Array.from({ length: 6 }, (_, i) =>
              attempt(() => call(client, "recipe", { action: "update", recipeId: before.context.recipeId, summary: `changed ${i}` })),
            ),
          ]);
          // Held past the request timeout: every call has been answered by now, with the lock still held.
        } finally {
          await lock.release();
        }
        await quiet(url);
        // Every call failed, as a tool answer saying nothing was written (not a protocol timeout).
        for (const answer of answers) {
          expect(answer).toMatchObject({ success: false, error: "not_ready" });
          expect((answer as ToolAnswer).message).toMatch(/nothing was written, so it is safe to send again/);
        }
        const after = await rows(url);
        // 0 of the 12 failed writes committed: only the playbook made before the lock, unchanged.
        expect(after.map((r) => [r.slug, r.revision])).toEqual([["existing", 1]]);
        console.info(`table-lock probe: ${answers.length} failed answers, ${after.length - 1} rows committed after them`);

        // And since nothing was written, retrying the same keys makes each playbook exactly once.
        const retried = await Promise.all(Array.from({ length: 6 }, (_, i) => call(client, "recipe", playbook({ title: `Locked ${i}`, idempotencyKey: `locked-${i}` }))));
        expect(retried.map((r) => r.success)).toEqual(Array.from({ length: 6 }, () => true));
        expect((await rows(url)).length).toBe(7);
      } finally {
        await client.close();
      }
    },
    60_000, // a real daemon and PostgreSQL, and a lock held past a 3 s request timeout
  );
});
