/**
 * The `recipe` tool over the file store and over the PostgreSQL store gives
 * the same answers and the same errors to the same calls, hostile input
 * included. Times and catalog revisions are masked: the clocks differ, and a
 * replica's own NOTIFY may land before or after its write is published.
 */
import { afterAll, describe, expect, it } from "vitest";
import { sharedPostgres } from "../../postgres.js";
import { createArgs, makeFixture, type Fixture } from "./recipe-fixture.js";

const cluster = await sharedPostgres();
if (typeof cluster === "string") console.log(`recipe tool store contract skipped: ${cluster}`);

const HOSTILE = "'; DROP TABLE recipe_server_playbooks; -- $1 \\' %_ $$ \u0000 日本語 🎨 e\u0301 \u2028 \u202e";

async function script(fx: Fixture): Promise<unknown[]> {
  const out: unknown[] = [];
  // The raw text: a long answer is one window of a paged result, not a whole JSON document.
  const push = async (args: Record<string, unknown>): Promise<void> => {
    const outcome = await fx.registry.call("recipe", args, fx.context);
    if (outcome.kind !== "result") throw new Error("recipe tool not registered");
    out.push(outcome.result.content[0]!.text);
  };
  await push(
    createArgs({
      title: `Hostile ${HOSTILE}`.slice(0, 200),
      summary: HOSTILE,
      whenToUse: HOSTILE,
      steps: [{ title: HOSTILE, detail: HOSTILE }],
      acceptanceCriteria: [HOSTILE],
      // Each tag at its length bound (PLAYBOOK_LIMITS.tag), hostile to the last character.
      tags: Array.from({ length: 40 }, (_, i) => `${i}${HOSTILE.slice(-60)}`.padStart(64, "t")),
      document: `${"d".repeat(80_000 - HOSTILE.length)}${HOSTILE}`,
    }),
  );
  await push(createArgs());
  await push(createArgs());
  await push({ action: "get", recipeId: "private/retopologize-a-scanned-head-2" });
  await push({ action: "get", recipeId: (JSON.parse(out[0] as string) as { context: { recipeId: string } }).context.recipeId });
  await push({ action: "search", query: "scanned head retopology", visibility: "private" });
  await push({ action: "update", recipeId: "private/retopologize-a-scanned-head", summary: "Changed.", expectedRevision: 1 });
  await push({ action: "update", recipeId: "private/retopologize-a-scanned-head", summary: "Stale.", expectedRevision: 1 });
  await push({ action: "update", recipeId: "private/nothing-here", summary: "x" });
  const publicId = [...fx.library.current()!.recipes.values()].find((r) => r.visibility === "public")!.recipeId;
  await push({ action: "update", recipeId: publicId, summary: "x" });
  await push(createArgs({ tags: Array.from({ length: 41 }, (_, i) => `t${i}`) }));
  await push(createArgs({ document: "x".repeat(80_001) }));
  await push(createArgs({ summary: "half \ud800 surrogate" }));
  await push(createArgs({ title: "Keyed", idempotencyKey: "retry-1" }));
  await push(createArgs({ title: "Keyed", idempotencyKey: "retry-1" }));
  await push(createArgs({ title: "Keyed", idempotencyKey: "" }));
  await push({ action: "get", recipeId: "private/keyed" });
  return out;
}

function masked(answers: unknown[]): unknown[] {
  return answers.map((text) =>
    String(text)
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, "<time>")
      .replace(/"revision":(\d+)\}$/, '"revision":"<catalog>"}'),
  );
}

function errorOf(text: unknown): string {
  const match = /"error":"([a-z_]+)"/.exec(String(text).slice(0, 200));
  return match?.[1] ?? "ok";
}

describe.skipIf(typeof cluster === "string")("recipe tool: file store and PostgreSQL store", () => {
  const fixtures: Fixture[] = [];
  afterAll(async () => {
    await Promise.all(fixtures.map((f) => f.close()));
  });

  it("answer the same to the same calls, errors included", async () => {
    if (typeof cluster === "string") return;
    const file = await makeFixture();
    const postgres = await makeFixture({ storeUrl: await cluster.createDatabase() });
    fixtures.push(file, postgres);
    const fromFile = await script(file);
    const fromPostgres = await script(postgres);
    expect(masked(fromPostgres)).toEqual(masked(fromFile));
    // And the script did exercise what it claims to.
    const errors = fromFile.map(errorOf);
    expect(errors).toEqual(["ok", "ok", "ok", "ok", "ok", "ok", "ok", "conflict", "not_found", "read_only", "invalid_input", "invalid_input", "invalid_input", "ok", "ok", "invalid_input", "ok"]);
  });

  it("a keyed create survives a restart of the PostgreSQL-backed library", async () => {
    if (typeof cluster === "string") return;
    const url = await cluster.createDatabase();
    const first = await makeFixture({ storeUrl: url });
    const created = await first.call(createArgs({ idempotencyKey: "k-restart" }));
    await first.close();
    const second = await makeFixture({ storeUrl: url });
    fixtures.push(second);
    const retried = await second.call(createArgs({ idempotencyKey: "k-restart" }));
    expect(retried.context.recipeId).toBe(created.context.recipeId);
    expect(retried.context.revision).toBe(1);
  });
});
