/**
 * The playbook store contract, run against the file store and the
 * PostgreSQL store (a real cluster, test/postgres.ts): the same calls give
 * the same answers and the same errors, hostile input included.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { PlaybookStore, StoreResult } from "../../../src/recipes/store/contract.js";
import { openStores, type OpenedStores } from "../../../src/recipes/store/open-store.js";
import type { PlaybookDraft } from "../../../src/recipes/store/playbook-values.js";
import type { Playbook } from "../../../src/recipes/types.js";
import { PLAYBOOK_LIMITS } from "../../../src/recipes/store/limits.js";
import { sharedPostgres } from "../../postgres.js";

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`PostgreSQL store contract skipped: ${cluster}`);

interface Opened {
  readonly store: PlaybookStore;
  /** A second store on the same data (another process, or a restart). */
  another(): PlaybookStore;
}

type Kind = "file" | "postgres";
const KINDS: readonly Kind[] = typeof cluster === "string" ? ["file"] : ["file", "postgres"];

const opened: OpenedStores[] = [];
const temps: string[] = [];

afterAll(async () => {
  await Promise.all(opened.map((o) => o.close()));
  await Promise.all(temps.map((t) => fs.rm(t, { recursive: true, force: true })));
});

function clock(): () => Date {
  let t = Date.parse("2026-11-29T10:00:00.000Z");
  return () => new Date((t += 1000));
}

async function openKind(kind: Kind, options: { maxFileBytes?: number; historyLimit?: number } = {}): Promise<Opened> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "store-contract-"));
  temps.push(tmp);
  const storeUrl = kind === "postgres" && typeof cluster !== "string" ? await cluster.createDatabase() : null;
  const open = (): PlaybookStore => {
    const stores = openStores({ dcc: "maya", privateDir: path.join(tmp, "private"), usageFile: path.join(tmp, "usage.json"), storeUrl, now: clock(), ...options });
    opened.push(stores);
    return stores.store;
  };
  const store = open();
  await store.startupProblem();
  return { store, another: open };
}

export function draft(overrides: Partial<PlaybookDraft> = {}): PlaybookDraft {
  return {
    title: "Bake normals",
    summary: "Bake a tangent-space normal map from a high-poly mesh.",
    whenToUse: "When a low-poly asset needs surface detail.",
    steps: [{ title: "Cage", detail: "Inflate a cage over the low-poly mesh." }],
    acceptanceCriteria: ["No seams visible"],
    tags: ["baking"],
    document: "# Bake normals\n\nLonger notes.\n",
    ...overrides,
  };
}

function expectOk(result: StoreResult): Playbook {
  if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
  return result.playbook;
}

const HOSTILE = "'; DROP TABLE recipe_server_playbooks; -- $1 \\' \\\\ %_ \"q\" E'\\x00' $$ $tag$";
const UNICODE = "日本語 🎨 e\u0301 \u2028\u2029 \u202e RTL \ufeff 𝔘𝔫𝔦 \u{10ffff}";

describe.each(KINDS)("%s store contract", (kind) => {
  let s: Opened;
  beforeEach(async () => {
    s = await openKind(kind);
  });

  it("stores and returns hostile text byte-exact in every field", async () => {
    const nasty = draft({
      title: `${HOSTILE} ${UNICODE}`,
      summary: `NUL \u0000 inside ${HOSTILE}`,
      whenToUse: `${UNICODE}\r\n\u0000`,
      steps: [{ title: HOSTILE, detail: `\u0000${UNICODE}` }, { title: UNICODE, detail: "---\ntitle: fake\n---" }],
      acceptanceCriteria: [HOSTILE, UNICODE, "\u0000"],
      // As many tags as a playbook may have, each at the length bound (limits.ts).
      tags: Array.from({ length: PLAYBOOK_LIMITS.tags }, (_, i) => `${i} ${UNICODE} ${HOSTILE}`.slice(0, PLAYBOOK_LIMITS.tag)),
      document: `${"y".repeat(80_000)}\u0000${HOSTILE}${UNICODE}`,
    });
    const created = expectOk(await s.store.create(nasty));
    for (const key of ["title", "summary", "whenToUse", "steps", "acceptanceCriteria", "tags", "document"] as const) {
      expect(created[key]).toEqual(nasty[key]);
    }
    const fresh = s.another();
    expect((await fresh.loadOne(created.slug)).playbook).toEqual(created);
    const all = await fresh.loadAll();
    expect(all.diagnostics).toEqual([]);
    expect(all.playbooks).toEqual([created]);
  });

  it("refuses what it cannot store faithfully with the same invalid_input messages", async () => {
    const small = await openKind(kind, { maxFileBytes: 4096 });
    const big = await small.store.create(draft({ document: "z".repeat(5000) }));
    expect(big).toMatchObject({ ok: false, code: "invalid_input" });
    expect(!big.ok && big.message).toMatch(/^the playbook would take \d+ bytes on disk; the limit is 4096$/);
    expect(await s.store.create(draft({ steps: [{ title: "a", detail: "broken \ud800 half" }] }))).toEqual({
      ok: false,
      code: "invalid_input",
      message: "steps[0].detail contains an unpaired UTF-16 surrogate",
    });
    expect(await s.store.create(draft({ title: "" }))).toEqual({ ok: false, code: "invalid_input", message: "title must not be empty" });
    expect(await s.store.create(draft(), { idempotencyKey: "k".repeat(201) })).toMatchObject({ ok: false, code: "invalid_input" });
    const made = expectOk(await s.store.create(draft()));
    expect(await s.store.update(made.slug, { title: "" })).toEqual({ ok: false, code: "invalid_input", message: "title must not be empty" });
    expect(await s.store.update(made.slug, {}, 0)).toEqual({ ok: false, code: "invalid_input", message: "expectedRevision must be a positive integer" });
    const grown = await small.store.create(draft());
    expect(await small.store.update(expectOk(grown).slug, { document: "z".repeat(5000) })).toMatchObject({ ok: false, code: "invalid_input" });
    expect((await s.store.loadAll()).playbooks).toHaveLength(1);
  });

  it("numbers repeated titles; concurrent creates of one title get distinct slugs, none overwritten", async () => {
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => s.store.create(draft({ document: `doc ${i}` }))));
    const slugs = results.map((r) => expectOk(r).slug);
    expect(new Set(slugs).size).toBe(60);
    expect(slugs).toContain("bake-normals");
    expect(slugs).toContain("bake-normals-60");
    const all = await s.another().loadAll();
    expect(all.playbooks.map((p) => p.document).sort()).toEqual(Array.from({ length: 60 }, (_, i) => `doc ${i}`).sort());
    expect(expectOk(await s.store.create(draft({ title: "日本語" }))).slug).toBe("playbook");
  });

  it("two stores creating one title at once never share a slug", async () => {
    const other = s.another();
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? s.store : other).create(draft({ document: `d${i}` }))));
    expect(new Set(results.map((r) => expectOk(r).slug)).size).toBe(40);
  });

  it("update patches named fields, bumps revision; a stale expectedRevision is a conflict naming the current revision", async () => {
    const made = expectOk(await s.store.create(draft()));
    const next = expectOk(await s.store.update(made.slug, { summary: "new" }, 1));
    expect(next).toMatchObject({ revision: 2, summary: "new", title: made.title, createdAt: made.createdAt });
    expect(next.updatedAt > made.updatedAt).toBe(true);
    const stale = await s.store.update(made.slug, { summary: "lost" }, 1);
    expect(stale).toEqual({
      ok: false,
      code: "conflict",
      currentRevision: 2,
      message: `playbook "${made.slug}" is at revision 2, not the expected 1; get it again and reapply the change`,
    });
    expect(await s.store.update(made.slug, {})).toEqual({ ok: true, playbook: next });
    expect(await s.store.update("nope", { summary: "x" })).toEqual({ ok: false, code: "not_found", message: 'no private playbook "nope"' });
    expect(await s.store.update("../etc/passwd", { summary: "x" })).toMatchObject({ ok: false, code: "not_found" });
    expect((await s.another().loadOne(made.slug)).playbook).toEqual(next);
  });

  it("no lost update: 2 stores × 16 clients read-modify-write one playbook", async () => {
    const made = expectOk(await s.store.create(draft({ tags: [] })));
    const stores = [s.store, s.another()];
    let conflicts = 0;
    const client = async (id: number): Promise<void> => {
      const store = stores[id % 2]!;
      for (;;) {
        const current = (await store.loadOne(made.slug)).playbook!;
        const result = await store.update(made.slug, { tags: [...current.tags, `c${id}`] }, current.revision);
        if (result.ok) return;
        expect(result.code).toBe("conflict");
        expect(result.ok === false && result.currentRevision).toBeGreaterThan(current.revision - 1);
        conflicts += 1;
      }
    };
    await Promise.all(Array.from({ length: 32 }, (_, i) => client(i)));
    const final = (await s.another().loadOne(made.slug)).playbook!;
    expect(final.revision).toBe(33);
    expect([...final.tags].sort()).toEqual(Array.from({ length: 32 }, (_, i) => `c${i}`).sort());
    expect(conflicts).toBeGreaterThan(0);
  });

  it("updates without expectedRevision from 2 stores × 16 callers all land, one revision each", async () => {
    const made = expectOk(await s.store.create(draft()));
    const stores = [s.store, s.another()];
    const results = await Promise.all(Array.from({ length: 32 }, (_, i) => stores[i % 2]!.update(made.slug, { summary: `s${i}` })));
    expect(results.map((r) => r.ok)).toEqual(Array.from({ length: 32 }, () => true));
    expect(new Set(results.map((r) => expectOk(r).revision)).size).toBe(32);
    expect((await s.another().loadOne(made.slug)).playbook?.revision).toBe(33);
  });

  it("a retry with the same idempotency key answers the first playbook, also after a restart", async () => {
    const first = await s.store.create(draft(), { idempotencyKey: "req-1 ' ; 日本" });
    const again = await s.store.create(draft(), { idempotencyKey: "req-1 ' ; 日本" });
    expect(again).toEqual({ ok: true, playbook: expectOk(first), replayed: true });
    const racing = await Promise.all(Array.from({ length: 12 }, () => s.store.create(draft(), { idempotencyKey: "req-2" })));
    expect(new Set(racing.map((r) => expectOk(r).slug)).size).toBe(1);
    expect(racing.filter((r) => r.ok && r.replayed === true)).toHaveLength(11);
    const restarted = s.another();
    await restarted.loadAll();
    expect(await restarted.create(draft(), { idempotencyKey: "req-1 ' ; 日本" })).toMatchObject({ ok: true, replayed: true, playbook: { slug: expectOk(first).slug } });
    expect(expectOk(await restarted.create(draft(), { idempotencyKey: "req-3" })).slug).not.toBe(expectOk(first).slug);
    expect((await restarted.loadAll()).playbooks).toHaveLength(3);
  });

  it("a restarted store that has not listed anything yet still knows the keys", async () => {
    const first = expectOk(await s.store.create(draft(), { idempotencyKey: "k" }));
    const restarted = s.another();
    expect(await restarted.create(draft(), { idempotencyKey: "k" })).toMatchObject({ ok: true, replayed: true, playbook: { slug: first.slug } });
  });

  it("regression: an idempotency key reused with a different payload is a conflict naming the key, never a silent success", async () => {
    // The probe: create {K, document FIRST}, then create {K, another title, document SECOND}.
    const first = expectOk(await s.store.create(draft({ document: "FIRST" }), { idempotencyKey: "K-日本" }));
    const reused = await s.store.create(draft({ title: "Bake normals second", document: "SECOND" }), { idempotencyKey: "K-日本" });
    expect(reused).toEqual({
      ok: false,
      code: "conflict",
      message: 'idempotencyKey "K-日本" was already used for a create with different fields; send a new key for a new playbook, or the first request\'s fields unchanged to get its answer again',
    });
    // Any field counts, tags and step details included; the same fields are still a retry, also after a restart.
    for (const other of [draft({ document: "FIRST", tags: ["x"] }), draft({ document: "FIRST", steps: [{ title: "Cage", detail: "other" }] })]) {
      expect(await s.store.create(other, { idempotencyKey: "K-日本" })).toMatchObject({ ok: false, code: "conflict" });
    }
    const restarted = s.another();
    expect(await restarted.create(draft({ document: "FIRST" }), { idempotencyKey: "K-日本" })).toEqual({ ok: true, playbook: first, replayed: true });
    expect(await restarted.create(draft({ document: "SECOND" }), { idempotencyKey: "K-日本" })).toMatchObject({ ok: false, code: "conflict" });
    // Racing reuses: one create, the rest replays or conflicts, nothing stored twice, FIRST unchanged.
    const racing = await Promise.all(Array.from({ length: 8 }, (_, i) => s.store.create(draft({ document: i % 2 ? "A" : "B" }), { idempotencyKey: "race" })));
    expect(racing.filter((r) => r.ok && r.replayed !== true)).toHaveLength(1);
    const winner = racing.find((r) => r.ok && r.replayed !== true) as StoreResult & { ok: true };
    for (const r of racing) {
      if (r.ok) expect(r.playbook.document).toBe(winner.playbook.document);
      else expect(r).toMatchObject({ code: "conflict" });
    }
    expect((await s.another().loadOne(first.slug)).playbook?.document).toBe("FIRST");
    expect((await s.another().loadAll()).playbooks).toHaveLength(2);
  });

  it("regression: tag length is bounded — 40 tags of 20,000 characters are refused, as is every stored string past its limit", async () => {
    const huge = Array.from({ length: 40 }, (_, i) => `${i}${"t".repeat(19_999)}`);
    expect(await s.store.create(draft({ tags: huge }))).toEqual({ ok: false, code: "invalid_input", message: "tags[0] is 20000 characters; the limit is 64" });
    const L = PLAYBOOK_LIMITS;
    const over: Array<[Partial<PlaybookDraft>, string]> = [
      [{ tags: Array.from({ length: L.tags + 1 }, (_, i) => `t${i}`) }, `tags has ${L.tags + 1} entries; the limit is ${L.tags}`],
      [{ title: "T".repeat(L.title + 1) }, `title is ${L.title + 1} characters; the limit is ${L.title}`],
      [{ summary: "s".repeat(L.summary + 1) }, `summary is ${L.summary + 1} characters; the limit is ${L.summary}`],
      [{ whenToUse: "w".repeat(L.whenToUse + 1) }, `whenToUse is ${L.whenToUse + 1} characters; the limit is ${L.whenToUse}`],
      [{ steps: [{ title: "x".repeat(L.stepTitle + 1), detail: "d" }] }, `steps[0].title is ${L.stepTitle + 1} characters; the limit is ${L.stepTitle}`],
      [{ steps: [{ title: "x", detail: "d".repeat(L.stepDetail + 1) }] }, `steps[0].detail is ${L.stepDetail + 1} characters; the limit is ${L.stepDetail}`],
      [{ steps: Array.from({ length: L.steps + 1 }, () => ({ title: "x", detail: "d" })) }, `steps has ${L.steps + 1} entries; the limit is ${L.steps}`],
      [{ acceptanceCriteria: ["c".repeat(L.criterion + 1)] }, `acceptanceCriteria[0] is ${L.criterion + 1} characters; the limit is ${L.criterion}`],
      [{ acceptanceCriteria: Array.from({ length: L.acceptanceCriteria + 1 }, () => "c") }, `acceptanceCriteria has ${L.acceptanceCriteria + 1} entries; the limit is ${L.acceptanceCriteria}`],
    ];
    for (const [fields, message] of over) {
      expect(await s.store.create(draft(fields))).toEqual({ ok: false, code: "invalid_input", message });
    }
    const made = expectOk(await s.store.create(draft()));
    expect(await s.store.update(made.slug, { tags: huge })).toEqual({ ok: false, code: "invalid_input", message: "tags[0] is 20000 characters; the limit is 64" });
    expect(await s.store.update(made.slug, { title: "T".repeat(L.title + 1) })).toMatchObject({ ok: false, code: "invalid_input" });
    // At the bounds exactly, everything is taken.
    const full = draft({ title: "T".repeat(L.title), tags: Array.from({ length: L.tags }, (_, i) => `${i}`.padEnd(L.tag, "t")) });
    expect(expectOk(await s.store.create(full)).tags).toEqual(full.tags);
    expect((await s.another().loadAll()).playbooks).toHaveLength(2);
  });
});

describe.each(KINDS)("%s store history", (kind) => {
  let s: Opened;
  beforeEach(async () => {
    s = await openKind(kind);
  });
  const all = { start: 0, limit: 100 };

  it("keeps every revision: history newest first with events and changed fields, windowed; get by revision", async () => {
    const made = expectOk(await s.store.create(draft()));
    expectOk(await s.store.update(made.slug, { summary: "second" }, 1));
    expectOk(await s.store.update(made.slug, { tags: ["x"], document: "third" }, 2));
    const history = await s.another().history(made.slug, all);
    expect(history).toMatchObject({ ok: true, page: { total: 3, deleted: false } });
    const entries = history.ok ? history.page.entries : [];
    expect(entries.map((e) => [e.revision, e.event, e.changed])).toEqual([
      [3, "update", ["tags", "document"]],
      [2, "update", ["summary"]],
      [1, "create", ["title", "summary", "whenToUse", "steps", "acceptanceCriteria", "tags", "document"]],
    ]);
    expect(entries.every((e) => e.user === null && typeof e.at === "string")).toBe(true);
    const window = await s.store.history(made.slug, { start: 1, limit: 1 });
    expect(window.ok && window.page.entries.map((e) => e.revision)).toEqual([2]);
    const second = await s.another().loadRevision(made.slug, 2);
    expect(second).toMatchObject({ ok: true, deleted: false, playbook: { revision: 2, summary: "second", document: made.document } });
    expect(await s.store.loadRevision(made.slug, 9)).toMatchObject({ ok: false, code: "not_found" });
    expect(await s.store.loadRevision("nope", 1)).toMatchObject({ ok: false, code: "not_found", message: 'no private playbook "nope"' });
    expect(await s.store.history("../../etc", all)).toMatchObject({ ok: false, code: "not_found" });
  });

  it("restore writes a new revision equal to an old one, guarded by expectedRevision", async () => {
    const made = expectOk(await s.store.create(draft()));
    expectOk(await s.store.update(made.slug, { summary: "bad edit", steps: [] }, 1));
    expect(await s.store.restore(made.slug, 1, 1)).toMatchObject({ ok: false, code: "conflict", currentRevision: 2 });
    const restored = expectOk(await s.store.restore(made.slug, 1, 2));
    expect(restored).toMatchObject({ revision: 3, summary: made.summary, steps: made.steps, createdAt: made.createdAt });
    expect((await s.another().loadOne(made.slug)).playbook).toEqual(restored);
    const history = await s.store.history(made.slug, all);
    expect(history.ok && history.page.entries[0]).toMatchObject({ revision: 3, event: "restore", restoredFrom: 1, changed: ["summary", "steps"] });
    expect(await s.store.restore(made.slug, 7)).toMatchObject({ ok: false, code: "not_found" });
    expect(await s.store.restore(made.slug, 0)).toMatchObject({ ok: false, code: "invalid_input" });
  });

  it("delete is a restorable tombstone: not_found everywhere but history; the slug stays taken", async () => {
    const made = expectOk(await s.store.create(draft()));
    expect(await s.store.remove(made.slug, 5)).toMatchObject({ ok: false, code: "conflict", currentRevision: 1 });
    const tombstone = expectOk(await s.store.remove(made.slug, 1));
    expect(tombstone.revision).toBe(2);
    const other = s.another();
    expect((await other.loadOne(made.slug)).playbook).toBeNull();
    expect((await other.loadAll()).playbooks).toEqual([]);
    expect(await other.update(made.slug, { summary: "x" })).toMatchObject({ ok: false, code: "not_found" });
    expect(await other.remove(made.slug)).toMatchObject({ ok: false, code: "not_found" });
    const history = await other.history(made.slug, all);
    expect(history).toMatchObject({ ok: true, page: { deleted: true, total: 2 } });
    expect(history.ok && history.page.entries[0]).toMatchObject({ revision: 2, event: "delete", changed: [] });
    expect(await other.loadRevision(made.slug, 1)).toMatchObject({ ok: true, deleted: true, playbook: { title: made.title } });
    expect(await other.restore(made.slug, 2)).toMatchObject({ ok: false, code: "invalid_input" });
    // A new playbook of the same title gets its own slug: the deleted one can still come back.
    expect(expectOk(await other.create(draft())).slug).toBe(`${made.slug}-2`);
    const back = expectOk(await other.restore(made.slug, 1, 2));
    expect(back).toMatchObject({ revision: 3, title: made.title, document: made.document });
    expect((await s.another().loadAll()).playbooks.map((p) => p.slug).sort()).toEqual([made.slug, `${made.slug}-2`]);
  });

  it("retention keeps the newest revisions only", async () => {
    const small = await openKind(kind, { historyLimit: 3 });
    const made = expectOk(await small.store.create(draft()));
    for (let i = 1; i <= 6; i++) expectOk(await small.store.update(made.slug, { summary: `v${i}` }));
    const history = await small.another().history(made.slug, all);
    expect(history.ok && history.page.entries.map((e) => e.revision)).toEqual([7, 6, 5]);
    expect(await small.store.loadRevision(made.slug, 2)).toMatchObject({ ok: false, code: "not_found" });
    expect(expectOk(await small.store.restore(made.slug, 5))).toMatchObject({ revision: 8, summary: "v4" });
  });

  it("2 stores × 16 clients updating and restoring concurrently lose nothing: every acknowledged revision is kept, losers get conflict", async () => {
    const made = expectOk(await s.store.create(draft({ tags: [] })));
    const stores = [s.store, s.another()];
    const acknowledged = new Map<number, string>();
    let conflicts = 0;
    const client = async (id: number): Promise<void> => {
      const store = stores[id % 2]!;
      for (let done = 0; done < 2; ) {
        const current = (await store.loadOne(made.slug)).playbook!;
        const result = id % 4 === 3 && current.revision > 1
          ? await store.restore(made.slug, current.revision - 1, current.revision)
          : await store.update(made.slug, { summary: `c${id}-${done}` }, current.revision);
        if (result.ok) {
          acknowledged.set(result.playbook.revision, result.playbook.summary);
          done += 1;
        } else {
          expect(result.code).toBe("conflict");
          conflicts += 1;
        }
      }
    };
    await Promise.all(Array.from({ length: 32 }, (_, i) => client(i)));
    expect(acknowledged.size).toBe(64);
    const history = await s.another().history(made.slug, { start: 0, limit: 100 });
    const kept = history.ok ? history.page.entries : [];
    // The newest 50 revisions are kept (the default retention), each with what was acknowledged for it.
    expect(kept.map((e) => e.revision)).toEqual(Array.from({ length: 50 }, (_, i) => 65 - i));
    for (const entry of kept.slice(0, 10)) {
      const revision = await s.store.loadRevision(made.slug, entry.revision);
      expect(revision.ok && revision.playbook.summary).toBe(acknowledged.get(entry.revision));
    }
    expect(conflicts).toBeGreaterThan(0);
  });
});

describe.skipIf(KINDS.length < 2)("file and PostgreSQL stores side by side", () => {
  it("give the same answers to the same calls", async () => {
    const script = async (store: PlaybookStore): Promise<unknown[]> => {
      const out: unknown[] = [];
      out.push(await store.create(draft()));
      out.push(await store.create(draft()));
      out.push(await store.create(draft({ title: `${HOSTILE}${UNICODE}`, document: "\u0000" })));
      out.push(await store.create(draft({ title: "" })));
      out.push(await store.create(draft({ tags: ["\ud800"] })));
      out.push(await store.create(draft({ document: "x".repeat(2_000_000) })));
      out.push(await store.create(draft(), { idempotencyKey: "same" }));
      out.push(await store.create(draft(), { idempotencyKey: "same" }));
      out.push(await store.update("bake-normals", { tags: ["a", "b"] }, 1));
      out.push(await store.update("bake-normals", { tags: ["c"] }, 1));
      out.push(await store.update("bake-normals", { steps: [] }));
      out.push(await store.update("missing", { tags: [] }));
      out.push(await store.loadOne("bake-normals-2"));
      out.push(await store.loadOne("Not A Slug"));
      out.push(await store.loadAll());
      return out;
    };
    const file = await script((await openKind("file")).store);
    const postgres = await script((await openKind("postgres")).store);
    expect(postgres).toEqual(file);
  });
});
