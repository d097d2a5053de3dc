/**
 * The `recipe` tool's history actions on both stores: history, get at a
 * revision, restore and delete, with the answers a caller acts on (conflicts
 * naming revisions, deleted playbooks hidden from search and get).
 */
import { afterAll, describe, expect, it } from "vitest";
import { sharedPostgres } from "../../postgres.js";
import { createArgs, makeFixture, type Fixture } from "./recipe-fixture.js";

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`recipe history tool tests on PostgreSQL skipped: ${cluster}`);

const fixtures: Fixture[] = [];
afterAll(async () => {
  await Promise.all(fixtures.map((f) => f.close()));
});

const KINDS = typeof cluster === "string" ? ["file"] : ["file", "postgres"];

async function fixture(kind: string): Promise<Fixture> {
  const f = await makeFixture(kind === "postgres" && typeof cluster !== "string" ? { storeUrl: await cluster.createDatabase() } : {});
  fixtures.push(f);
  return f;
}

describe.each(KINDS)("recipe tool history (%s store)", (kind) => {
  it("history lists revisions newest first; get reads one; restore brings it back guarded by expectedRevision", async () => {
    const f = await fixture(kind);
    const made = await f.call(createArgs());
    const id = made.context.recipeId as string;
    expect((await f.call({ action: "update", recipeId: id, summary: "A bad edit.", expectedRevision: 1 })).success).toBe(true);
    const history = await f.call({ action: "history", recipeId: id });
    expect(history.success).toBe(true);
    expect(history.context).toMatchObject({ recipeId: id, deleted: false, total: 2, start: 0 });
    expect(history.context.entries.map((e: { revision: number; event: string; changed: string[] }) => [e.revision, e.event, e.changed])).toEqual([
      [2, "update", ["summary"]],
      [1, "create", ["title", "summary", "whenToUse", "steps", "acceptanceCriteria", "tags", "document"]],
    ]);
    const old = await f.call({ action: "get", recipeId: id, revision: 1 });
    expect(old.context).toMatchObject({ recipeId: id, revision: 1, summary: createArgs().summary, deleted: false });
    const stale = await f.call({ action: "restore", recipeId: id, revision: 1, expectedRevision: 1 });
    expect(stale).toMatchObject({ success: false, error: "conflict", context: { recipeId: id, currentRevision: 2, expectedRevision: 1 } });
    const restored = await f.call({ action: "restore", recipeId: id, revision: 1, expectedRevision: 2 });
    expect(restored).toMatchObject({ success: true, context: { recipeId: id, revision: 3, restoredFrom: 1 } });
    expect((await f.call({ action: "get", recipeId: id })).context).toMatchObject({ revision: 3, summary: createArgs().summary });
    expect((await f.call({ action: "get", recipeId: id, revision: 99 })).error).toBe("not_found");
  });

  it("delete hides the playbook from search and get (not_found) but not from history; restore undeletes", async () => {
    const f = await fixture(kind);
    const id = (await f.call(createArgs())).context.recipeId as string;
    const deleted = await f.call({ action: "delete", recipeId: id, expectedRevision: 1 });
    expect(deleted).toMatchObject({ success: true, context: { recipeId: id, revision: 2, restorable: 1 } });
    expect((await f.call({ action: "get", recipeId: id })).error).toBe("not_found");
    const search = await f.call({ action: "search", query: "retopologize scanned head", visibility: "private" });
    expect(search.context.recipes).toEqual([]);
    expect(f.library.current()!.recipes.has(id)).toBe(false);
    expect((await f.call({ action: "update", recipeId: id, summary: "x" })).error).toBe("not_found");
    expect((await f.call({ action: "delete", recipeId: id })).error).toBe("not_found");
    const history = await f.call({ action: "history", recipeId: id });
    expect(history.context).toMatchObject({ deleted: true, total: 2 });
    expect(history.context.entries[0]).toMatchObject({ revision: 2, event: "delete" });
    expect((await f.call({ action: "get", recipeId: id, revision: 1 })).context).toMatchObject({ deleted: true, revision: 1 });
    expect((await f.call({ action: "restore", recipeId: id, revision: 2 })).error).toBe("invalid_input");
    expect((await f.call({ action: "restore", recipeId: id, revision: 1, expectedRevision: 2 })).success).toBe(true);
    const back = await f.call({ action: "search", query: "retopologize scanned head", visibility: "private" });
    expect(back.context.recipes.map((r: { recipeId: string }) => r.recipeId)).toEqual([id]);
  });

  it("public recipes have no history and cannot be restored or deleted; unknown and hostile ids are not_found", async () => {
    const f = await fixture(kind);
    const publicId = [...f.library.current()!.recipes.values()].find((r) => r.visibility === "public")!.recipeId;
    expect((await f.call({ action: "delete", recipeId: publicId })).error).toBe("read_only");
    expect((await f.call({ action: "restore", recipeId: publicId, revision: 1 })).error).toBe("read_only");
    expect((await f.call({ action: "history", recipeId: publicId })).error).toBe("not_found");
    for (const recipeId of ["private/../../etc/passwd", "private/", "private/nope", `private/${"x".repeat(5000)}`]) {
      for (const args of [{ action: "history", recipeId }, { action: "delete", recipeId }, { action: "restore", recipeId, revision: 1 }, { action: "get", recipeId, revision: 1 }]) {
        const answer = await f.call(args);
        expect(answer.error).toBe("not_found");
        expect(answer.message.length).toBeLessThan(400);
      }
    }
    for (const bad of [{ revision: 0 }, { revision: -1 }, { revision: 1.5 }, { revision: "1" }]) {
      expect((await f.call({ action: "restore", recipeId: "private/x", ...bad })).error).toBe("invalid_input");
    }
    expect((await f.call({ action: "history", recipeId: "private/x", limit: 1000 })).error).toBe("invalid_input");
  });
});
