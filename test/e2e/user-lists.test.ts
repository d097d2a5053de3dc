/**
 * A user's own playbooks in their lists (#24, users file), end to end with
 * the real clients of both eras: the 1.32.2 Client on a 2025 session (its GET
 * stream) and the v2 client pinned to 2026-07-28 (a subscriptions/listen
 * stream), one of each per user. A user's create, update, hand edit or
 * another replica's write is announced to that user's session and stream and
 * listed and readable for them; the other user hears nothing of it and gets
 * the answer of a URI nobody has, however the URI is spelled.
 *
 * Absence is proved by order, not by waiting: after the owner has heard a
 * change, a public reload (announced to everyone as resources/ then
 * prompts/list_changed) is the marker. Every stream delivers in send order,
 * so once a client has heard the marker's prompts/list_changed, anything it
 * would have been sent about the other user's change is already in its log.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedPostgres } from "../postgres.js";
import { call, connect, until, EXAMPLE_SKILLS, makeTempDir, startServer, writeTree, type RunningServer, type ToolAnswer } from "./harness.js";
import { playbook } from "./playbook-args.js";
import { ALICE, BOB, bearer, storeChoices, usersFile } from "./users-fixture.js";

type User = "alice" | "bob";
const TOKENS: Record<User, string> = { alice: ALICE, bob: BOB };

/** One user's two clients on one server, and what each has heard ("r": resources, "p": prompts list_changed). */
interface Ears {
  readonly legacy: Client;
  readonly modern: ModernClient;
  readonly logs: { readonly legacy: string[]; readonly modern: string[] };
  close(): Promise<void>;
}

async function listenAs(running: RunningServer, user: User): Promise<Ears> {
  const logs = { legacy: [] as string[], modern: [] as string[] };
  const legacy = await connect(running.url, "/mcp", bearer(TOKENS[user]));
  legacy.setNotificationHandler(ResourceListChangedNotificationSchema, () => void logs.legacy.push("r"));
  legacy.setNotificationHandler(PromptListChangedNotificationSchema, () => void logs.legacy.push("p"));
  const modern = new ModernClient({ name: `e2e-${user}`, version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await modern.connect(new ModernTransport(new URL(`${running.url}/mcp`), { requestInit: { headers: bearer(TOKENS[user]) } }));
  modern.setNotificationHandler("notifications/resources/list_changed", () => void logs.modern.push("r"));
  modern.setNotificationHandler("notifications/prompts/list_changed", () => void logs.modern.push("p"));
  // Resolves on the server's acknowledgement: the stream is subscribed from here on.
  const subscription = await modern.listen({ resourcesListChanged: true, promptsListChanged: true });
  // The 2025 GET stream opens after initialize, on its own: wait until the session has it.
  const sessionId = (legacy.transport as StreamableHTTPClientTransport).sessionId as string;
  await until(() => (running.server.http.sessions?.get(sessionId)?.streams ?? 0) > 0);
  return {
    legacy,
    modern,
    logs,
    async close() {
      await subscription.close();
      await Promise.all([legacy.close(), modern.close()]);
    },
  };
}

/**
 * Runs `change`, waits until each owner has heard `owned[user]` resource
 * changes on both streams, then sends the marker on `marker` and checks what
 * each client heard before it: a user who owns none of the changes heard
 * nothing but the marker. An owner may hear one change twice (on PostgreSQL
 * the NOTIFY of this replica's own write can race the write's publish, and
 * both are visible), so owners are held to at least their count.
 */
async function round(ears: Record<User, Ears>, marker: RunningServer, owned: Record<User, number>, change: () => Promise<void>): Promise<void> {
  const all = (["alice", "bob"] as const).flatMap((user) => [ears[user].logs.legacy, ears[user].logs.modern].map((log) => ({ user, log })));
  for (const { log } of all) log.length = 0;
  await change();
  await until(() => all.every(({ user, log }) => log.filter((heard) => heard === "r").length >= owned[user]));
  await marker.server.libraries.get("maya")!.load();
  await until(() => all.every(({ log }) => log.includes("p")));
  for (const { user, log } of all) {
    if (owned[user] === 0) expect(log, user).toEqual(["r", "p"]);
    else expect(log.join(""), user).toMatch(new RegExp(`^r{${owned[user] + 1},}p$`));
  }
}

const uris = async (client: Client | ModernClient): Promise<string[]> => {
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listResources(cursor === undefined ? {} : { cursor });
    seen.push(...page.resources.map((resource) => resource.uri));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return seen;
};

/** The text of a recipe resource (recipes are text, never blobs). */
async function textOf(client: Client | ModernClient, uri: string): Promise<string> {
  const { contents } = await client.readResource({ uri });
  return (contents[0] as { text?: string } | undefined)?.text ?? "";
}

const uriOf = (answer: ToolAnswer): string => `recipe://maya/${answer.context.recipeId as string}`;

/** The error a client gets reading `uri`, as much of it as must not tell one missing URI from another. */
async function readError(client: Client | ModernClient, uri: string): Promise<{ code: unknown; message: unknown; data: unknown }> {
  const error = (await client.readResource({ uri }).then(
    () => ({ code: "read succeeded" }),
    (caught: unknown) => caught,
  )) as { code?: unknown; message?: unknown; data?: unknown };
  return { code: error.code, message: error.message, data: error.data };
}

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`user lists on PostgreSQL skipped: ${cluster}`);

const stores = storeChoices(cluster);

for (const store of stores) {
  describe.skipIf(store.skip)(`a user's own playbooks in their lists, ${store.name}`, () => {
    let dir: string;
    let running: RunningServer;
    let ears: Record<User, Ears>;
    let alicesFirst: ToolAnswer;

    beforeAll(async () => {
      dir = await makeTempDir();
      const file = await usersFile(dir, [["alice", ALICE], ["bob", BOB]]);
      // Watching: hand edits in <private dir>/<user>/ are part of what is announced.
      running = await startServer({ skillsPaths: [EXAMPLE_SKILLS], watch: true, args: ["--users-file", file, ...(await store.args())] });
      ears = { alice: await listenAs(running, "alice"), bob: await listenAs(running, "bob") };
    }, 60_000);
    afterAll(async () => {
      await Promise.all([ears?.alice.close(), ears?.bob.close()]);
      await running?.stop();
      await fs.rm(dir, { recursive: true, force: true });
    });

    // Regression: a user's own playbook changes sent no list_changed (their playbooks were in no list).
    it("a create is announced to its user's session and listen stream only, and listed and readable for them only", async () => {
      await round(ears, running, { alice: 1, bob: 0 }, async () => {
        alicesFirst = await call(ears.alice.legacy, "recipe", playbook({ title: "Alice's listed retopology" }));
        expect(alicesFirst.success).toBe(true);
      });
      const uri = uriOf(alicesFirst);
      expect(await uris(ears.alice.legacy)).toContain(uri);
      expect(await uris(ears.alice.modern)).toContain(uri);
      expect((await ears.alice.modern.readResource({ uri })).contents[0]).toMatchObject({ uri, mimeType: "text/markdown", text: expect.stringContaining("# Alice's listed retopology") });
      expect(await textOf(ears.alice.legacy, uri)).toContain("# Alice's listed retopology");
      // The public recipes are still everyone's, sorted in among alice's own.
      const alices = await uris(ears.alice.legacy);
      expect(alices).toEqual(expect.arrayContaining((await uris(ears.bob.legacy)).filter((u) => !u.startsWith("recipe://maya/private/"))));
      expect(alices.filter((u) => u.startsWith("recipe://"))).toEqual(alices.filter((u) => u.startsWith("recipe://")).sort());
      for (const client of [ears.bob.legacy, ears.bob.modern]) expect(await uris(client)).not.toContain(uri);
    });

    it("an update through the tool is announced to its user only", async () => {
      await round(ears, running, { alice: 1, bob: 0 }, async () => {
        const updated = await call(ears.alice.modern as unknown as Client, "recipe", { action: "update", recipeId: alicesFirst.context.recipeId, document: "Quads only.\n" });
        expect(updated.success).toBe(true);
      });
      expect(await textOf(ears.alice.legacy, uriOf(alicesFirst))).toContain("Quads only.");
    });

    it("another user reading the playbook's URI, however it is spelled, gets the answer of a URI nobody has", async () => {
      const uri = uriOf(alicesFirst);
      const slug = uri.slice("recipe://maya/private/".length);
      const spellings = [
        uri,
        `recipe://maya/%70rivate/${slug}`,
        `recipe://maya/private/${encodeURIComponent(slug).replace(/-/g, "%2D")}`,
        `recipe://%6Daya/private/${slug}`,
        `recipe://maya/private/..%2Falice%2F${slug}`,
        `recipe://maya/private%2Falice/${slug}`,
        `recipe://maya/alice%2Fprivate/${slug}`,
        `recipe://maya/private/alice%2F${slug}`,
        `recipe://alice@maya/private/${slug}`,
        `recipe://maya/private/${slug}%00`,
        `recipe://maya/private/${slug.toUpperCase()}`,
        `recipe://maya/private/${slug}%E0%A4%A`,
      ];
      for (const [era, client] of [["2025", ears.bob.legacy], ["2026", ears.bob.modern]] as const) {
        const nobodys = await readError(client, "recipe://maya/private/nobody-ever-wrote-this");
        expect(nobodys.code, era).not.toBe("read succeeded");
        for (const spelling of spellings) {
          // The same code and message; data echoes the URI asked, which is the caller's own.
          const answer = await readError(client, spelling);
          expect({ ...answer, data: JSON.stringify(answer.data).replace(JSON.stringify(spelling.slice(0, 500)), "URI") }, `${era} ${spelling}`).toEqual({
            ...nobodys,
            data: JSON.stringify(nobodys.data).replace(JSON.stringify("recipe://maya/private/nobody-ever-wrote-this"), "URI"),
          });
        }
      }
      // The owner reads the percent-encoded spellings of their own URI: the encoding hides nothing either way.
      expect(await textOf(ears.alice.legacy, spellings[1]!)).toContain("Alice's listed retopology");
      // Another user's token, or a user id in place of one, never opens alice's lists.
      const asAliceId = await fetch(`${running.url}/mcp`, {
        method: "POST",
        headers: { ...bearer("alice"), "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }),
      });
      expect(asAliceId.status).toBe(401);
    });

    // Both users own changes here, so what proves isolation is the lists and reads;
    // the rounds above prove that a user who owns no change hears none.
    it("concurrent creates from both users: each hears their own, and lists and reads exactly their own", async () => {
      const made: Record<User, Array<{ answer: ToolAnswer; document: string }>> = { alice: [], bob: [] };
      await round(ears, running, { alice: 6, bob: 6 }, async () => {
        await Promise.all(
          Array.from({ length: 12 }, async (_, i) => {
            const user: User = i % 2 === 0 ? "alice" : "bob";
            // Both users' clients of both eras write at once, with one title for all: per-user ids collide on purpose.
            const client = (i % 4 < 2 ? ears[user].legacy : ears[user].modern) as Client;
            const document = `${user} ${i}\n`;
            const answer = await call(client, "recipe", playbook({ title: "Concurrent lists", document }));
            expect(answer.success).toBe(true);
            made[user].push({ answer, document });
          }),
        );
      });
      for (const user of ["alice", "bob"] as const) {
        const other: User = user === "alice" ? "bob" : "alice";
        const listed = await uris(ears[user].modern);
        for (const { answer, document } of made[user]) {
          expect(listed).toContain(uriOf(answer));
          expect(await textOf(ears[user].legacy, uriOf(answer))).toContain(document);
        }
        // The same title gives both users the same ids; each id reads as its reader's own document.
        for (const { answer } of made[other]) {
          const read = await textOf(ears[user].legacy, uriOf(answer)).catch(() => null);
          if (read !== null) expect(read).toContain(`${user} `);
        }
        expect(listed.filter((u) => u.includes("/private/concurrent-lists"))).toHaveLength(6);
      }
    });

    if (store.name === "file store") {
      it("a hand edit in <private dir>/<user>/ is announced to that user only", async () => {
        await round(ears, running, { alice: 0, bob: 1 }, async () => {
          await writeTree(path.join(running.privateDir, "bob"), { "written-by-hand.md": "---\ntitle: Bob's hand-written playbook\n---\nBy hand.\n" });
        });
        expect(await uris(ears.bob.modern)).toContain("recipe://maya/private/written-by-hand");
        expect(await uris(ears.alice.modern)).not.toContain("recipe://maya/private/written-by-hand");
        expect((await readError(ears.alice.legacy, "recipe://maya/private/written-by-hand")).code).toBe(-32002);
      });
    }
  });
}

describe.skipIf(typeof cluster === "string")("a user's playbook written on replica A, announced on replica B", () => {
  let dir: string;
  let a: RunningServer;
  let b: RunningServer;
  let ears: Record<User, Ears>;
  let writers: Record<User, Client>;

  beforeAll(async () => {
    if (typeof cluster === "string") return;
    dir = await makeTempDir();
    const file = await usersFile(dir, [["alice", ALICE], ["bob", BOB]]);
    const args = ["--users-file", file, "--store", await cluster.createDatabase()];
    [a, b] = await Promise.all([startServer({ skillsPaths: [EXAMPLE_SKILLS], args }), startServer({ skillsPaths: [EXAMPLE_SKILLS], args })]);
    // Nothing but the two streams on B: opening them is what makes B follow each user's rows.
    ears = { alice: await listenAs(b, "alice"), bob: await listenAs(b, "bob") };
    writers = { alice: await connect(a.url, "/mcp", bearer(ALICE)), bob: await connect(a.url, "/mcp", bearer(BOB)) };
  }, 60_000);
  afterAll(async () => {
    await Promise.all([ears?.alice.close(), ears?.bob.close(), writers?.alice.close(), writers?.bob.close()]);
    await Promise.all([a?.stop(), b?.stop()]);
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("B tells the writer's session and stream on B, lists it for them there, and tells the other user nothing", async () => {
    let made: ToolAnswer | undefined;
    await round(ears, b, { alice: 1, bob: 0 }, async () => {
      made = await call(writers.alice, "recipe", playbook({ title: "Alice's replicated listing" }));
      expect(made.success).toBe(true);
    });
    const uri = uriOf(made!);
    expect(await uris(ears.alice.modern)).toContain(uri);
    expect(await textOf(ears.alice.legacy, uri)).toContain("# Alice's replicated listing");
    expect(await uris(ears.bob.legacy)).not.toContain(uri);
    expect((await readError(ears.bob.modern, uri)).code).toBe(-32602);
  });

  it("an update on A by the other user is theirs alone on B too", async () => {
    let bobs: ToolAnswer | undefined;
    await round(ears, b, { alice: 0, bob: 1 }, async () => {
      bobs = await call(writers.bob, "recipe", playbook({ title: "Bob's replicated listing" }));
      expect(bobs.success).toBe(true);
    });
    await round(ears, b, { alice: 0, bob: 1 }, async () => {
      expect((await call(writers.bob, "recipe", { action: "update", recipeId: bobs!.context.recipeId, summary: "Updated on A." })).success).toBe(true);
    });
    expect((await ears.bob.modern.listResources()).resources.find((r) => r.uri === uriOf(bobs!))?.description).toBe("Updated on A.");
  });
});
