/**
 * Semantic propagation between replicas (#24 item 2, "searchable … and, when
 * on, semantic"): replica A runs lexical only, replica B the local model, on
 * one PostgreSQL store. A's lexical search for each paraphrase finds nothing,
 * so B finding A's create (and then the update's new meaning) can only come
 * from B's vectors for the notified change. Once without a users file and
 * once with one (a user's own library is a different path on B).
 */
import fs from "node:fs/promises";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "../../src/server/transport/users.js";
import { sharedPostgres } from "../postgres.js";
import { call, connect, until, EXAMPLE_SKILLS, makeTempDir, startServer, type RunningServer } from "./harness.js";
import { CAT, DOG, RAIN, TYRE } from "./paraphrases.js";

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`semantic replica tests skipped: ${cluster}`);

const TOKEN = "semantic-replicas-artist-token";
/** Loading USE-Lite and embedding on a shared 2-core machine: seconds, not milliseconds. */
const SEMANTIC_WAIT_MS = 60_000;

async function ranked(client: Client, query: string): Promise<{ mode: string; ids: string[] }> {
  const found = await call(client, "recipe", { action: "search", query, visibility: "private", limit: 10 });
  expect(found.success).toBe(true);
  return { mode: found.context.mode as string, ids: (found.context.recipes as Array<{ recipeId: string }>).map((r) => r.recipeId) };
}

async function firstFor(client: Client, query: string): Promise<string | undefined> {
  const answer = await ranked(client, query);
  return answer.mode === "hybrid" ? answer.ids[0] : undefined;
}

for (const users of [false, true]) {
  describe.skipIf(typeof cluster === "string")(`semantic search on B finds A's writes${users ? " (users file)" : ""}`, () => {
    let a: RunningServer;
    let b: RunningServer;
    let clientA: Client;
    let clientB: Client;
    let dir: string;

    beforeAll(async () => {
      if (typeof cluster === "string") return;
      dir = await makeTempDir();
      const common = ["--store", await cluster.createDatabase()];
      const headers: Record<string, string> = {};
      if (users) {
        const file = path.join(dir, "users.json");
        await fs.writeFile(file, JSON.stringify({ users: [{ id: "artist", tokenSha256: hashToken(TOKEN) }] }));
        common.push("--users-file", file, "--stateless");
        headers.authorization = `Bearer ${TOKEN}`;
      }
      [a, b] = await Promise.all([
        startServer({ skillsPaths: [EXAMPLE_SKILLS], args: common }),
        startServer({ skillsPaths: [EXAMPLE_SKILLS], args: [...common, "--embeddings", "local"] }),
      ]);
      [clientA, clientB] = await Promise.all([connect(a.url, "/mcp", headers), connect(b.url, "/mcp", headers)]);
    }, SEMANTIC_WAIT_MS);

    afterAll(async () => {
      await Promise.all([clientA?.close(), clientB?.close()]);
      await Promise.all([a?.stop(), b?.stop()]);
      if (dir) await fs.rm(dir, { recursive: true, force: true });
    });

    it("a create on A is found on B by a query sharing no word with it; the update's new meaning replaces the old", async () => {
      const made: string[] = [];
      for (const t of [TYRE, DOG, RAIN]) {
        const created = await call(clientA, "recipe", t.create);
        expect(created.success).toBe(true);
        made.push(created.context.recipeId as string);
      }
      const [tyreId, dogId, rainId] = made as [string, string, string];

      // The lexical side finds none of them: what B finds below is semantic.
      for (const q of [TYRE.query, CAT.query, RAIN.query]) expect(await ranked(clientA, q)).toEqual({ mode: "lexical", ids: [] });

      // All three, each published and embedded by B on its own: waiting for one alone raced the others.
      // Before the update the dog (an animal's care) is the best answer to the cat's paraphrase.
      await until(
        async () => (await firstFor(clientB, TYRE.query)) === tyreId && (await firstFor(clientB, RAIN.query)) === rainId && (await firstFor(clientB, CAT.query)) === dogId,
        { timeoutMs: SEMANTIC_WAIT_MS },
      );

      const updated = await call(clientA, "recipe", { action: "update", recipeId: tyreId, ...CAT.patch, expectedRevision: 1 });
      expect(updated.success).toBe(true);
      for (const q of [TYRE.query, CAT.query, RAIN.query]) expect(await ranked(clientA, q)).toEqual({ mode: "lexical", ids: [] });

      // Only the update's vectors can put the playbook above the dog (its id still says "repair a flat tyre").
      await until(async () => (await firstFor(clientB, CAT.query)) === tyreId, { timeoutMs: SEMANTIC_WAIT_MS });
      expect(await firstFor(clientB, RAIN.query)).toBe(rainId);
    }, 2 * SEMANTIC_WAIT_MS);
  });
}
