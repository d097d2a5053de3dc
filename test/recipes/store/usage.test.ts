import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openUsageStore } from "../../../src/recipes/store/usage.js";
import { until } from "../../helpers/until.js";

let root: string;
let file: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "usage-"));
  file = path.join(root, "state", "usage.json");
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const fixedNow = (iso: string) => () => new Date(iso);

describe("usage store", () => {
  it("counts uses per recipeId and survives a restart after flush", async () => {
    const usage = openUsageStore({ file, now: fixedNow("2026-11-29T12:00:00.000Z") });
    await usage.load();
    usage.record("maya-modeling/bevel_edges");
    usage.record("private/bake-normals");
    usage.record("private/bake-normals");
    expect(usage.get("private/bake-normals")).toEqual({ count: 2, lastUsedAt: "2026-11-29T12:00:00.000Z" });
    expect(usage.get("never/used")).toBeUndefined();
    await usage.flush();

    const restarted = openUsageStore({ file, now: fixedNow("2026-11-30T08:00:00.000Z") });
    await restarted.load();
    expect(restarted.get("maya-modeling/bevel_edges")).toEqual({ count: 1, lastUsedAt: "2026-11-29T12:00:00.000Z" });
    restarted.record("private/bake-normals");
    expect(restarted.get("private/bake-normals")).toEqual({ count: 3, lastUsedAt: "2026-11-30T08:00:00.000Z" });
  });

  it("writes one recipe per line in id order, hostile ids included, and re-sorts when an id is added", async () => {
    // Regression guard for the hand-built file text (JSON.stringify over every id cost ~10x).
    const usage = openUsageStore({ file, now: fixedNow("2026-11-29T12:00:00.000Z") });
    await usage.load();
    const ids = ["z/last", "__proto__", 'q/"quoted"', "n/new\nline", "u/ünïcödé 🎉", "constructor", "a/first", "back\\slash"];
    for (const id of ids) usage.record(id);
    usage.record("a/first");
    await usage.flush();
    const read = async (): Promise<{ lines: string[]; usage: Record<string, unknown> }> => {
      const text = await fs.readFile(file, "utf8");
      return { lines: text.trimEnd().split("\n"), usage: (JSON.parse(text) as { usage: Record<string, unknown> }).usage };
    };
    const first = await read();
    expect(first.lines).toHaveLength(ids.length + 2);
    expect(Object.keys(first.usage)).toEqual([...ids].sort());
    expect(first.usage["a/first"]).toEqual({ count: 2, lastUsedAt: "2026-11-29T12:00:00.000Z" });
    // An id added after a write lands in order in the next one.
    usage.record("m/middle");
    await usage.flush();
    expect(Object.keys((await read()).usage)).toEqual([...ids, "m/middle"].sort());
    // Regression guard for the per-id line cache: an id counted again after a write is rendered anew.
    usage.record("z/last");
    await usage.flush();
    expect((await read()).usage["z/last"]).toEqual({ count: 2, lastUsedAt: "2026-11-29T12:00:00.000Z" });
    expect((await read()).usage["a/first"]).toEqual({ count: 2, lastUsedAt: "2026-11-29T12:00:00.000Z" });
    const restarted = openUsageStore({ file });
    await restarted.load();
    for (const id of ids) expect(restarted.get(id)?.count, id).toBe(id === "a/first" || id === "z/last" ? 2 : 1);
  });

  it("record is synchronous and does not write on every call; the debounce writes once later", async () => {
    const usage = openUsageStore({ file, flushDelayMs: 50 });
    for (let i = 0; i < 1000; i++) usage.record("a/b");
    // Nothing on disk yet: record never touches the file itself.
    await expect(fs.stat(file)).rejects.toMatchObject({ code: "ENOENT" });
    await until(async () => (await fs.stat(file).catch(() => null)) !== null);
    const saved = JSON.parse(await fs.readFile(file, "utf8")) as { usage: Record<string, { count: number }> };
    expect(saved.usage["a/b"]?.count).toBe(1000);
    await usage.flush();
  });

  it("regression: usage flush under load writes once, not until nothing is dirty", async () => {
    // Counts landing during every write once kept a flush looping: under steady
    // gets the file was rewritten back to back instead of once per debounce.
    const read = async (): Promise<Record<string, unknown>> =>
      (JSON.parse(await fs.readFile(file, "utf8")) as { usage: Record<string, unknown> }).usage;
    const usage = openUsageStore({ file, flushDelayMs: 1e9 });
    usage.record("skill/early");
    const flushing = usage.flush();
    usage.record("skill/late"); // lands while that write is under way
    await flushing;
    expect(Object.keys(await read())).toEqual(["skill/early"]);
    // The late count is not lost: the next flush (shutdown) writes it.
    await usage.flush();
    expect(Object.keys(await read())).toEqual(["skill/early", "skill/late"]);
  });

  it("a count recorded during a write reaches disk on the next debounce, with no flush called", async () => {
    const usage = openUsageStore({ file, flushDelayMs: 20 });
    usage.record("skill/early");
    const flushing = usage.flush();
    usage.record("skill/late");
    await flushing;
    await until(async () => (await fs.readFile(file, "utf8")).includes("skill/late"));
    await usage.flush();
  });

  it("a second load does not add the stored counts again", async () => {
    // A full catalog load reads the usage file each time; the counts it holds are already in memory.
    const usage = openUsageStore({ file, flushDelayMs: 1e9 });
    await usage.load();
    usage.record("skill/once");
    await usage.flush();
    await usage.load();
    expect(usage.get("skill/once")?.count).toBe(1);
    usage.record("skill/once");
    await usage.flush();
    const restarted = openUsageStore({ file });
    await restarted.load();
    expect(restarted.get("skill/once")?.count).toBe(2);
  });

  it("writes the usage file atomically and leaves no temp files", async () => {
    const usage = openUsageStore({ file, flushDelayMs: 1 });
    const writers = Array.from({ length: 50 }, async (_, i) => {
      usage.record(`skill/recipe-${i % 5}`);
      if (i % 10 === 0) await usage.flush();
    });
    await Promise.all(writers);
    await usage.flush();
    expect(await fs.readdir(path.dirname(file))).toEqual(["usage.json"]);
    const restarted = openUsageStore({ file });
    await restarted.load();
    expect(restarted.get("skill/recipe-0")?.count).toBe(10);
  });

  it.each([
    ["not JSON", "{ this is not json"],
    ["an array", "[1, 2, 3]"],
    ["no usage map", '{"version": 1}'],
  ])("a corrupt file (%s) starts empty with a warning", async (_name, content) => {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, content);
    const warnings: string[] = [];
    const usage = openUsageStore({ file, logger: { warn: (_fields, message) => warnings.push(message) } });
    await usage.load();
    expect(warnings).toHaveLength(1);
    expect(usage.get("a/b")).toBeUndefined();
    usage.record("a/b");
    await usage.flush();
    const again = openUsageStore({ file });
    await again.load();
    expect(again.get("a/b")?.count).toBe(1);
  });

  it("skips malformed entries but keeps the good ones, including hostile ids", async () => {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(
      file,
      JSON.stringify({
        version: 1,
        usage: {
          good: { count: 3, lastUsedAt: "2026-01-01T00:00:00.000Z" },
          negative: { count: -1, lastUsedAt: "2026-01-01T00:00:00.000Z" },
          badDate: { count: 1, lastUsedAt: "yesterday" },
          notObject: 5,
        },
      }),
    );
    const usage = openUsageStore({ file });
    await usage.load();
    expect(usage.get("good")?.count).toBe(3);
    for (const id of ["negative", "badDate", "notObject"]) expect(usage.get(id)).toBeUndefined();
    usage.record("__proto__");
    usage.record("constructor");
    await usage.flush();
    const again = openUsageStore({ file });
    await again.load();
    expect(again.get("__proto__")?.count).toBe(1);
    expect(again.get("constructor")?.count).toBe(1);
    expect(again.get("good")?.count).toBe(3);
  });

  it("counts recorded before load are added to the stored ones", async () => {
    const first = openUsageStore({ file });
    first.record("a/b");
    await first.flush();
    const second = openUsageStore({ file });
    second.record("a/b");
    await second.load();
    expect(second.get("a/b")?.count).toBe(2);
  });

  it("a failed write is retried on the next flush", async () => {
    // A file where the state directory should be makes mkdir fail.
    await fs.writeFile(path.join(root, "state"), "in the way");
    const usage = openUsageStore({ file });
    usage.record("a/b");
    await expect(usage.flush()).rejects.toMatchObject({ code: expect.stringMatching(/EEXIST|ENOTDIR/) });
    await fs.rm(path.join(root, "state"));
    await usage.flush();
    const again = openUsageStore({ file });
    await again.load();
    expect(again.get("a/b")?.count).toBe(1);
  });
});
