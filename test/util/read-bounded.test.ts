import { execFileSync } from "node:child_process";
import { utimesSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { QUIET_MS, readBounded, readSettled, statQuiet } from "../../src/util/read-bounded.js";

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "read-bounded-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("readBounded", () => {
  it("reads a file whole, including one of exactly the limit", async () => {
    const file = path.join(dir, "a.yaml");
    await fs.writeFile(file, "x".repeat(1000));
    const r = readBounded(file, 1000);
    expect(r.ok && r.bytes.toString()).toBe("x".repeat(1000));
  });

  it("reads an empty file as no bytes", async () => {
    const file = path.join(dir, "empty");
    await fs.writeFile(file, "");
    const r = readBounded(file, 10);
    expect(r.ok && r.bytes.length).toBe(0);
  });

  it("refuses one byte over the limit with the size", async () => {
    const file = path.join(dir, "big");
    await fs.writeFile(file, "x".repeat(1001));
    expect(readBounded(file, 1000)).toEqual({ ok: false, reason: "too_large", size: 1001 });
  });

  it("tells missing from not-a-file", async () => {
    expect(readBounded(path.join(dir, "nope"), 10)).toMatchObject({ ok: false, reason: "missing", code: "ENOENT" });
    expect(readBounded(path.join(dir, "nope", "deeper"), 10)).toMatchObject({ ok: false, reason: "missing" });
    expect(readBounded(dir, 10)).toMatchObject({ ok: false, reason: "not_file" });
  });

  it.skipIf(process.platform === "win32")("regression: a FIFO where a recipe file should be is refused, never waited on", async () => {
    const fifo = path.join(dir, "RECIPES.yaml");
    execFileSync("mkfifo", [fifo]);
    // With a blocking open this call would hang the test (and the daemon) until a writer came.
    expect(readBounded(fifo, 1024)).toMatchObject({ ok: false, reason: "not_file" });
  });

  // Skipped as root (root reads a 000 file) and on Windows (no POSIX modes).
  it.skipIf(process.platform === "win32" || process.getuid?.() === 0)("reports a file it may not read as unreadable", async () => {
    const file = path.join(dir, "secret");
    await fs.writeFile(file, "x");
    await fs.chmod(file, 0o000);
    expect(readBounded(file, 10)).toMatchObject({ ok: false, reason: "unreadable", code: "EACCES" });
  });
});

describe("regression: without a quiet window a file written this millisecond is read, not 'changing'", () => {
  it("reads a file whose mtime is ahead of Date.now() (sub-millisecond mtimes, a clock behind the file system's)", async () => {
    const file = path.join(dir, "fresh.yaml");
    await fs.writeFile(file, "recipes: []\n");
    const ahead = new Date(Date.now() + 5_000);
    await fs.utimes(file, ahead, ahead);
    const r = readBounded(file, 1000);
    expect(r.ok && r.bytes.toString()).toBe("recipes: []\n");
    // Seconds ahead is another clock (a network volume's): with a window it is read too, never waited for.
    const withWindow = readBounded(file, 1000, QUIET_MS);
    expect(withWindow.ok && withWindow.bytes.toString()).toBe("recipes: []\n");
  });

  it("with a window, a file written just now (mtime at or a little past the clock) still waits", async () => {
    const file = path.join(dir, "now.yaml");
    await fs.writeFile(file, "recipes: []\n");
    const justAhead = new Date(Date.now() + 1);
    await fs.utimes(file, justAhead, justAhead);
    expect(readBounded(file, 1000, QUIET_MS)).toMatchObject({ ok: false, reason: "changing" });
  });
});

describe("statQuiet", () => {
  it("answers undefined for what cannot be stat'ed, and the stat otherwise", async () => {
    expect(statQuiet(path.join(dir, "missing"))).toBeUndefined();
    expect(statQuiet(path.join(dir, "missing", "x"))).toBeUndefined();
    const loop = path.join(dir, "loop");
    await fs.symlink(loop, loop);
    expect(statQuiet(loop)).toBeUndefined();
    expect(statQuiet(dir)?.isDirectory()).toBe(true);
  });
});

describe("regression: a file is read only once stable", () => {
  it("a file modified within the quiet window is 'changing'; readSettled waits for it and reads it whole", async () => {
    const file = path.join(dir, "p.yaml");
    await fs.writeFile(file, "recipes: []\n");
    expect(readBounded(file, 1024, QUIET_MS)).toMatchObject({ ok: false, reason: "changing" });
    const settled = await readSettled(file, 1024);
    expect(settled.ok && settled.bytes.toString()).toBe("recipes: []\n");
    // Never settling (a writer touching it more often than the window): reported, never returned.
    utimesSync(file, new Date(), new Date());
    const writer = setInterval(() => utimesSync(file, new Date(), new Date()), 10);
    try {
      expect(await readSettled(file, 1024, QUIET_MS, 150)).toMatchObject({ ok: false, reason: "changing" });
    } finally {
      clearInterval(writer);
    }
  });
});
