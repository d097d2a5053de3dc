/**
 * The usage-count contract, run against the file store and the PostgreSQL
 * store (a real cluster, test/postgres.ts): counts per kind and user, reads
 * that add every writer's flushed counts, hostile ids, and many writers on
 * one store losing nothing.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStores, type OpenedStores } from "../../../src/recipes/store/open-store.js";
import { MAX_USAGE_KEY_LENGTH, USAGE_COUNTERS, type UsageCounter } from "../../../src/recipes/store/usage-counts.js";
import type { UsageStore } from "../../../src/recipes/store/usage-store.js";
import { sharedPostgres } from "../../postgres.js";

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`PostgreSQL usage contract skipped: ${cluster}`);

type Kind = "file" | "postgres";
const KINDS: readonly Kind[] = typeof cluster === "string" ? ["file"] : ["file", "postgres"];

const opened: OpenedStores[] = [];
const temps: string[] = [];

afterAll(async () => {
  await Promise.all(opened.map((o) => o.close()));
  await Promise.all(temps.map((t) => fs.rm(t, { recursive: true, force: true })));
});

interface Place {
  /** Another process (or replica) on the same counts; each call opens one more. */
  open(options?: { owner?: string; flushMs?: number }): Promise<UsageStore>;
  readonly usageFile: string;
}

async function place(kind: Kind): Promise<Place> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "usage-contract-"));
  temps.push(tmp);
  const storeUrl = kind === "postgres" && typeof cluster !== "string" ? await cluster.createDatabase() : null;
  const usageFile = path.join(tmp, "state", "usage.json");
  return {
    usageFile,
    async open(options = {}) {
      const stores = openStores({
        dcc: "maya",
        privateDir: path.join(tmp, "private"),
        usageFile,
        storeUrl,
        usageFlushMs: options.flushMs ?? 3_600_000,
        ...(options.owner !== undefined ? { owner: options.owner } : {}),
      });
      opened.push(stores);
      await stores.store.startupProblem();
      return stores.usage;
    },
  };
}

describe.each(KINDS)("usage counts (%s store)", (kind) => {
  it("counts each kind per recipe and user; a restart reads them back", async () => {
    const at = await place(kind);
    const usage = await at.open();
    for (const counter of USAGE_COUNTERS) usage.record("maya-modeling/bevel", counter, "alice");
    usage.record("maya-modeling/bevel", "get", "bob");
    usage.record("maya-modeling/bevel", "validate_pass", "bob");
    usage.record("maya-modeling/bevel", "validate_pass", "bob");
    usage.record("maya-modeling/extrude", "apply");
    // In memory at once, before any write.
    expect(usage.get("maya-modeling/bevel")?.counts.reduce((a, b) => a + b)).toBe(USAGE_COUNTERS.length + 3);
    await usage.flush();

    const restarted = await at.open();
    await restarted.load();
    expect(restarted.get("maya-modeling/bevel")?.counts[0]).toBe(2);
    const reading = await restarted.read({ user: "bob" });
    expect(reading.complete).toBe(true);
    const bevel = reading.recipes.get("maya-modeling/bevel")!;
    expect(bevel.total).toMatchObject({
      get: 2,
      apply: 1,
      validate: { pass: 3, fail: 1, passRate: 0.75 },
      run: { succeeded: 1, failed: 1, dry_run: 1, recovered: 1, cancelled: 1 },
      // Gets, applies and real runs (not validations, not dry runs).
      uses: 7,
    });
    expect(Date.parse(bevel.total.lastUsedAt!)).not.toBeNaN();
    expect(bevel.mine).toMatchObject({ get: 1, apply: 0, validate: { pass: 2, fail: 0, passRate: 1 }, uses: 1 });
    // The user "" (no users file) is a user like any other.
    expect((await restarted.read({ recipeIds: ["maya-modeling/extrude"], user: "" })).recipes.get("maya-modeling/extrude")).toMatchObject({
      total: { apply: 1 },
      mine: { apply: 1 },
    });
    // No user asked: totals only.
    expect((await restarted.read({ recipeIds: ["maya-modeling/extrude"] })).recipes.get("maya-modeling/extrude")?.mine).toBeUndefined();
  });

  it("a read adds this process's unwritten uses to the stored ones, and asks only for the ids named", async () => {
    const at = await place(kind);
    const a = await at.open();
    const b = await at.open();
    a.record("s/one", "get");
    await a.flush();
    b.record("s/one", "get");
    b.record("s/two", "apply");
    const reading = await b.read({ recipeIds: ["s/one", "s/never-used", "s/one"] });
    expect([...reading.recipes.keys()]).toEqual(["s/one"]);
    expect(reading.recipes.get("s/one")?.total.get).toBe(2);
    // Unknown and never-used ids are simply absent; an empty list reads nothing.
    expect((await b.read({ recipeIds: [] })).recipes.size).toBe(0);
    expect([...(await b.read()).recipes.keys()].sort()).toEqual(["s/one", "s/two"]);
  });

  it("16 writers on one store, flushing while they count, lose nothing", async () => {
    const at = await place(kind);
    const writers = await Promise.all(Array.from({ length: 16 }, () => at.open()));
    const PER_WRITER = 200;
    await Promise.all(
      writers.map(async (usage, w) => {
        for (let i = 0; i < PER_WRITER; i++) {
          const counter: UsageCounter = USAGE_COUNTERS[i % USAGE_COUNTERS.length]!;
          usage.record(`skill/recipe-${i % 7}`, counter, `user-${w % 4}`);
          if (i % 50 === 49) await usage.flush();
        }
        await usage.flush();
      }),
    );
    const reader = await at.open();
    const reading = await reader.read({ user: "user-1" });
    let total = 0;
    let mine = 0;
    for (const usage of reading.recipes.values()) {
      const t = usage.total;
      total += t.get + t.apply + t.validate.pass + t.validate.fail + t.run.succeeded + t.run.failed + t.run.dry_run + t.run.recovered + t.run.cancelled;
      const m = usage.mine!;
      mine += m.get + m.apply + m.validate.pass + m.validate.fail + m.run.succeeded + m.run.failed + m.run.dry_run + m.run.recovered + m.run.cancelled;
    }
    expect(total).toBe(16 * PER_WRITER);
    expect(mine).toBe(4 * PER_WRITER);
    expect(reading.recipes.get("skill/recipe-0")?.total.get).toBe(16 * Math.ceil(PER_WRITER / 63));
  }, 60_000);

  it("hostile ids: over-long, U+0000 and unpaired surrogates are not counted; odd but storable ones round-trip", async () => {
    const at = await place(kind);
    const usage = await at.open();
    const refused = ["x".repeat(MAX_USAGE_KEY_LENGTH + 1), "x".repeat(5_000_000), "skill/nul\u0000", "skill/\ud800lone"];
    const kept = ["__proto__", "constructor", 'q/"quoted" \'single\'', "n/new\nline", "u/ünïcödé 🎉", "back\\slash", "x".repeat(MAX_USAGE_KEY_LENGTH), "", "private/a%b_c"];
    for (const id of [...refused, ...kept]) usage.record(id, "get", "alice");
    // A hostile user id is refused the same way.
    usage.record("skill/fine", "get", "\u0000");
    usage.record("skill/fine", "get", "y".repeat(MAX_USAGE_KEY_LENGTH + 1));
    for (const id of refused) expect(usage.get(id)).toBeUndefined();
    await usage.flush();
    const reader = await at.open();
    const reading = await reader.read({ user: "alice" });
    expect([...reading.recipes.keys()].sort()).toEqual([...kept].sort());
    for (const id of kept) expect(reading.recipes.get(id)?.mine?.get, JSON.stringify(id.slice(0, 40))).toBe(1);
    // Reading hostile ids answers nothing for them, and no error.
    const asked = await reader.read({ recipeIds: refused });
    expect(asked.complete).toBe(true);
    expect(asked.recipes.size).toBe(0);
  });

  it("record never writes by itself: the batch waits for the interval or a flush", async () => {
    const at = await place(kind);
    const writer = await at.open({ flushMs: 3_600_000 });
    for (let i = 0; i < 1000; i++) writer.record("a/b", "get");
    const reader = await at.open();
    expect((await reader.read()).recipes.size).toBe(0);
    await writer.flush();
    expect((await reader.read()).recipes.get("a/b")?.total.get).toBe(1000);
  });

  it("the interval writes a batch with no flush called", async () => {
    const at = await place(kind);
    const writer = await at.open({ flushMs: 20 });
    writer.record("a/b", "apply");
    const reader = await at.open();
    for (let i = 0; (await reader.read()).recipes.get("a/b")?.total.apply !== 1; i++) {
      if (i > 500) throw new Error("the interval never wrote the batch");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  it("a user's own playbooks are counted apart from the DCC's (same ids, other owner)", async () => {
    const at = await place(kind);
    const dcc = await at.open();
    const alice = await at.open({ owner: "alice" });
    const bob = await at.open({ owner: "bob" });
    alice.record("private/notes", "get", "alice");
    bob.record("private/notes", "get", "bob");
    bob.record("private/notes", "get", "bob");
    await Promise.all([alice.flush(), bob.flush(), dcc.flush()]);
    if (kind === "file") return; // a user's file is in their own state dir (user-libraries.ts), not this one
    expect((await (await at.open({ owner: "alice" })).read()).recipes.get("private/notes")?.total.get).toBe(1);
    expect((await (await at.open({ owner: "bob" })).read()).recipes.get("private/notes")?.total.get).toBe(2);
    expect((await (await at.open()).read()).recipes.size).toBe(0);
  });
});
