/**
 * Users (#24 item 5), end to end through the real SDK clients of both eras:
 * two users' tokens from a users file, each user's playbooks their own in
 * every tool, another user's playbook not_found, the operator's --token kept
 * for probes only, a 2025 session pinned to its user, the users file re-read
 * on change; on the file store and on PostgreSQL.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "../../src/server/transport/users.js";
import { sharedPostgres } from "../postgres.js";
import { call, connect, EXAMPLE_SKILLS, makeTempDir, startServer, type RunningServer, type ToolAnswer } from "./harness.js";
import { playbook } from "./playbook-args.js";
import { ALICE, BOB, bearer, storeChoices, usersFile } from "./users-fixture.js";

const OPERATOR = "operator-token";

async function modern(url: string, token: string): Promise<ModernClient> {
  const client = new ModernClient({ name: "e2e-v2", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(new ModernTransport(new URL(`${url}/mcp`), { requestInit: { headers: bearer(token) } }));
  return client;
}

async function modernCall(client: ModernClient, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ text: string }>; isError?: boolean };
  return { ...(JSON.parse(result.content[0]?.text ?? "{}") as Omit<ToolAnswer, "isError" | "raw">), isError: result.isError === true, raw: result };
}

const ids = (answer: ToolAnswer): string[] => (answer.context?.recipes ?? []).map((r: { recipeId: string }) => r.recipeId);

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`users tests on PostgreSQL skipped: ${cluster}`);

const stores = storeChoices(cluster);

for (const store of stores) {
  describe.skipIf(store.skip)(`users, ${store.name}`, () => {
    let dir: string;
    let running: RunningServer;
    let alice: Client;
    let bob: Client;
    let aliceId: string;

    beforeAll(async () => {
      dir = await makeTempDir();
      const file = await usersFile(dir, [["alice", ALICE], ["bob", BOB]]);
      running = await startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--users-file", file, "--token", OPERATOR, ...(await store.args())] });
      [alice, bob] = await Promise.all([connect(running.url, "/mcp", bearer(ALICE)), connect(running.url, "/mcp", bearer(BOB))]);
      const created = await call(alice, "recipe", playbook({ title: "Alice bakes the hero normals", tags: ["alice-only"] }));
      expect(created.success).toBe(true);
      aliceId = created.context.recipeId;
    }, 60_000);
    afterAll(async () => {
      await Promise.all([alice?.close(), bob?.close()]);
      await running?.stop();
      await fs.rm(dir, { recursive: true, force: true });
    });

    it("the owner finds and reads their playbook; the other user gets not_found and never sees it", async () => {
      expect(ids(await call(alice, "recipe", { action: "search", query: "alice bakes hero normals" }))).toContain(aliceId);
      expect((await call(alice, "recipe", { action: "get", recipeId: aliceId })).success).toBe(true);

      for (const visibility of ["all", "private"]) {
        const found = await call(bob, "recipe", { action: "search", query: "alice bakes hero normals", visibility });
        expect(found.success).toBe(true);
        expect(ids(found)).not.toContain(aliceId);
      }
      const got = await call(bob, "recipe", { action: "get", recipeId: aliceId });
      expect(got.error).toBe("not_found");
      // not_found says nothing of the playbook: the same answer as for an id nobody has.
      const never = await call(bob, "recipe", { action: "get", recipeId: "private/alice-bakes-the-hero-normalz" });
      expect(got.context.suggestions).toEqual([]);
      expect(got.message.replace(aliceId, "ID")).toBe(never.message.replace("private/alice-bakes-the-hero-normalz", "ID"));
      const updated = await call(bob, "recipe", { action: "update", recipeId: aliceId, summary: "stolen" });
      expect(updated.error).toBe("not_found");
      expect((await call(alice, "recipe", { action: "get", recipeId: aliceId })).context.summary).not.toBe("stolen");
    });

    it("the same title by another user is that user's own playbook; similar lists only public recipes and their own", async () => {
      const bobs = await call(bob, "recipe", playbook({ title: "Alice bakes the hero normals", summary: "Bob's version." }));
      expect(bobs.success).toBe(true);
      expect(bobs.context.similar.map((s: { recipeId: string }) => s.recipeId)).not.toContain(aliceId);
      const bobGet = await call(bob, "recipe", { action: "get", recipeId: bobs.context.recipeId });
      expect(bobGet.context.summary).toBe("Bob's version.");
      const aliceGet = await call(alice, "recipe", { action: "get", recipeId: aliceId });
      expect(aliceGet.context.summary).not.toBe("Bob's version.");
      const again = await call(alice, "recipe", playbook({ title: "Alice bakes the hero normals again" }));
      expect(again.context.similar.map((s: { recipeId: string }) => s.recipeId)).toContain(aliceId);
    });

    it("public recipes are everyone's; recipes__* and prompts show nobody's playbooks, resources only the caller's own", async () => {
      const aliceUri = `recipe://maya/${aliceId}`;
      for (const client of [alice, bob]) {
        const publicHit = await call(client, "recipe", { action: "search", query: "modeling", visibility: "public" });
        expect(ids(publicHit).length).toBeGreaterThan(0);
        const list = await call(client, "recipes__list", {});
        expect(JSON.stringify(list)).not.toContain("private/");
        const search = await call(client, "recipes__search", { query: "alice bakes hero normals" });
        expect(JSON.stringify(search)).not.toContain("private/");
        const get = await call(client, "recipes__get", { skill: "private", name: aliceId.slice("private/".length) });
        expect(get.success).toBe(false);
        const resources = await client.listResources();
        // Bob made a playbook of the same title above: the same id in his own library, his own text.
        const listed = resources.resources.find((r) => r.uri === aliceUri);
        expect(listed?.description).toBe(client === alice ? playbook().summary : "Bob's version.");
        const prompts = await client.listPrompts();
        expect(JSON.stringify(prompts)).not.toContain("alice-bakes");
      }
    });

    it("2026-07-28 requests carry the user per request, with the same isolation", async () => {
      const [aliceModern, bobModern] = await Promise.all([modern(running.url, ALICE), modern(running.url, BOB)]);
      try {
        expect(aliceModern.getProtocolEra()).toBe("modern");
        const mine = await modernCall(aliceModern, "recipe", playbook({ title: "Alice's modern retopology" }));
        expect(mine.success).toBe(true);
        expect(ids(await modernCall(aliceModern, "recipe", { action: "search", query: "alice modern retopology", visibility: "private" }))).toContain(mine.context.recipeId);
        expect(ids(await modernCall(bobModern, "recipe", { action: "search", query: "alice modern retopology" }))).not.toContain(mine.context.recipeId);
        expect((await modernCall(bobModern, "recipe", { action: "get", recipeId: mine.context.recipeId })).error).toBe("not_found");
        const made = await modernCall(bobModern, "recipe", playbook({ title: "Bob's modern playbook" }));
        expect(made.success).toBe(true);
        expect((await call(alice, "recipe", { action: "get", recipeId: made.context.recipeId })).error).toBe("not_found");
        expect((await call(bob, "recipe", { action: "get", recipeId: made.context.recipeId })).success).toBe(true);
      } finally {
        await Promise.all([aliceModern.close(), bobModern.close()]);
      }
    });

    it("a 2025 session is its initializer's: another user's token on it is refused", async () => {
      const sessionId = (alice.transport as StreamableHTTPClientTransport).sessionId as string;
      const response = await fetch(`${running.url}/mcp`, {
        method: "POST",
        headers: { ...bearer(BOB), "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "recipe", arguments: { action: "get", recipeId: aliceId } } }),
      });
      expect(response.status).toBe(403);
      expect(await response.text()).not.toContain("Alice bakes");
    });

    it("MCP needs a user's token: none is 401, the operator's is 403; /status and /metrics take the operator's alone (a user's is 403), the probes none", async () => {
      const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
      const post = (headers: Record<string, string>) =>
        fetch(`${running.url}/mcp`, { method: "POST", headers: { ...headers, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(init) });
      expect((await post({})).status).toBe(401);
      expect((await post(bearer("not-a-token"))).status).toBe(401);
      expect((await post(bearer(hashToken(ALICE)))).status).toBe(401);
      expect((await post(bearer(OPERATOR))).status).toBe(403);
      for (const route of ["/status", "/metrics"]) {
        expect((await fetch(`${running.url}${route}`, { headers: bearer(OPERATOR) })).status, route).toBe(200);
        const refused = await fetch(`${running.url}${route}`, { headers: bearer(ALICE) });
        expect(refused.status, route).toBe(403);
        expect(await refused.text()).not.toMatch(/recipe_server_|"dccs"/);
        expect((await fetch(`${running.url}${route}`)).status, route).toBe(401);
      }
      expect(await (await fetch(`${running.url}/readyz`)).json()).toEqual({ ready: true });
      expect((await fetch(`${running.url}/readyz`, { headers: bearer(ALICE) })).status).toBe(200);
      expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
    });

    if (store.name === "file store") {
      it("the file store keeps one subdirectory per user", async () => {
        const slug = aliceId.slice("private/".length);
        await expect(fs.stat(path.join(running.privateDir, "alice", `${slug}.md`))).resolves.toBeTruthy();
        const top = await fs.readdir(running.privateDir);
        expect(top.filter((name) => name.endsWith(".md"))).toEqual([]);
        expect((await fs.readdir(path.join(running.privateDir, "bob"))).some((name) => name.endsWith(".md"))).toBe(true);
      });
    }
  });
}

describe("the users file at run time", () => {
  it("is re-read on change (a new user's token works), a malformed rewrite keeps the last good, a missing one refuses to start", async () => {
    const dir = await makeTempDir();
    const file = await usersFile(dir, [["alice", ALICE]]);
    const running = await startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--users-file", file] });
    try {
      await expect(connect(running.url, "/mcp", bearer(BOB))).rejects.toThrow();
      await usersFile(dir, [["alice", ALICE], ["bob", BOB]]);
      let bob: Client | null = null;
      for (let i = 0; i < 100 && bob === null; i += 1) {
        bob = await connect(running.url, "/mcp", bearer(BOB)).catch(() => null);
        if (bob === null) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(bob).not.toBeNull();
      await bob?.close();

      await fs.writeFile(file, "{ not json");
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const still = await connect(running.url, "/mcp", bearer(BOB));
      expect((await call(still, "recipe", { action: "search", query: "modeling" })).success).toBe(true);
      await still.close();
    } finally {
      await running.stop();
      await fs.rm(dir, { recursive: true, force: true });
    }
    await expect(startServer({ args: ["--users-file", path.join(dir, "missing.json")] })).rejects.toThrow(/--users-file .*cannot be read \(ENOENT\)/);
  }, 60_000);
});

describe("users on a --stateless server (2025 requests, no sessions)", () => {
  it("each request's token names its user", async () => {
    const dir = await makeTempDir();
    const file = await usersFile(dir, [["alice", ALICE], ["bob", BOB]]);
    const running = await startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--users-file", file, "--stateless"] });
    const [alice, bob] = await Promise.all([connect(running.url, "/mcp", bearer(ALICE)), connect(running.url, "/mcp", bearer(BOB))]);
    try {
      const made = await call(alice, "recipe", playbook({ title: "Stateless alice playbook" }));
      expect(made.success).toBe(true);
      expect((await call(alice, "recipe", { action: "get", recipeId: made.context.recipeId })).success).toBe(true);
      expect((await call(bob, "recipe", { action: "get", recipeId: made.context.recipeId })).error).toBe("not_found");
      expect(ids(await call(bob, "recipe", { action: "search", query: "stateless alice playbook" }))).not.toContain(made.context.recipeId);
    } finally {
      await Promise.all([alice.close(), bob.close()]);
      await running.stop();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(typeof cluster === "string")("users on two replicas sharing PostgreSQL", () => {
  it("a user's write on replica A is theirs on replica B too, and still nobody else's", async () => {
    const dir = await makeTempDir();
    const file = await usersFile(dir, [["alice", ALICE], ["bob", BOB]]);
    const url = await (cluster as Exclude<typeof cluster, string>).createDatabase();
    const args = ["--users-file", file, "--stateless", "--store", url];
    const [a, b] = await Promise.all([startServer({ skillsPaths: [EXAMPLE_SKILLS], args }), startServer({ skillsPaths: [EXAMPLE_SKILLS], args })]);
    const [aliceA, aliceB, bobB] = await Promise.all([connect(a.url, "/mcp", bearer(ALICE)), connect(b.url, "/mcp", bearer(ALICE)), connect(b.url, "/mcp", bearer(BOB))]);
    try {
      // Alice's library on B exists (and listens) before the write on A.
      expect((await call(aliceB, "recipe", { action: "search", query: "anything" })).success).toBe(true);
      const made = await call(aliceA, "recipe", playbook({ title: "Replicated alice playbook" }));
      expect(made.success).toBe(true);
      await expect.poll(async () => ids(await call(aliceB, "recipe", { action: "search", query: "replicated alice playbook", visibility: "private" })), { timeout: 10_000 }).toContain(made.context.recipeId);
      expect((await call(bobB, "recipe", { action: "get", recipeId: made.context.recipeId })).error).toBe("not_found");
      // A library made after the write reads it from the table.
      const late = await connect(a.url, "/mcp", bearer(BOB));
      expect((await call(late, "recipe", { action: "get", recipeId: made.context.recipeId })).error).toBe("not_found");
      await late.close();
    } finally {
      await Promise.all([aliceA.close(), aliceB.close(), bobB.close()]);
      await Promise.all([a.stop(), b.stop()]);
      await fs.rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
