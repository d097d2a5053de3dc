/**
 * Private playbooks under load, over the real MCP surface:
 * no lost update, no torn file, no duplicate slug, everything back after a
 * restart. Many SDK clients, each keeping at most 10 calls in flight (the
 * per-session cap is 16).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parsePlaybookFile } from "../../src/recipes/store/format.js";
import type { Playbook } from "../../src/recipes/types.js";
import { call, connect, startServer, type RunningServer } from "./harness.js";

const FIELDS = ["title", "summary", "whenToUse", "steps", "acceptanceCriteria", "tags", "document"] as const;
type Field = (typeof FIELDS)[number];

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function serve(options: Parameters<typeof startServer>[0] = {}): Promise<RunningServer> {
  const running = await startServer(options);
  cleanup.push(() => running.stop());
  return running;
}

async function clients(running: RunningServer, n: number): Promise<Client[]> {
  const list = await Promise.all(Array.from({ length: n }, () => connect(running.url)));
  cleanup.push(async () => {
    await Promise.all(list.map((c) => c.close()));
  });
  return list;
}

function draft(title: string, document: string): Record<string, unknown> {
  return {
    action: "create",
    title,
    summary: `Summary of ${title}`,
    whenToUse: `When ${title} applies`,
    steps: [{ title: "First", detail: "Do the first thing" }],
    acceptanceCriteria: ["It is done"],
    tags: ["durability"],
    document,
  };
}

async function readPlaybook(running: RunningServer, recipeId: string): Promise<Playbook> {
  const slug = recipeId.slice("private/".length);
  const text = await fs.readFile(path.join(running.privateDir, `${slug}.md`), "utf8");
  const parsed = parsePlaybookFile(text, slug, new Date(0).toISOString());
  if (!parsed.ok) throw new Error(`${slug}.md does not parse: ${parsed.message}`);
  return parsed.stored.playbook;
}

/** Runs `tasks` with at most `limit` in flight. */
async function pool<T>(tasks: ReadonlyArray<() => Promise<T>>, limit: number): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * Every write is fsynced and one playbook's writes are serial, so these are
 * bounded by the disk and by how busy the machine is; the bound is generous
 * because a timeout here would say nothing about durability.
 */
const HEAVY_MS = 300_000;

describe("private playbooks: durability over MCP", () => {
  it("an update replaces the fields it names and keeps the rest, on disk too", async () => {
    const running = await serve();
    const [c] = await clients(running, 1);
    const created = await call(c!, "recipe", draft("Keep the rest", "# Body\n\nkept\n"));
    const recipeId = created.context.recipeId as string;
    const before = await readPlaybook(running, recipeId);
    const steps = [{ title: "New one", detail: "new detail" }, { title: "New two", detail: "more" }];
    const updated = await call(c!, "recipe", { action: "update", recipeId, title: "Renamed", steps, expectedRevision: 1 });
    expect(updated.context).toMatchObject({ revision: 2, updated: ["title", "steps"] });
    const after = await readPlaybook(running, recipeId);
    expect(after).toMatchObject({
      title: "Renamed",
      steps,
      summary: before.summary,
      whenToUse: before.whenToUse,
      acceptanceCriteria: before.acceptanceCriteria,
      tags: before.tags,
      document: "# Body\n\nkept\n",
      createdAt: before.createdAt,
      revision: 2,
    });
    // The id stays: a rename does not move the file.
    expect(updated.context.recipeId).toBe(recipeId);
  });

  it("200 concurrent read-modify-write updates from 20 clients: every line lands, revision 201", async () => {
    const running = await serve();
    const sessions = await clients(running, 20);
    const created = await call(sessions[0]!, "recipe", draft("Shared log", "start\n"));
    const recipeId = created.context.recipeId as string;
    let conflicts = 0;
    const writer = async (i: number): Promise<void> => {
      const c = sessions[i % sessions.length]!;
      for (let attempt = 0; ; attempt += 1) {
        const got = await call(c, "recipe", { action: "get", recipeId, resultEnd: 8000 });
        const text = got.context.document as string;
        const answer = await call(c, "recipe", {
          action: "update",
          recipeId,
          document: `${text}line ${i}\n`,
          expectedRevision: got.context.revision,
        });
        if (answer.success) return;
        expect(answer.error).toBe("conflict");
        expect(typeof answer.context.currentRevision).toBe("number");
        conflicts += 1;
        // Full-jitter exponential backoff (cap 10 s): with short waits 200 writers keep
        // the server saturated with doomed attempts and almost none gets through.
        await sleep(Math.random() * Math.min(10_000, 50 * 2 ** Math.min(attempt, 8)));
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: 200 }, (_, i) => writer(i)));
    console.info(`read-modify-write: 200 updates, ${conflicts} conflicts retried, ${Math.round(performance.now() - started)} ms`);
    expect(conflicts).toBeGreaterThan(0);
    const final = await readPlaybook(running, recipeId);
    expect(final.revision).toBe(201);
    const lines = final.document.split("\n").filter((l) => l !== "");
    expect(lines[0]).toBe("start");
    expect(lines.slice(1).sort()).toEqual(Array.from({ length: 200 }, (_, i) => `line ${i}`).sort());
    // The catalog saw the same final state.
    const viaTool = await call(sessions[1]!, "recipe", { action: "get", recipeId, resultEnd: 8000 });
    expect(viaTool.context.revision).toBe(201);
    expect(viaTool.context.document).toBe(final.document);
  }, HEAVY_MS);

  it("200 concurrent blind updates of different field subsets: each field holds its last writer's value, never torn", async () => {
    const running = await serve();
    const sessions = await clients(running, 20);
    const created = await call(sessions[0]!, "recipe", draft("Blind target", "original\n"));
    const recipeId = created.context.recipeId as string;
    const valueOf = (i: number, field: Field): unknown => {
      switch (field) {
        case "steps":
          return [{ title: `w${i} step a`, detail: `w${i} detail a` }, { title: `w${i} step b`, detail: `w${i} detail b` }];
        case "acceptanceCriteria":
          return [`w${i} check 1`, `w${i} check 2`, `w${i} check 3`];
        case "tags":
          return [`w${i}`, `tag-${i}`];
        case "document":
          return `# Writer ${i}\n\n${`w${i} `.repeat(200)}\n`;
        default:
          return `w${i} ${field}`;
      }
    };
    // Subsets 1..127 of the 7 fields, spread so neighbours differ.
    const subsetOf = (i: number): Field[] => FIELDS.filter((_, bit) => ((((i * 37) % 127) + 1) >> bit) & 1);
    const revisions = new Array<number>(200);
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const args: Record<string, unknown> = { action: "update", recipeId };
        for (const field of subsetOf(i)) args[field] = valueOf(i, field);
        const answer = await call(sessions[i % 20]!, "recipe", args);
        expect(answer.success, answer.message).toBe(true);
        revisions[i] = answer.context.revision as number;
      }),
    );
    console.info(`blind updates: 200 in ${Math.round(performance.now() - started)} ms`);
    // The store serialized them: each got its own revision, 2..201.
    expect([...revisions].sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 2));
    const final = await readPlaybook(running, recipeId);
    expect(final.revision).toBe(201);
    for (const field of FIELDS) {
      let winner = -1;
      for (let i = 0; i < 200; i += 1) {
        if (subsetOf(i).includes(field) && (winner === -1 || revisions[i]! > revisions[winner]!)) winner = i;
      }
      expect(winner).toBeGreaterThanOrEqual(0);
      expect(final[field], field).toEqual(valueOf(winner, field));
    }
  }, HEAVY_MS);

  it("500 concurrent creates: 500 distinct files, none torn, each holding what its create sent", async () => {
    const running = await serve();
    const sessions = await clients(running, 25);
    // 50 titles x 10: slugs collide and must be handed out once each.
    const tasks = Array.from({ length: 500 }, (_, i) => async () => {
      const answer = await call(sessions[i % 25]!, "recipe", draft(`Bulk playbook ${i % 50}`, `document of create ${i}\n`));
      expect(answer.success, answer.message).toBe(true);
      return { i, recipeId: answer.context.recipeId as string };
    });
    // 50 calls in flight over 25 sessions: every create races others for slugs;
    // more in flight only lengthens each call's queue on two cores.
    const started = performance.now();
    const results = await pool(tasks, 50);
    console.info(`creates: 500 in ${Math.round(performance.now() - started)} ms`);
    const ids = new Set(results.map((r) => r.recipeId));
    expect(ids.size).toBe(500);
    const names = await fs.readdir(running.privateDir);
    expect(names.filter((n) => n.endsWith(".md"))).toHaveLength(500);
    // No temp file left behind.
    expect(names.filter((n) => !n.endsWith(".md") && n !== ".history")).toEqual([]);
    for (const { i, recipeId } of results) {
      const stored = await readPlaybook(running, recipeId);
      expect(stored.document).toBe(`document of create ${i}\n`);
      expect(stored.title).toBe(`Bulk playbook ${i % 50}`);
      expect(stored.revision).toBe(1);
    }
    // The catalog lists every one of them.
    const found = await call(sessions[0]!, "recipe", { action: "search", query: "Bulk playbook", visibility: "private", limit: 20 });
    expect(found.context.recipes).toHaveLength(20);
    expect(running.server.libraries.get("maya")!.current()!.recipes.size).toBe(500);
  }, HEAVY_MS);

  it("restart on the same private dir: every playbook and usage count is back", async () => {
    const first = await startServer();
    const dataHome = path.join(first.tmp, "data");
    cleanup.push(() => fs.rm(first.tmp, { recursive: true, force: true }));
    const c1 = await connect(first.url);
    const expected = new Map<string, { title: string; document: string; revision: number; uses: number }>();
    for (let i = 0; i < 6; i += 1) {
      const created = await call(c1, "recipe", draft(`Restart ${i}`, `body ${i}\n`));
      const recipeId = created.context.recipeId as string;
      let revision = 1;
      let title = `Restart ${i}`;
      if (i % 2 === 0) {
        title = `Restart ${i} renamed`;
        revision = (await call(c1, "recipe", { action: "update", recipeId, title })).context.revision as number;
      }
      for (let u = 0; u < i; u += 1) await call(c1, "recipe", { action: "get", recipeId });
      expected.set(recipeId, { title, document: `body ${i}\n`, revision, uses: i });
    }
    await call(c1, "recipe", { action: "get", recipeId: "private/restart-1" });
    expected.get("private/restart-1")!.uses += 1;
    await c1.close();
    // stop() flushes pending usage counts; keep the dirs (first.stop() would delete them).
    await first.server.stop();

    const second = await serve({ args: ["--private-dir", first.privateDir], env: { XDG_DATA_HOME: dataHome } });
    const c2 = (await clients(second, 1))[0]!;
    for (const [recipeId, want] of expected) {
      const got = await call(c2, "recipe", { action: "get", recipeId });
      expect(got.success, recipeId).toBe(true);
      expect(got.context).toMatchObject({ title: want.title, document: want.document, revision: want.revision });
      // This get is one more use.
      expect(got.context.usage.get, recipeId).toBe(want.uses + 1);
    }
    const found = await call(c2, "recipe", { action: "search", query: "Restart renamed", visibility: "private", limit: 20 });
    expect(found.context.recipes.map((r: { recipeId: string }) => r.recipeId).sort()).toEqual([...expected.keys()].sort());
    // And the restarted server keeps writing where the first stopped.
    const next = await call(c2, "recipe", { action: "update", recipeId: "private/restart-0", document: "after restart\n", expectedRevision: 2 });
    expect(next.context.revision).toBe(3);
  });
});
