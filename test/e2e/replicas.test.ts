/**
 * Two replicas on one PostgreSQL store (the run's shared cluster), driven by
 * the SDK client: a write on one is searchable on the other and announced to
 * its sessions; updates from both lose nothing; an idempotent create retried
 * on the other replica answers the first result.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedPostgres } from "../postgres.js";
import { call, connect, eventually, EXAMPLE_SKILLS, startServer, type RunningServer } from "./harness.js";
import { playbook } from "./playbook-args.js";

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`replica tests skipped: ${cluster}`);

describe.skipIf(typeof cluster === "string")("replicas sharing a PostgreSQL store", () => {
  let a: RunningServer;
  let b: RunningServer;
  let clientA: Client;
  let clientB: Client;
  let announcedOnB = 0;

  beforeAll(async () => {
    if (typeof cluster === "string") return;
    const url = await cluster.createDatabase();
    [a, b] = await Promise.all([
      startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--store", url] }),
      startServer({ skillsPaths: [EXAMPLE_SKILLS], env: { RECIPE_SERVER_STORE_URL: url } }),
    ]);
    [clientA, clientB] = await Promise.all([connect(a.url), connect(b.url)]);
    clientB.setNotificationHandler(ResourceListChangedNotificationSchema, () => void (announcedOnB += 1));
  });

  afterAll(async () => {
    await Promise.all([clientA?.close(), clientB?.close()]);
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("a create on A is searchable on B and B's sessions hear list_changed", async () => {
    const before = announcedOnB;
    const created = await call(clientA, "recipe", playbook({ title: "Zebra stripe decals 7431" }));
    expect(created.success).toBe(true);
    const id = created.context.recipeId as string;
    await eventually(async () => {
      const found = await call(clientB, "recipe", { action: "search", query: "zebra stripe decals 7431", visibility: "private" });
      return found.context.recipes.some((r: { recipeId: string }) => r.recipeId === id);
    });
    await eventually(() => announcedOnB > before);
    const got = await call(clientB, "recipe", { action: "get", recipeId: id });
    expect(got.context.title).toBe("Zebra stripe decals 7431");
  });

  it("an update on B reaches A; a stale expectedRevision on A is a conflict with B's revision", async () => {
    const created = await call(clientA, "recipe", playbook({ title: "Unwrap the crate" }));
    const id = created.context.recipeId as string;
    await eventually(async () => (await call(clientB, "recipe", { action: "get", recipeId: id })).success);
    const updated = await call(clientB, "recipe", { action: "update", recipeId: id, summary: "Seams on hard edges only.", expectedRevision: 1 });
    expect(updated.context.revision).toBe(2);
    const stale = await call(clientA, "recipe", { action: "update", recipeId: id, summary: "lost", expectedRevision: 1 });
    expect(stale).toMatchObject({ success: false, error: "conflict", context: { currentRevision: 2, expectedRevision: 1 } });
    await eventually(async () => (await call(clientA, "recipe", { action: "get", recipeId: id })).context.summary === "Seams on hard edges only.");
  });

  it("2 replicas × 16 clients updating one playbook lose nothing; losers get conflict with the current revision", async () => {
    const created = await call(clientA, "recipe", playbook({ title: "Contended playbook", tags: [] }));
    const id = created.context.recipeId as string;
    await eventually(async () => (await call(clientB, "recipe", { action: "get", recipeId: id })).success);
    const clients = await Promise.all(Array.from({ length: 32 }, (_, i) => connect(i % 2 ? a.url : b.url)));
    let conflicts = 0;
    try {
      await Promise.all(
        clients.map(async (client, i) => {
          for (let attempt = 0; attempt < 500; attempt++) {
            const got = await call(client, "recipe", { action: "get", recipeId: id });
            const tags = got.context.tags as string[];
            const answer = await call(client, "recipe", { action: "update", recipeId: id, tags: [...tags, `c${i}`], expectedRevision: got.context.revision });
            if (answer.success) return;
            expect(answer.error).toBe("conflict");
            expect(answer.context.currentRevision).toBeGreaterThanOrEqual(got.context.revision);
            conflicts += 1;
          }
          throw new Error(`client ${i} never got through`);
        }),
      );
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
    await eventually(async () => (await call(clientA, "recipe", { action: "get", recipeId: id })).context.revision === 33);
    const final = await call(clientB, "recipe", { action: "get", recipeId: id });
    expect([...(final.context.tags as string[])].sort()).toEqual(Array.from({ length: 32 }, (_, i) => `c${i}`).sort());
    expect(conflicts).toBeGreaterThan(0);
  }, 120_000); // 32 clients' retries: tens of seconds on a shared 2-core machine

  it("concurrent creates of one title on both replicas give distinct ids", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 ? clientA : clientB, "recipe", playbook({ title: "Same title everywhere", document: `d${i}` }))));
    expect(answers.every((x) => x.success)).toBe(true);
    expect(new Set(answers.map((x) => x.context.recipeId)).size).toBe(20);
  });

  it("a create retried on the other replica with the same idempotencyKey answers the first result", async () => {
    const first = await call(clientA, "recipe", playbook({ title: "Retried create", idempotencyKey: "req-7f3a" }));
    const retry = await call(clientB, "recipe", playbook({ title: "Retried create", idempotencyKey: "req-7f3a" }));
    expect(retry.success).toBe(true);
    expect({ recipeId: retry.context.recipeId, revision: retry.context.revision, title: retry.context.title }).toEqual({
      recipeId: first.context.recipeId,
      revision: first.context.revision,
      title: first.context.title,
    });
    const found = await call(clientB, "recipe", { action: "search", query: "Retried create", visibility: "private", limit: 20 });
    expect(found.context.recipes.filter((r: { title: string }) => r.title === "Retried create")).toHaveLength(1);
  });

  it("/status and /metrics name the store and say it is ready", async () => {
    const ready = (await (await fetch(`${a.url}/status`)).json()) as { dccs: Array<{ store: Record<string, unknown> }> };
    expect(ready.dccs[0]!.store).toMatchObject({ kind: "postgres", ready: true });
    expect(String(ready.dccs[0]!.store.location)).not.toContain("s3cret");
    const metrics = await (await fetch(`${a.url}/metrics`)).text();
    expect(metrics).toMatch(/recipe_server_store_ready\{dcc="maya"\} 1/);
  });
});
