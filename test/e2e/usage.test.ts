/**
 * Usage counts end to end, through the SDK's real client: two replicas on one
 * PostgreSQL each taking calls from several clients add up exactly in
 * recipes__list; with a users file each user sees studio-wide totals and
 * their own share only, and private playbooks stay their owner's; runs are
 * counted by outcome; /metrics carries the bounded series.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import fs from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedPostgres } from "../postgres.js";
import { call, connect, EXAMPLE_SKILLS, makeTempDir, skillMd, startServer, writeTree, type RunningServer, type ToolAnswer } from "./harness.js";
import { playbook } from "./playbook-args.js";
import { ALICE, BOB, bearer, usersFile } from "./users-fixture.js";
import { startDccDouble, type DccDouble } from "./dcc-double.js";
import { RUN_PACK } from "../recipes/run/fixtures.js";
import { until } from "../helpers/until.js";

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`usage replica tests skipped: ${cluster}`);

const PYRO = "houdini-fx/pyro_explosion";
const GOOD = { source_node: "/obj/barrel" };
const BAD = { source_node: "not a node path" };

/** Every flushed count of the DCC libraries in this process (what the interval would do a little later). */
async function flush(...servers: RunningServer[]): Promise<void> {
  await Promise.all(servers.flatMap((s) => [...s.server.libraries.values()].map((library) => library.usage.flush())));
}

/** A whole tool answer, read window by window (a skill's list is longer than one window). */
async function whole(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  let text = "";
  for (let start = 0; ; ) {
    const result = (await client.callTool({ name, arguments: { ...args, resultStart: start, resultEnd: start + 8000 } })) as { content: Array<{ text: string }> };
    text += result.content[0]!.text;
    const page = result.content[1] === undefined ? null : (JSON.parse(result.content[1].text) as { nextResultStart: number | null });
    if (page === null || page.nextResultStart === null) break;
    start = page.nextResultStart;
  }
  return { ...(JSON.parse(text) as Omit<ToolAnswer, "isError" | "raw">), isError: false, raw: null };
}

async function usageOf(client: Client, recipeId: string): Promise<Record<string, any> | undefined> {
  const listed = await whole(client, "recipes__list", { skill: recipeId.split("/")[0]! });
  expect(listed.success).toBe(true);
  return listed.context.usage.recipes[recipeId];
}

/** One client's share of the calls: gets, applies, validations (half failing). */
async function use(client: Client, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const answers: ToolAnswer[] = await Promise.all([
      call(client, "recipes__get", { skill: "houdini-fx", anchor: "pyro_explosion" }),
      call(client, "recipes__apply", { skill: "houdini-fx", recipe: "pyro_explosion", inputs: GOOD }),
      call(client, "recipes__validate", { skill: "houdini-fx", recipe: "pyro_explosion", inputs: i % 2 === 0 ? GOOD : BAD }),
    ]);
    for (const answer of answers) expect(answer.success, answer.message).toBe(true);
  }
}

describe.skipIf(typeof cluster === "string")("usage from two replicas on one PostgreSQL", () => {
  let a: RunningServer;
  let b: RunningServer;
  let clients: Client[] = [];

  beforeAll(async () => {
    if (typeof cluster === "string") return;
    const url = await cluster.createDatabase();
    [a, b] = await Promise.all([
      startServer({ dccs: ["houdini"], skillsPaths: [EXAMPLE_SKILLS], args: ["--store", url] }),
      startServer({ dccs: ["houdini"], skillsPaths: [EXAMPLE_SKILLS], args: ["--store", url] }),
    ]);
    clients = await Promise.all([a, a, a, b, b, b].map((s) => connect(s.url)));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("3 clients on each replica, 10 rounds each: every count adds up exactly on both", async () => {
    const N = 10;
    await Promise.all(clients.map((client) => use(client, N)));
    await flush(a, b);
    const calls = clients.length * N;
    for (const client of [clients[0]!, clients[5]!]) {
      const usage = await usageOf(client, PYRO);
      expect(usage?.total).toMatchObject({
        get: calls,
        apply: calls,
        validate: { pass: calls / 2, fail: calls / 2, passRate: 0.5 },
        run: { succeeded: 0, failed: 0, dry_run: 0, recovered: 0, cancelled: 0 },
        uses: 2 * calls,
      });
      expect(Date.parse(usage?.total.lastUsedAt)).not.toBeNaN();
      // No users file: no per-user share.
      expect(usage?.mine).toBeUndefined();
    }
  }, 120_000);

  it("counts reach the other replica with no flush called (the 2 s interval)", async () => {
    const before = (await usageOf(clients[5]!, "houdini-fx/flip_tank"))?.total.get ?? 0;
    await call(clients[0]!, "recipes__get", { skill: "houdini-fx", anchor: "flip_tank" });
    await until(async () => ((await usageOf(clients[5]!, "houdini-fx/flip_tank"))?.total.get ?? 0) === before + 1, { timeoutMs: 20_000, stepMs: 250 });
  }, 30_000);

  it("a later window of the list is cut from the same answer: the windows concatenate", async () => {
    const before = await usageOf(clients[0]!, PYRO);
    const first = (await clients[0]!.callTool({ name: "recipes__list", arguments: { skill: "houdini-fx", resultEnd: 500 } })) as { content: Array<{ text: string }> };
    const page = JSON.parse(first.content[1]!.text) as { totalChars: number; nextResultStart: number };
    let text = first.content[0]!.text;
    // Uses landing between the windows do not change the text being paged.
    await call(clients[1]!, "recipes__get", { skill: "houdini-fx", anchor: "pyro_explosion" });
    await flush(a);
    for (let start = page.nextResultStart; start < page.totalChars; start += 8000) {
      const next = (await clients[0]!.callTool({ name: "recipes__list", arguments: { skill: "houdini-fx", resultStart: start, resultEnd: start + 8000 } })) as {
        content: Array<{ text: string }>;
      };
      text += next.content[0]!.text;
    }
    expect(text.length).toBe(page.totalChars);
    expect(JSON.parse(text).context.usage.recipes[PYRO].total.get).toBe(before?.total.get);
    // A new first window reads again.
    expect((await usageOf(clients[0]!, PYRO))?.total.get).toBe(before?.total.get + 1);
  });

  it("/metrics counts calls by DCC, tool and outcome, and per recipe under the cap", async () => {
    const metrics = await (await fetch(`${a.url}/metrics`)).text();
    expect(metrics).toMatch(/recipe_server_recipe_calls_total\{dcc="houdini",tool="validate",outcome="fail"\} 15\b/);
    expect(metrics).toMatch(/recipe_server_recipe_calls_total\{dcc="houdini",tool="apply",outcome="ok"\} 30\b/);
    expect(metrics).toMatch(/recipe_server_recipe_uses_total\{dcc="houdini",recipe="houdini-fx\/pyro_explosion",tool="apply",outcome="ok"\} 30\b/);
  });
});

describe.skipIf(typeof cluster === "string")("usage with a users file (two replicas, one PostgreSQL)", () => {
  let dir: string;
  let a: RunningServer;
  let b: RunningServer;
  let aliceOnA: Client;
  let aliceOnB: Client;
  let bobOnB: Client;

  beforeAll(async () => {
    if (typeof cluster === "string") return;
    dir = await makeTempDir();
    const file = await usersFile(dir, [["alice", ALICE], ["bob", BOB]]);
    const url = await cluster.createDatabase();
    const args = ["--users-file", file, "--store", url];
    [a, b] = await Promise.all([
      startServer({ dccs: ["houdini"], skillsPaths: [EXAMPLE_SKILLS], args }),
      startServer({ dccs: ["houdini"], skillsPaths: [EXAMPLE_SKILLS], args }),
    ]);
    [aliceOnA, aliceOnB, bobOnB] = await Promise.all([
      connect(a.url, "/mcp", bearer(ALICE)),
      connect(b.url, "/mcp", bearer(ALICE)),
      connect(b.url, "/mcp", bearer(BOB)),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([aliceOnA?.close(), aliceOnB?.close(), bobOnB?.close()]);
    await Promise.all([a?.stop(), b?.stop()]);
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it("a public recipe's totals are studio-wide; `mine` is the caller's own share", async () => {
    await use(aliceOnA, 3);
    await use(aliceOnB, 2);
    await use(bobOnB, 4);
    await flush(a, b);
    const forAlice = await usageOf(aliceOnA, PYRO);
    expect(forAlice?.total.get).toBe(9);
    expect(forAlice?.mine).toMatchObject({ get: 5, apply: 5, validate: { pass: 3, fail: 2 } });
    const forBob = await usageOf(bobOnB, PYRO);
    expect(forBob?.total.get).toBe(9);
    expect(forBob?.mine).toMatchObject({ get: 4, apply: 4, validate: { pass: 2, fail: 2, passRate: 0.5 } });
  }, 60_000);

  it("a private playbook's usage is its owner's alone, on either replica", async () => {
    const created = await call(aliceOnA, "recipe", playbook({ title: "Alice's hero bake" }));
    const id = created.context.recipeId as string;
    for (let i = 0; i < 3; i++) expect((await call(aliceOnA, "recipe", { action: "get", recipeId: id })).success).toBe(true);
    // Bob's get of it is not_found and counts nothing.
    expect((await call(bobOnB, "recipe", { action: "get", recipeId: id })).error).toBe("not_found");
    // On B, Alice's gets there plus A's 3 once A's interval wrote them and B's next batch read the row back.
    let onB = 0;
    await until(
      async () => {
        const got = await call(aliceOnB, "recipe", { action: "get", recipeId: id });
        onB += 1;
        return got.success && got.context.usage.get === 3 + onB;
      },
      { timeoutMs: 20_000, stepMs: 500 },
    );
  }, 60_000);
});

describe("runs are counted by outcome", () => {
  let dcc: DccDouble;
  let running: RunningServer;
  let client: Client;
  let skills: string;

  beforeAll(async () => {
    dcc = await startDccDouble({ era: "2025" });
    skills = await makeTempDir("usage-run-skills-");
    await writeTree(skills, { "run-pack/SKILL.md": skillMd("run-pack", "any", "RECIPES.yaml"), "run-pack/RECIPES.yaml": RUN_PACK });
    running = await startServer({ dccs: ["blender"], skillsPaths: [skills], args: ["--dcc-endpoint", `blender=${dcc.url}`] });
    client = await connect(running.url, "/mcp/blender");
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await running?.stop();
    await dcc?.stop();
    await fs.rm(skills, { recursive: true, force: true });
  });

  it("a real run and a dry run land in run.succeeded and run.dry_run (dry runs are not uses), and in the metrics", async () => {
    const ran = await call(client, "recipes__run", { skill: "run-pack", recipe: "make_bevelled", inputs: { name: "Box" } });
    expect(ran.context.status).toBe("succeeded");
    const dry = await call(client, "recipes__run", { skill: "run-pack", recipe: "make_bevelled", inputs: { name: "Box2" }, dryRun: true });
    expect(dry.context.status).toBe("dry_run");
    await flush(running);
    const usage = await usageOf(client, "run-pack/make_bevelled");
    expect(usage?.total).toMatchObject({ run: { succeeded: 1, dry_run: 1, failed: 0 }, uses: 1 });
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toMatch(/recipe_server_recipe_calls_total\{dcc="blender",tool="run",outcome="succeeded"\} 1\b/);
    expect(metrics).toMatch(/recipe_server_recipe_calls_total\{dcc="blender",tool="run",outcome="dry_run"\} 1\b/);
  }, 60_000);
});
