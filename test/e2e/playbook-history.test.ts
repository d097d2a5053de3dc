/**
 * Playbook history end to end with a users file, on both stores: each user
 * reaches only their own playbooks' history, revisions, restores and
 * deletes; another user's playbook is not_found for every one of them, and
 * a deleted playbook leaves search, recipes__list and prompts at once.
 */
import fs from "node:fs/promises";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedPostgres } from "../postgres.js";
import { call, connect, EXAMPLE_SKILLS, makeTempDir, startServer, type RunningServer } from "./harness.js";
import { playbook } from "./playbook-args.js";
import { ALICE, BOB, bearer, storeChoices, usersFile } from "./users-fixture.js";

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`playbook history tests on PostgreSQL skipped: ${cluster}`);

for (const store of storeChoices(cluster)) {
  describe.skipIf(store.skip)(`playbook history with users, ${store.name}`, () => {
    let dir: string;
    let running: RunningServer;
    let alice: Client;
    let bob: Client;
    let aliceId: string;

    beforeAll(async () => {
      dir = await makeTempDir();
      const file = await usersFile(dir, [["alice", ALICE], ["bob", BOB]]);
      running = await startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--users-file", file, ...(await store.args())] });
      [alice, bob] = await Promise.all([connect(running.url, "/mcp", bearer(ALICE)), connect(running.url, "/mcp", bearer(BOB))]);
      const created = await call(alice, "recipe", playbook({ title: "Alice retopologizes the hero head", tags: ["alice-only"] }));
      expect(created.success).toBe(true);
      aliceId = created.context.recipeId;
      expect((await call(alice, "recipe", { action: "update", recipeId: aliceId, summary: "Second take.", expectedRevision: 1 })).success).toBe(true);
    }, 60_000);
    afterAll(async () => {
      await Promise.all([alice?.close(), bob?.close()]);
      await running?.stop();
      await fs.rm(dir, { recursive: true, force: true });
    });

    it("another user's playbook is not_found for history, get at a revision, restore and delete; the owner's is untouched", async () => {
      for (const args of [
        { action: "history", recipeId: aliceId },
        { action: "get", recipeId: aliceId, revision: 1 },
        { action: "restore", recipeId: aliceId, revision: 1 },
        { action: "delete", recipeId: aliceId },
      ]) {
        const answer = await call(bob, "recipe", args);
        expect(answer.error).toBe("not_found");
        expect(JSON.stringify(answer)).not.toContain("Second take");
      }
      // Bob's own playbook of the same slug is his, with its own history.
      const bobs = await call(bob, "recipe", playbook({ title: "Alice retopologizes the hero head" }));
      expect(bobs.context.recipeId).toBe(aliceId);
      const history = await call(bob, "recipe", { action: "history", recipeId: aliceId });
      expect(history.context).toMatchObject({ total: 1, entries: [{ revision: 1, event: "create", user: "bob" }] });
      const own = await call(alice, "recipe", { action: "history", recipeId: aliceId });
      expect(own.context).toMatchObject({ total: 2, entries: [{ revision: 2, user: "alice" }, { revision: 1, user: "alice" }] });
    });

    it("a deleted playbook leaves search and get at once (the other user's of the same slug stays); restore brings it back", async () => {
      const deleted = await call(alice, "recipe", { action: "delete", recipeId: aliceId, expectedRevision: 2 });
      expect(deleted.success).toBe(true);
      const search = await call(alice, "recipe", { action: "search", query: "retopologizes hero head", visibility: "private" });
      expect(search.context.recipes.map((r: { recipeId: string }) => r.recipeId)).toEqual([]);
      expect((await call(alice, "recipe", { action: "get", recipeId: aliceId })).error).toBe("not_found");
      // Bob's playbook of the same slug is not Alice's: still there.
      expect((await call(bob, "recipe", { action: "get", recipeId: aliceId })).success).toBe(true);
      const history = await call(alice, "recipe", { action: "history", recipeId: aliceId });
      expect(history.context).toMatchObject({ deleted: true, total: 3 });
      const restored = await call(alice, "recipe", { action: "restore", recipeId: aliceId, revision: 2, expectedRevision: 3 });
      expect(restored).toMatchObject({ success: true, context: { revision: 4, restoredFrom: 2 } });
      const back = await call(alice, "recipe", { action: "get", recipeId: aliceId });
      expect(back.context).toMatchObject({ revision: 4, summary: "Second take." });
    });
  });
}

describe("--history-limit", () => {
  it("bounds the revisions the daemon keeps per playbook", async () => {
    const running = await startServer({ args: ["--history-limit", "3"] });
    const client = await connect(running.url);
    try {
      const id = (await call(client, "recipe", playbook({ title: "Kept short" }))).context.recipeId as string;
      for (let i = 0; i < 5; i++) expect((await call(client, "recipe", { action: "update", recipeId: id, summary: `take ${i}` })).success).toBe(true);
      const history = await call(client, "recipe", { action: "history", recipeId: id });
      expect(history.context.entries.map((e: { revision: number }) => e.revision)).toEqual([6, 5, 4]);
      expect(history.context.total).toBe(3);
    } finally {
      await client.close();
      await running.stop();
    }
  });
});
