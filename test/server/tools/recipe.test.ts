import fs from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { afterEach, describe, expect, it } from "vitest";
import { WARMING_UP_MESSAGE } from "../../../src/server/tools/recipe.js";
import { createArgs, makeFixture, type Fixture } from "./recipe-fixture.js";

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function loaded(): Promise<Fixture> {
  fixture = await makeFixture();
  return fixture;
}

describe("recipe tool: registration", () => {
  it("advertises only action and the window, as a passthrough", async () => {
    const f = await loaded();
    const [tool] = f.registry.list();
    expect(tool!.name).toBe("recipe");
    const schema = tool!.inputSchema as { properties: Record<string, { enum?: string[] }>; required: string[]; additionalProperties: boolean };
    expect(Object.keys(schema.properties).sort()).toEqual(["action", "resultEnd", "resultStart"]);
    expect(schema.properties.action!.enum).toEqual(["search", "get", "create", "update", "history", "restore", "delete"]);
    expect(schema.required).toEqual(["action"]);
    expect(schema.additionalProperties).toBe(true);
    expect(tool!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
  });

  it("tells an agent when to use each action and what to do while search warms up", async () => {
    const f = await loaded();
    const text = f.registry.list()[0]!.description;
    for (const action of ["search", "get", "create", "update", "history", "restore", "delete"]) expect(text).toContain(`action=${action}`);
    expect(text).toMatch(/before tackling a substantive task/);
    expect(text).toMatch(/Search first to avoid duplicates/);
    expect(text).toMatch(/update it instead/);
    expect(text).toContain(WARMING_UP_MESSAGE);
    expect(text).toContain("title (required, ≤200 chars)");
  });

  it("a missing or unknown action is refused by the advertised schema", async () => {
    const f = await loaded();
    const none = await f.call({ query: "x" });
    expect(none.error).toBe("invalid_input");
    expect(none.message).toContain("action");
    const bad = await f.call({ action: "destroy", recipeId: "private/x" });
    expect(bad.error).toBe("invalid_input");
    expect(bad.message).toContain("$.action");
  });
});

describe("recipe tool: before the catalog is indexed", () => {
  it("answers not_ready with the exact warming-up message for every action", async () => {
    fixture = await makeFixture({ load: false });
    for (const args of [
      { action: "search", query: "bevel" },
      { action: "get", recipeId: "modeling/Bevel edges" },
      createArgs(),
      { action: "update", recipeId: "private/x", title: "t" },
    ]) {
      const answer = await fixture.call(args);
      expect(answer.error).toBe("not_ready");
      expect(answer.message).toBe("AI Search is warming up; continue without recipes");
      expect(answer.result.isError).toBe(true);
    }
    // Nothing was written while not ready.
    await expect(fs.readdir(fixture.privateDir)).rejects.toThrow();
  });

  it("still reports invalid input first: the agent can fix the call while waiting", async () => {
    fixture = await makeFixture({ load: false });
    const answer = await fixture.call({ action: "search", query: "" });
    expect(answer.error).toBe("invalid_input");
  });
});

describe("recipe tool: invalid input", () => {
  it("names field and rule, never the value, and carries the list in context.errors", async () => {
    const f = await loaded();
    const answer = await f.call(createArgs({ title: "SECRET".repeat(40), tags: Array(41).fill("t") }));
    expect(answer.error).toBe("invalid_input");
    expect(answer.message).not.toContain("SECRET");
    expect(answer.context.action).toBe("create");
    expect([...answer.context.errors].sort()).toEqual([expect.stringMatching(/^\$\.tags: .*40/), expect.stringMatching(/^\$\.title: .*200/)]);
  });

  it("refuses fields of no action and fields of another action", async () => {
    const f = await loaded();
    const stray = await f.call({ action: "search", query: "x", colour: "red" });
    expect(stray.context.errors).toEqual(["$.colour: is not a field of any recipe action"]);
    const misplaced = await f.call(createArgs({ recipeId: "private/retopologize-a-scanned-head" }));
    expect(misplaced.error).toBe("invalid_input");
    expect(misplaced.message).toContain("belongs to get, update");
  });

  it("a bad window is invalid_input even with a valid action", async () => {
    const f = await loaded();
    expect((await f.call({ action: "search", query: "x", resultStart: 0, resultEnd: 8000 })).success).toBe(true);
    const wide = await f.call({ action: "search", query: "x", resultStart: 0, resultEnd: 8001 });
    expect(wide.error).toBe("invalid_input");
    expect(wide.message).toContain("8000");
  });
});

describe("recipe tool: search", () => {
  it("maps public Markdown and YAML recipes onto title/summary with skill and tags", async () => {
    const f = await loaded();
    const answer = await f.call({ action: "search", query: "bevel edges" });
    expect(answer.success).toBe(true);
    expect(answer.context.mode).toBe("lexical");
    const top = answer.context.recipes[0];
    expect(top).toMatchObject({
      recipeId: "modeling/Bevel edges",
      title: "Bevel edges",
      visibility: "public",
      skill: "modeling",
      tags: ["modeling", "mesh"],
    });
    expect(top.summary).toContain("polyBevel3");
    expect(typeof top.score).toBe("number");
    expect(answer.revision).toBe(f.library.current()!.revision);
  });

  it("defaults limit to 5, honours 1..20 and floors fractions", async () => {
    const f = await loaded();
    for (let i = 0; i < 8; i += 1) {
      expect((await f.call(createArgs({ title: `Shared checklist ${i}` }))).success).toBe(true);
    }
    expect((await f.call({ action: "search", query: "shared checklist" })).context.recipes).toHaveLength(5);
    expect((await f.call({ action: "search", query: "shared checklist", limit: 20 })).context.recipes).toHaveLength(8);
    expect((await f.call({ action: "search", query: "shared checklist", limit: 2.5 })).context.recipes).toHaveLength(2);
  });

  it("filters by visibility", async () => {
    const f = await loaded();
    await f.call(createArgs({ title: "Bevel edges my way", summary: "My bevel edges routine" }));
    const priv = await f.call({ action: "search", query: "bevel edges", visibility: "private", limit: 20 });
    expect(priv.context.recipes.map((r: { recipeId: string }) => r.recipeId)).toEqual(["private/bevel-edges-my-way"]);
    expect(priv.context.recipes[0].skill).toBeUndefined();
    expect(priv.context.recipes[0].title).toBe("Bevel edges my way");
    const pub = await f.call({ action: "search", query: "bevel edges", visibility: "public", limit: 20 });
    expect(pub.context.recipes.every((r: { visibility: string }) => r.visibility === "public")).toBe(true);
    const all = await f.call({ action: "search", query: "bevel edges", limit: 20 });
    const ids = all.context.recipes.map((r: { recipeId: string }) => r.recipeId);
    expect(ids).toContain("private/bevel-edges-my-way");
    expect(ids).toContain("modeling/Bevel edges");
  });

  it("an empty catalog is ready, not warming up", async () => {
    fixture = await makeFixture({ skills: false });
    expect(fixture.library.current()!.recipes.size).toBe(0);
    const answer = await fixture.call({ action: "search", query: "anything" });
    expect(answer.success).toBe(true);
    expect(answer.context.recipes).toEqual([]);
  });
});

describe("recipe tool: get", () => {
  it("maps a Markdown anchor: title from the anchor, document from the content", async () => {
    const f = await loaded();
    const answer = await f.call({ action: "get", recipeId: "modeling/Freeze transforms" });
    expect(answer.success).toBe(true);
    expect(answer.context).toMatchObject({
      recipeId: "modeling/Freeze transforms",
      visibility: "public",
      format: "markdown",
      skill: "modeling",
      title: "Freeze transforms",
      whenToUse: "hard surface cleanup, chamfer, rounded corners",
      steps: [],
      acceptanceCriteria: [],
      tags: ["modeling", "mesh"],
    });
    expect(answer.context.document).toBe("## Freeze transforms ##\n\nFreeze, then delete history before export.");
    expect(answer.context.summary).toContain("Freeze");
  });

  it("maps a YAML recipe with inputs_schema, steps, output_contract, pack and the entry as YAML", async () => {
    const f = await loaded();
    const answer = await f.call({ action: "get", recipeId: "modeling/build_pbr_material", visibility: "public" });
    expect(answer.success).toBe(true);
    const c = answer.context;
    expect(c.format).toBe("yaml");
    expect(c.title).toBe("build_pbr_material");
    expect(c.summary).toBe("Build a PBR material network.");
    expect(c.inputs_schema).toMatchObject({ required: ["material_name"] });
    expect(c.steps).toEqual([{ tool: "maya_materials__create", arguments: { name: "${material_name}" } }]);
    expect(c.output_contract).toMatchObject({ required: ["changed"] });
    expect(c.pack).toMatchObject({ pack: "modeling-pack", tool_routing: { mesh__bevel: "maya_mesh__bevel" } });
    expect(parseYaml(c.document)).toMatchObject({ name: "build_pbr_material", undo: "delete the material" });
  });

  it("returns a private playbook with its revision and counts each get", async () => {
    const f = await loaded();
    const created = await f.call(createArgs());
    const recipeId = created.context.recipeId as string;
    const first = await f.call({ action: "get", recipeId });
    expect(first.context).toMatchObject({
      recipeId,
      visibility: "private",
      title: "Retopologize a scanned head",
      whenToUse: "When a scan or sculpt must be rigged and deformed.",
      steps: createArgs().steps,
      acceptanceCriteria: createArgs().acceptanceCriteria,
      tags: ["modeling", "retopology"],
      document: "# Retopology\n\nFull notes.\n",
      revision: 1,
      usage: { get: 1, uses: 1, apply: 0, validate: { pass: 0, fail: 0, passRate: null } },
    });
    expect(Date.parse(first.context.usage.lastUsedAt)).not.toBeNaN();
    const second = await f.call({ action: "get", recipeId, visibility: "private" });
    expect(second.context.usage.get).toBe(2);
  });

  it("paging a get is one use: later windows neither count nor change the text", async () => {
    const f = await loaded();
    const { context } = await f.call(createArgs({ document: "δ".repeat(20_000) }));
    const first = await f.registry.call("recipe", { action: "get", recipeId: context.recipeId }, f.context);
    if (first.kind !== "result") throw new Error("no result");
    const page = JSON.parse(first.result.content[1]!.text) as { totalChars: number; nextResultStart: number };
    let text = first.result.content[0]!.text;
    for (let start = page.nextResultStart; start < page.totalChars; start += 8000) {
      const next = await f.registry.call("recipe", { action: "get", recipeId: context.recipeId, resultStart: start, resultEnd: start + 8000 }, f.context);
      if (next.kind !== "result") throw new Error("no result");
      text += next.result.content[0]!.text;
    }
    expect(text.length).toBe(page.totalChars);
    const whole = JSON.parse(text) as { context: { document: string; usage: { get: number } } };
    expect(whole.context.document).toBe("δ".repeat(20_000));
    expect(whole.context.usage.get).toBe(1);
    expect(f.library.usage.get(context.recipeId)!.counts[0]).toBe(1);
  });

  it("records usage durably once flushed", async () => {
    const f = await loaded();
    await f.call({ action: "get", recipeId: "modeling/Bevel edges" });
    await f.call({ action: "get", recipeId: "modeling/Bevel edges" });
    await f.library.flush();
    const stored = JSON.parse(await fs.readFile(path.join(f.stateDir, "usage.json"), "utf8")) as { usage: Record<string, Record<string, { get: number }>> };
    expect(stored.usage["modeling/Bevel edges"]![""]!.get).toBe(2);
  });

  it("applies the visibility filter: a private id asked as public is not_found, and back", async () => {
    const f = await loaded();
    const { context } = await f.call(createArgs());
    const asPublic = await f.call({ action: "get", recipeId: context.recipeId, visibility: "public" });
    expect(asPublic.error).toBe("not_found");
    expect(asPublic.message).toContain("public recipe");
    const asPrivate = await f.call({ action: "get", recipeId: "modeling/Bevel edges", visibility: "private" });
    expect(asPrivate.error).toBe("not_found");
    // A refused get is not a use.
    expect(f.library.usage.get("modeling/Bevel edges")).toBeUndefined();
  });

  it("an unknown id is not_found with close ids; hostile ids are just unknown", async () => {
    const f = await loaded();
    const close = await f.call({ action: "get", recipeId: "modeling/Bevel edge" });
    expect(close.error).toBe("not_found");
    expect(close.context.suggestions).toContain("modeling/Bevel edges");
    for (const recipeId of ["private/../../etc/passwd", "../modeling/Bevel edges", "private/", "/", "x".repeat(5000), "__proto__"]) {
      const answer = await f.call({ action: "get", recipeId });
      expect(answer.error).toBe("not_found");
      expect(answer.message.length).toBeLessThan(400);
    }
  });
});

describe("recipe tool: create", () => {
  it("regression: tag length is bounded — 40 tags of 20,000 characters are refused, so no answer ever carries them", async () => {
    const f = await loaded();
    const huge = await f.call(createArgs({ tags: Array.from({ length: 40 }, (_, i) => `${i}${"t".repeat(19_999)}`) }));
    expect(huge).toMatchObject({ success: false, error: "invalid_input" });
    expect(huge.message).toContain("$.tags[0]");
    expect(huge.message.length).toBeLessThan(2000);
    expect((await f.call(createArgs({ tags: ["t".repeat(65)] }))).error).toBe("invalid_input");
    expect((await f.call(createArgs({ acceptanceCriteria: ["c".repeat(2001)] }))).error).toBe("invalid_input");
    // Nothing was stored, so later creates' `similar` lists and searches stay small.
    const fine = await f.call(createArgs({ tags: Array.from({ length: 40 }, (_, i) => `${i}`.padEnd(64, "t")) }));
    expect(fine.success).toBe(true);
    const found = await f.call({ action: "search", query: "retopologize scanned head", visibility: "private" });
    expect(JSON.stringify(found).length).toBeLessThan(20_000);
    expect(f.library.current()!.recipes.get(fine.context.recipeId)!.tags.every((t) => t.length <= 64)).toBe(true);
  });

  it("regression: an idempotency key reused with a different payload is a conflict naming the key", async () => {
    const f = await loaded();
    const first = await f.call(createArgs({ idempotencyKey: "K", document: "FIRST" }));
    expect(first.success).toBe(true);
    const second = await f.call(createArgs({ idempotencyKey: "K", title: "Retopologize a scanned head, second", document: "SECOND" }));
    expect(second).toMatchObject({ success: false, error: "conflict" });
    expect(second.message).toContain('idempotencyKey "K"');
    const retry = await f.call(createArgs({ idempotencyKey: "K", document: "FIRST" }));
    expect(retry).toMatchObject({ success: true, context: { recipeId: first.context.recipeId, revision: 1 } });
    const got = await f.call({ action: "get", recipeId: first.context.recipeId });
    expect(got.context.document).toBe("FIRST");
    // A long key is named by a short prefix only.
    const long = `L${"k".repeat(199)}`;
    await f.call(createArgs({ idempotencyKey: long, document: "A" }));
    const reused = await f.call(createArgs({ idempotencyKey: long, document: "B" }));
    expect(reused.error).toBe("conflict");
    expect(reused.message).not.toContain(long);
    expect(reused.message).toContain(long.slice(0, 40));
  });

  it("writes a private playbook, visible to the next search and get at once", async () => {
    const f = await loaded();
    const before = f.library.current()!.revision;
    const created = await f.call(createArgs({ tags: undefined }));
    expect(created.success).toBe(true);
    expect(created.context).toMatchObject({ recipeId: "private/retopologize-a-scanned-head", revision: 1, similar: [] });
    expect(created.revision).toBeGreaterThan(before);
    expect(created.revision).toBe(f.library.current()!.revision);
    const file = await fs.readFile(path.join(f.privateDir, "retopologize-a-scanned-head.md"), "utf8");
    expect(file).toContain("title: Retopologize a scanned head");
    const found = await f.call({ action: "search", query: "retopologize scanned head" });
    expect(found.context.recipes[0].recipeId).toBe("private/retopologize-a-scanned-head");
    const got = await f.call({ action: "get", recipeId: "private/retopologize-a-scanned-head" });
    expect(got.context.tags).toEqual([]);
  });

  it("lists up to 3 similar recipes, never itself, so the caller can switch to update", async () => {
    const f = await loaded();
    const first = await f.call(createArgs());
    expect(first.context.similar).toEqual([]);
    const again = await f.call(createArgs({ title: "Retopologize a scanned head quickly" }));
    expect(again.success).toBe(true);
    const ids = again.context.similar.map((s: { recipeId: string }) => s.recipeId);
    expect(ids).toContain(first.context.recipeId);
    expect(ids).not.toContain(again.context.recipeId);
    expect(again.message).toContain("update");
    for (let i = 0; i < 4; i += 1) await f.call(createArgs({ title: `Retopologize a scanned head v${i}` }));
    const many = await f.call(createArgs({ title: "Retopologize a scanned head final" }));
    expect(many.context.similar.length).toBe(3);
    expect(many.context.similar[0]).toMatchObject({ visibility: "private", title: expect.stringContaining("Retopologize") });
  });

  it("the same title twice gets two ids, never an overwrite", async () => {
    const f = await loaded();
    const a = await f.call(createArgs());
    const b = await f.call(createArgs({ document: "second" }));
    expect(a.context.recipeId).not.toBe(b.context.recipeId);
    const got = await f.call({ action: "get", recipeId: a.context.recipeId });
    expect(got.context.document).toBe("# Retopology\n\nFull notes.\n");
  });

  it("a title that makes no slug characters still gets a usable id", async () => {
    const f = await loaded();
    const created = await f.call(createArgs({ title: "日本語のレシピ" }));
    expect(created.success).toBe(true);
    const got = await f.call({ action: "get", recipeId: created.context.recipeId });
    expect(got.context.title).toBe("日本語のレシピ");
  });

  it("text the store cannot write is invalid_input, not a crash", async () => {
    const f = await loaded();
    const answer = await f.call(createArgs({ summary: "half \ud800 surrogate" }));
    expect(answer.error).toBe("invalid_input");
    expect(answer.message).toContain("summary");
  });
});

describe("recipe tool: update", () => {
  it("replaces the fields it names, keeps the rest, bumps the revision", async () => {
    const f = await loaded();
    const { context } = await f.call(createArgs());
    const updated = await f.call({ action: "update", recipeId: context.recipeId, summary: "New summary", tags: ["a"], expectedRevision: 1 });
    expect(updated.success).toBe(true);
    expect(updated.context).toEqual({ recipeId: context.recipeId, revision: 2, updated: ["summary", "tags"] });
    expect(updated.revision).toBe(f.library.current()!.revision);
    const got = await f.call({ action: "get", recipeId: context.recipeId });
    expect(got.context).toMatchObject({
      summary: "New summary",
      tags: ["a"],
      title: "Retopologize a scanned head",
      steps: createArgs().steps,
      document: "# Retopology\n\nFull notes.\n",
      revision: 2,
    });
    const found = await f.call({ action: "search", query: "New summary", visibility: "private" });
    expect(found.context.recipes[0].summary).toBe("New summary");
  });

  it("a stale expectedRevision is a conflict naming the current revision", async () => {
    const f = await loaded();
    const { context } = await f.call(createArgs());
    await f.call({ action: "update", recipeId: context.recipeId, title: "Second" });
    const stale = await f.call({ action: "update", recipeId: context.recipeId, title: "Third", expectedRevision: 1 });
    expect(stale.error).toBe("conflict");
    expect(stale.context).toMatchObject({ recipeId: context.recipeId, currentRevision: 2, expectedRevision: 1 });
    expect((await f.call({ action: "get", recipeId: context.recipeId })).context.title).toBe("Second");
  });

  it("concurrent updates from one stale revision: exactly one lands, the rest are conflicts", async () => {
    const f = await loaded();
    const { context } = await f.call(createArgs());
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => f.call({ action: "update", recipeId: context.recipeId, document: `writer ${i}`, expectedRevision: 1 })),
    );
    const winners = answers.filter((a) => a.success);
    expect(winners).toHaveLength(1);
    for (const loser of answers.filter((a) => !a.success)) {
      expect(loser.error).toBe("conflict");
      expect(loser.context.currentRevision).toBe(2);
    }
    const got = await f.call({ action: "get", recipeId: context.recipeId });
    expect(got.context.revision).toBe(2);
    expect(got.context.document).toMatch(/^writer \d+$/);
  });

  it("concurrent blind updates all land, one revision each", async () => {
    const f = await loaded();
    const { context } = await f.call(createArgs());
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => f.call({ action: "update", recipeId: context.recipeId, tags: [`t${i}`] })),
    );
    expect(answers.map((a) => a.context.revision).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 2));
  });

  it("a revision bumped on disk behind the catalog's back is still a conflict, reporting the file's revision", async () => {
    const f = await loaded();
    const { context } = await f.call(createArgs());
    const file = path.join(f.privateDir, "retopologize-a-scanned-head.md");
    await fs.writeFile(file, (await fs.readFile(file, "utf8")).replace(/^revision: 1$/m, "revision: 7"));
    const answer = await f.call({ action: "update", recipeId: context.recipeId, title: "x", expectedRevision: 1 });
    expect(answer.error).toBe("conflict");
    expect(answer.context.currentRevision).toBe(7);
    const retry = await f.call({ action: "update", recipeId: context.recipeId, title: "x", expectedRevision: 7 });
    expect(retry.context.revision).toBe(8);
  });

  it("public recipes are read_only; unknown ids are not_found", async () => {
    const f = await loaded();
    const pub = await f.call({ action: "update", recipeId: "modeling/Bevel edges", title: "Mine now" });
    expect(pub.error).toBe("read_only");
    const yaml = await f.call({ action: "update", recipeId: "modeling/build_pbr_material", document: "x" });
    expect(yaml.error).toBe("read_only");
    for (const recipeId of ["modeling/No such", "private/no-such", "private/../modeling", "private/", "nothing"]) {
      const answer = await f.call({ action: "update", recipeId, title: "x" });
      expect(answer.error).toBe("not_found");
    }
    const entries = await fs.readdir(f.privateDir).catch(() => []);
    expect(entries).toEqual([]);
  });

  it("an update with no fields changes nothing", async () => {
    const f = await loaded();
    const { context } = await f.call(createArgs());
    const answer = await f.call({ action: "update", recipeId: context.recipeId });
    expect(answer.success).toBe(true);
    expect(answer.context).toMatchObject({ revision: 1, updated: [] });
  });

  it("a file broken by hand is a conflict, and the broken file is left as it was", async () => {
    const f = await loaded();
    const { context } = await f.call(createArgs());
    const file = path.join(f.privateDir, "retopologize-a-scanned-head.md");
    await fs.writeFile(file, "---\ntitle: [unclosed\n---\nbody\n");
    const answer = await f.call({ action: "update", recipeId: context.recipeId, title: "x" });
    expect(answer.error).toBe("conflict");
    expect(answer.context.currentRevision).toBeNull();
    expect(await fs.readFile(file, "utf8")).toBe("---\ntitle: [unclosed\n---\nbody\n");
  });
});

describe("recipe tool: oversized playbooks written before the bounds", () => {
  it("regression: a hand-written playbook with 40 tags of 20,000 characters rides in search hits only within the bounds", async () => {
    const f = await loaded();
    const tags = Array.from({ length: 45 }, (_, i) => `"${i}${"t".repeat(19_999)}"`).join(", ");
    await fs.mkdir(f.privateDir, { recursive: true });
    await fs.writeFile(path.join(f.privateDir, "huge-tags.md"), `---\ntitle: Retopologize a scanned head with huge tags\ntags: [${tags}]\n---\nbody\n`);
    await f.library.load();
    const found = await f.call({ action: "search", query: "retopologize scanned head huge tags", visibility: "private" });
    const hit = found.context.recipes.find((r: { recipeId: string }) => r.recipeId === "private/huge-tags");
    expect(hit).toBeDefined();
    expect(hit.tags).toHaveLength(40);
    expect(hit.tags.every((t: string) => t.length <= 64)).toBe(true);
    expect(JSON.stringify(found).length).toBeLessThan(20_000);
  });
});
