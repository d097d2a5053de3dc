/** The file store's usage counts: the file's text, older files, corrupt files, other processes, and the buffer's bounds. */
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openUsageStore } from "../../../src/recipes/store/usage.js";

let root: string;
let file: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "usage-"));
  file = path.join(root, "state", "usage.json");
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const at = (iso: string) => () => Date.parse(iso);
const HOUR = 3_600_000;

async function stored(): Promise<{ lines: string[]; usage: Record<string, Record<string, Record<string, unknown>>> }> {
  const text = await fs.readFile(file, "utf8");
  return { lines: text.trimEnd().split("\n"), usage: (JSON.parse(text) as { usage: Record<string, Record<string, Record<string, unknown>>> }).usage };
}

describe("usage file", () => {
  it("one recipe per line in id order, counts per user with zeros left out, hostile ids included", async () => {
    const usage = openUsageStore({ file, now: at("2026-11-29T12:00:00.000Z"), flushIntervalMs: HOUR });
    const ids = ["z/last", "__proto__", 'q/"quoted"', "n/new\nline", "u/ünïcödé 🎉", "constructor", "a/first", "back\\slash"];
    for (const id of ids) usage.record(id, "get");
    usage.record("a/first", "validate_fail", "alice");
    await usage.flush();
    const first = await stored();
    expect(first.lines).toHaveLength(ids.length + 2);
    expect(Object.keys(first.usage)).toEqual([...ids].sort());
    expect(first.usage["a/first"]).toEqual({
      "": { get: 1, lastUsedAt: "2026-11-29T12:00:00.000Z" },
      alice: { lastUsedAt: "2026-11-29T12:00:00.000Z", validate_fail: 1 },
    });
    // An id added after a write lands in order; an id counted again is rendered anew.
    usage.record("m/middle", "apply");
    usage.record("z/last", "run_succeeded");
    await usage.flush();
    const second = await stored();
    expect(Object.keys(second.usage)).toEqual([...ids, "m/middle"].sort());
    expect(second.usage["z/last"]).toEqual({ "": { get: 1, lastUsedAt: "2026-11-29T12:00:00.000Z", run_succeeded: 1 } });
    expect(second.usage["a/first"]?.alice).toEqual({ lastUsedAt: "2026-11-29T12:00:00.000Z", validate_fail: 1 });
  });

  it("a version 1 file (one count per recipe) is read with its counts as gets, and rewritten as version 2", async () => {
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
    const usage = openUsageStore({ file, flushIntervalMs: HOUR });
    await usage.load();
    expect(usage.get("good")?.counts[0]).toBe(3);
    for (const id of ["negative", "badDate", "notObject"]) expect(usage.get(id)).toBeUndefined();
    usage.record("good", "apply");
    await usage.flush();
    const text = await fs.readFile(file, "utf8");
    expect(text.startsWith('{"version":2,')).toBe(true);
    expect((await stored()).usage.good).toEqual({ "": { apply: 1, get: 3, lastUsedAt: expect.any(String) } });
  });

  it.each([
    ["not JSON", "{ this is not json"],
    ["an array", "[1, 2, 3]"],
    ["no usage map", '{"version": 2}'],
  ])("a corrupt file (%s) is set aside under the lock and counting starts from empty", async (_name, content) => {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, content);
    const warnings: string[] = [];
    const usage = openUsageStore({ file, flushIntervalMs: HOUR, logger: { warn: (_fields, message) => warnings.push(message) } });
    await usage.load();
    expect((await usage.read()).complete).toBe(false);
    usage.record("a/b", "get");
    await usage.flush();
    const names = await fs.readdir(path.dirname(file));
    const aside = names.filter((n) => n.startsWith("usage.json.corrupt-"));
    expect(aside).toHaveLength(1);
    expect(await fs.readFile(path.join(path.dirname(file), aside[0]!), "utf8")).toBe(content);
    expect((await stored()).usage["a/b"]?.[""]?.get).toBe(1);
    expect(warnings.some((w) => w.includes("set aside"))).toBe(true);
  });

  it("malformed entries are skipped and the good ones kept", async () => {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(
      file,
      JSON.stringify({
        version: 2,
        usage: {
          good: { "": { get: 2 }, bob: { apply: 1, lastUsedAt: "2026-01-01T00:00:00.000Z" } },
          badCount: { "": { get: 1.5 } },
          negative: { "": { apply: -1 } },
          badDate: { "": { get: 1, lastUsedAt: "yesterday" } },
          notObject: [1],
          userNotObject: { "": 3 },
        },
      }),
    );
    const usage = openUsageStore({ file, flushIntervalMs: HOUR });
    const reading = await usage.read({ user: "bob" });
    expect([...reading.recipes.keys()]).toEqual(["good"]);
    expect(reading.recipes.get("good")).toMatchObject({ total: { get: 2, apply: 1, lastUsedAt: "2026-01-01T00:00:00.000Z" }, mine: { apply: 1 } });
  });

  it("a failed write keeps its batch for the next flush", async () => {
    // A file where the state directory should be makes mkdir fail.
    await fs.writeFile(path.join(root, "state"), "in the way");
    const usage = openUsageStore({ file, flushIntervalMs: HOUR, logger: { warn: () => undefined } });
    usage.record("a/b", "get");
    await usage.flush();
    expect(usage.get("a/b")?.counts[0]).toBe(1);
    await fs.rm(path.join(root, "state"));
    usage.record("a/b", "get");
    await usage.flush();
    expect((await stored()).usage["a/b"]?.[""]?.get).toBe(2);
  });

  it("leaves no temp or lock files behind", async () => {
    const usage = openUsageStore({ file, flushIntervalMs: 1 });
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        usage.record(`skill/recipe-${i % 5}`, "get");
        if (i % 10 === 0) await usage.flush();
      }),
    );
    await usage.flush();
    expect(await fs.readdir(path.dirname(file))).toEqual(["usage.json"]);
    expect((await stored()).usage["skill/recipe-0"]?.[""]?.get).toBe(10);
  });

  it("processes on one host sharing the file add up (real child processes)", async () => {
    const child = fileURLToPath(new URL("./fixtures/usage-writer.ts", import.meta.url));
    const tsx = path.resolve("node_modules/.bin/tsx");
    const PER = 300;
    const run = (user: string) =>
      new Promise<void>((resolve, reject) => {
        const proc = spawn(tsx, [child, file, user, String(PER)], { stdio: ["ignore", "ignore", "pipe"] });
        let stderr = "";
        proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        proc.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`writer exited ${code}: ${stderr}`))));
      });
    await Promise.all(["p1", "p2", "p3", "p4"].map(run));
    const reading = await openUsageStore({ file }).read({ user: "p3" });
    const recipe = reading.recipes.get("shared/recipe")!;
    expect(recipe.total.get).toBe(4 * PER);
    expect(recipe.mine?.get).toBe(PER);
  }, 60_000);
});

describe("usage buffer bounds", () => {
  it("a full buffer starts a write at once, with no flush called", async () => {
    const usage = openUsageStore({ file, flushIntervalMs: HOUR, flushRows: 10 });
    for (let i = 0; i < 10; i++) usage.record(`s/r${i}`, "get");
    const reader = openUsageStore({ file });
    for (let i = 0; (await reader.read()).recipes.size !== 10; i++) {
      if (i > 500) throw new Error("the full buffer was never written");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });

  it("while writes fail, uses of new recipes past maxRows are dropped (said in the log) and known ones still count", async () => {
    await fs.writeFile(path.join(root, "state"), "in the way");
    const warnings: Array<Record<string, unknown>> = [];
    const usage = openUsageStore({ file, flushIntervalMs: HOUR, maxRows: 3, logger: { warn: (fields) => warnings.push(fields) } });
    for (let i = 0; i < 5; i++) usage.record(`s/r${i}`, "get");
    usage.record("s/r0", "get");
    expect(usage.get("s/r0")?.counts[0]).toBe(2);
    expect(usage.get("s/r3")).toBeUndefined();
    await usage.flush();
    await fs.rm(path.join(root, "state"));
    await usage.flush();
    expect(Object.keys((await stored()).usage).sort()).toEqual(["s/r0", "s/r1", "s/r2"]);
    expect(warnings.some((w) => w.dropped === 2)).toBe(true);
  });
});
