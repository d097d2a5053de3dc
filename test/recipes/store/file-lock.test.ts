import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HOST_TAG } from "../../../src/recipes/store/atomic-write.js";
import { acquireFileLock, lockFileName } from "../../../src/recipes/store/file-lock.js";
import { openPrivateStore, type PlaybookDraft, type StoreResult } from "../../../src/recipes/store/store.js";

const fixture = fileURLToPath(new URL("./fixtures/update-stream.ts", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const DEAD_PID = 2 ** 22 + 4321; // above Linux pid_max: never a live process

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "private-lock-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const draft: PlaybookDraft = {
  title: "Shared",
  summary: "s",
  whenToUse: "w",
  steps: [{ title: "t", detail: "d" }],
  acceptanceCriteria: ["a"],
  document: "doc\n",
};

function revisionOf(result: StoreResult): number {
  if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
  return result.playbook.revision;
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("acquireFileLock", () => {
  it("is exclusive and released by its holder only", async () => {
    const a = await acquireFileLock(dir, "x.md", { timeoutMs: 1000, staleMs: 60_000 });
    expect(a.kind).toBe("acquired");
    const b = await acquireFileLock(dir, "x.md", { timeoutMs: 50, staleMs: 60_000 });
    expect(b.kind).toBe("timeout");
    if (a.kind === "acquired") await a.release();
    const c = await acquireFileLock(dir, "x.md", { timeoutMs: 50, staleMs: 60_000 });
    expect(c.kind).toBe("acquired");
    if (c.kind === "acquired") await c.release();
    expect(await fs.readdir(dir)).toEqual([]);
  });

  it("takes over a lock whose holder is dead, or that is older than staleMs", async () => {
    await fs.writeFile(path.join(dir, lockFileName("x.md")), `${DEAD_PID} ${HOST_TAG} 0123456789ab\n`);
    const dead = await acquireFileLock(dir, "x.md", { timeoutMs: 50, staleMs: 60_000 });
    expect(dead.kind).toBe("acquired");
    if (dead.kind === "acquired") await dead.release();

    await fs.writeFile(path.join(dir, lockFileName("y.md")), `${process.pid} ${HOST_TAG} 0123456789ab\n`);
    const old = new Date(Date.now() - 120_000);
    await fs.utimes(path.join(dir, lockFileName("y.md")), old, old);
    const stale = await acquireFileLock(dir, "y.md", { timeoutMs: 50, staleMs: 60_000 });
    expect(stale.kind).toBe("acquired");
    if (stale.kind === "acquired") await stale.release();
    expect(await fs.readdir(dir)).toEqual([]);
  });

  it("does not judge another host's lock by pid, only by age", async () => {
    await fs.writeFile(path.join(dir, lockFileName("z.md")), `${DEAD_PID} ffffffff 0123456789ab\n`);
    expect((await acquireFileLock(dir, "z.md", { timeoutMs: 50, staleMs: 60_000 })).kind).toBe("timeout");
    const old = new Date(Date.now() - 120_000);
    await fs.utimes(path.join(dir, lockFileName("z.md")), old, old);
    const taken = await acquireFileLock(dir, "z.md", { timeoutMs: 50, staleMs: 60_000 });
    expect(taken.kind).toBe("acquired");
    if (taken.kind === "acquired") await taken.release();
  });

  it("reports a missing directory", async () => {
    expect((await acquireFileLock(path.join(dir, "nope"), "x.md", { timeoutMs: 50, staleMs: 60_000 })).kind).toBe("missing-dir");
  });
});

describe("updates across store instances and processes", () => {
  it("two stores on one directory (two DCCs sharing --private-dir) lose no update", async () => {
    const a = openPrivateStore({ dir });
    const b = openPrivateStore({ dir });
    revisionOf(await a.create(draft));
    const results = await Promise.all(range(1, 100).map((i) => (i % 2 ? a : b).update("shared", { summary: `u${i}` })));
    expect(results.map(revisionOf).sort((x, y) => x - y)).toEqual(range(2, 101));
    expect((await a.loadOne("shared")).playbook?.revision).toBe(101);
    expect((await fs.readdir(dir)).filter((n) => n.startsWith(".") && n !== ".history")).toEqual([]);
  });

  it("an update waits for another writer's lock and reports a conflict when it times out", async () => {
    const store = openPrivateStore({ dir, lockTimeoutMs: 100 });
    revisionOf(await store.create(draft));
    const other = await acquireFileLock(dir, "shared.md", { timeoutMs: 100, staleMs: 60_000 });
    expect(other.kind).toBe("acquired");
    const blocked = await store.update("shared", { summary: "x" });
    expect(blocked).toMatchObject({ ok: false, code: "conflict" });
    expect(!blocked.ok && blocked.message).toMatch(/another process/);
    if (other.kind === "acquired") await other.release();
    expect(revisionOf(await store.update("shared", { summary: "x" }))).toBe(2);
  });

  it("loadAll removes lock files of dead writers and ignores them as playbooks", async () => {
    const store = openPrivateStore({ dir });
    revisionOf(await store.create(draft));
    await fs.writeFile(path.join(dir, lockFileName("shared.md")), `${DEAD_PID} ${HOST_TAG} 0123456789ab\n`);
    const { playbooks, diagnostics } = await store.loadAll();
    expect(playbooks.map((p) => p.slug)).toEqual(["shared"]);
    expect(diagnostics).toEqual([]);
    expect((await fs.readdir(dir)).filter((n) => n !== ".history")).toEqual(["shared.md"]);
  });

  it("a child process and this one updating one playbook at once lose no update", async () => {
    const store = openPrivateStore({ dir });
    revisionOf(await store.create(draft));
    const child = spawn(process.execPath, ["--import", "tsx", fixture, dir, "shared", "60"], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    // Start ours once the child has begun writing, so the two streams overlap.
    for (let i = 0; i < 500 && (await store.loadOne("shared")).playbook?.revision === 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const mine = await Promise.all(range(1, 60).map((i) => store.update("shared", { summary: `parent ${i}` })));
    expect(await exited, stderr).toBe(0);
    const theirs = JSON.parse(stdout) as number[];
    const all = [...mine.map(revisionOf), ...theirs].sort((x, y) => x - y);
    expect(all).toEqual(range(2, 121));
    expect((await store.loadOne("shared")).playbook?.revision).toBe(121);
  }, 30_000);
});
