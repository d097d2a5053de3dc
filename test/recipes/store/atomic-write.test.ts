import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanupStaleTempFiles, createFileExclusive, HOST_TAG, isTempFileName, tempFileName, writeFileAtomic } from "../../../src/recipes/store/atomic-write.js";

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "atomic-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("writeFileAtomic", () => {
  it("replaces the file and leaves no temp file", async () => {
    await fs.writeFile(path.join(dir, "a.md"), "old");
    await writeFileAtomic(dir, "a.md", "new ✓");
    expect(await fs.readFile(path.join(dir, "a.md"), "utf8")).toBe("new ✓");
    expect(await fs.readdir(dir)).toEqual(["a.md"]);
  });

  it("concurrent replacements of one file each leave a whole version", async () => {
    const versions = Array.from({ length: 30 }, (_, i) => `${i}:`.padEnd(50_000, String(i % 10)));
    await Promise.all(versions.map((v) => writeFileAtomic(dir, "a.md", v)));
    expect(versions).toContain(await fs.readFile(path.join(dir, "a.md"), "utf8"));
    expect(await fs.readdir(dir)).toEqual(["a.md"]);
  });

  it("fails cleanly when the directory is missing", async () => {
    await expect(writeFileAtomic(path.join(dir, "nope"), "a.md", "x")).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("createFileExclusive", () => {
  it("creates once and refuses to replace, leaving no temp file", async () => {
    expect(await createFileExclusive(dir, "a.md", "first")).toBe(true);
    expect(await createFileExclusive(dir, "a.md", "second")).toBe(false);
    expect(await fs.readFile(path.join(dir, "a.md"), "utf8")).toBe("first");
    expect(await fs.readdir(dir)).toEqual(["a.md"]);
  });

  it("exactly one of many racing creators wins a name", async () => {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => createFileExclusive(dir, "a.md", `writer ${i}`)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    expect(await fs.readFile(path.join(dir, "a.md"), "utf8")).toBe(`writer ${winner}`);
    expect(await fs.readdir(dir)).toEqual(["a.md"]);
  });
});

describe("temp file names", () => {
  it("are dot-files that never end in .md and are recognised", () => {
    const name = tempFileName("bake.md");
    expect(name.startsWith(".bake.md.")).toBe(true);
    expect(name.endsWith(".md")).toBe(false);
    expect(isTempFileName(name)).toBe(true);
    expect(isTempFileName("bake.md")).toBe(false);
    expect(isTempFileName(".bake.md.swp")).toBe(false);
  });

  it("cleanup removes only temp files whose writer is gone or that are old", async () => {
    const deadPid = 2 ** 22 + 7; // above Linux pid_max: never a live process
    const dead = `.a.md.${deadPid}.${HOST_TAG}.0123456789ab.tmp`;
    // Same pid number on another host (container): cannot be judged by pid, only by age.
    const otherHostFresh = `.d.md.${deadPid}.ffffffff.0123456789ab.tmp`;
    const otherHostOld = `.e.md.${deadPid}.ffffffff.0123456789ab.tmp`;
    const mineFresh = tempFileName("b.md");
    const mineOld = tempFileName("c.md");
    const unrelated = ".notes.md.tmp";
    for (const name of [dead, otherHostFresh, otherHostOld, mineFresh, mineOld, unrelated]) await fs.writeFile(path.join(dir, name), "x");
    const old = new Date(Date.now() - 120_000);
    await fs.utimes(path.join(dir, mineOld), old, old);
    await fs.utimes(path.join(dir, otherHostOld), old, old);
    const removed = await cleanupStaleTempFiles(dir, await fs.readdir(dir), { maxAgeMs: 60_000, now: Date.now() });
    expect(removed.sort()).toEqual([dead, mineOld, otherHostOld].sort());
    expect((await fs.readdir(dir)).sort()).toEqual([mineFresh, otherHostFresh, unrelated].sort());
  });
});
