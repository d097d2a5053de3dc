/**
 * Write deadlines in both stores: a write held up past its deadline is
 * answered not_ready ("nothing was written") and leaves the store as it was,
 * whatever holds it up (another writer's lock file, a PostgreSQL table lock).
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { writeBudgetFor } from "../../../src/recipes/store/deadline.js";
import { acquireFileLock } from "../../../src/recipes/store/file-lock.js";
import { openStores, type OpenedStores } from "../../../src/recipes/store/open-store.js";
import { sharedPostgres } from "../../postgres.js";
import type { PlaybookDraft } from "../../../src/recipes/store/playbook-values.js";

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`PostgreSQL deadline tests skipped: ${cluster}`);

function draft(overrides: Partial<PlaybookDraft> = {}): PlaybookDraft {
  return { title: "Bake normals", summary: "s", whenToUse: "w", steps: [{ title: "t", detail: "d" }], acceptanceCriteria: ["a"], tags: [], document: "# d\n", ...overrides };
}

const opened: OpenedStores[] = [];
const temps: string[] = [];
afterAll(async () => {
  await Promise.all(opened.map((o) => o.close()));
  await Promise.all(temps.map((t) => fs.rm(t, { recursive: true, force: true })));
});

/**
 * Stores over one place: `s.store` with a 300 ms write budget, `roomy.store`
 * with 30 s over the same files or database, for the writes that set a case
 * up or check it afterwards, which a loaded machine must not push past 300 ms.
 */
async function openPair(storeUrl: string | null): Promise<{ s: OpenedStores & { dir: string }; roomy: OpenedStores & { dir: string } }> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "store-deadline-"));
  temps.push(tmp);
  return { s: await open(storeUrl, 300, tmp), roomy: await open(storeUrl, 30_000, tmp) };
}

async function open(storeUrl: string | null, writeTimeoutMs: number, tmp: string): Promise<OpenedStores & { dir: string }> {
  const dir = path.join(tmp, "private");
  const stores = openStores({ dcc: "maya", privateDir: dir, usageFile: path.join(tmp, "usage.json"), storeUrl, writeTimeoutMs });
  opened.push(stores);
  await stores.store.startupProblem();
  return { ...stores, dir };
}

const EXPIRED = /^the playbook store did not finish this (create|update) within 300 ms; nothing was written, so it is safe to send again$/;

describe("write budget", () => {
  it("leaves a margin below the request timeout for the answer and a COMMIT in flight", () => {
    expect(writeBudgetFor(60_000)).toBe(58_000);
    expect(writeBudgetFor(6000)).toBe(4800);
    expect(writeBudgetFor(1000)).toBe(750);
    expect(writeBudgetFor(100)).toBe(50);
    for (const ms of [100, 250, 1000, 8000, 3_600_000]) expect(writeBudgetFor(ms)).toBeLessThan(ms);
  });
});

describe("file store deadlines", () => {
  it("an update waiting on another writer's lock file past its deadline writes nothing", async () => {
    const { s, roomy } = await openPair(null);
    const made = await roomy.store.create(draft());
    if (!made.ok) throw new Error(made.message);
    const lock = await acquireFileLock(s.dir, `${made.playbook.slug}.md`, { timeoutMs: 1000, staleMs: 60_000 });
    expect(lock.kind).toBe("acquired");
    const before = await fs.readFile(path.join(s.dir, `${made.playbook.slug}.md`), "utf8");
    const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => s.store.update(made.playbook.slug, { summary: `late ${i}` })));
    if (lock.kind === "acquired") await lock.release();
    for (const answer of answers) {
      expect(answer).toMatchObject({ ok: false, code: "not_ready" });
      expect(!answer.ok && answer.message).toMatch(EXPIRED);
    }
    expect(await fs.readFile(path.join(s.dir, `${made.playbook.slug}.md`), "utf8")).toBe(before);
    expect((await roomy.store.update(made.playbook.slug, { summary: "in time" })).ok).toBe(true);
  });

  it("a request that already used its budget before reaching the store writes nothing", async () => {
    const { s } = await openPair(null);
    const late = await s.store.create(draft(), { since: performance.now() - 1000 });
    expect(late).toMatchObject({ ok: false, code: "not_ready" });
    expect((await s.store.loadAll()).playbooks).toEqual([]);
    expect((await fs.readdir(s.dir).catch(() => [])).filter((n) => !n.startsWith("."))).toEqual([]);
  });
});

describe.skipIf(typeof cluster === "string")("PostgreSQL store deadlines", () => {
  it("creates and updates blocked by LOCK TABLE are cancelled at the deadline and leave no row", async () => {
    if (typeof cluster === "string") return;
    const url = await cluster.createDatabase();
    const { s, roomy } = await openPair(url);
    const made = await roomy.store.create(draft({ title: "Existing" }));
    if (!made.ok) throw new Error(made.message);
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    await holder.query("BEGIN; LOCK TABLE recipe_server_playbooks IN ACCESS EXCLUSIVE MODE");
    let answers;
    try {
      answers = await Promise.all([
        ...Array.from({ length: 6 }, (_, i) => s.store.create(draft({ title: `Locked ${i}` }), { idempotencyKey: `k${i}` })),
        ...Array.from({ length: 3 }, (_, i) => s.store.update(made.playbook.slug, { summary: `late ${i}` })),
        ...Array.from({ length: 3 }, (_, i) => s.store.update(made.playbook.slug, { summary: `late ${i}` }, 1)),
      ]);
    } finally {
      await holder.query("COMMIT");
      await holder.end();
    }
    for (const answer of answers) {
      expect(answer).toMatchObject({ ok: false, code: "not_ready" });
      expect(!answer.ok && answer.message).toMatch(EXPIRED);
    }
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    try {
      const { rows } = await check.query<{ slug: string; revision: number }>("SELECT slug, revision FROM recipe_server_playbooks ORDER BY slug");
      expect(rows).toEqual([{ slug: "existing", revision: 1 }]);
    } finally {
      await check.end();
    }
    // The connections the cancelled writes used are healthy again.
    expect((await s.store.create(draft({ title: "After" }), { idempotencyKey: "k0" })).ok).toBe(true);
  });
});
