/**
 * A cold load's skill directories are read by the parse workers and the
 * calling thread together (shared-reads.ts): every directory exactly once,
 * each reading delivered at its own index, whoever read it.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readSkillDirs, type SkillDirReading, type SkillDirRequest } from "../../src/skills/discover.js";
import { inlineParser, type PackParser } from "../../src/recipes/parse-pool.js";
import { readClaimed, readSkillDirsShared } from "../../src/recipes/shared-reads.js";

let root: string;
beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "shared-reads-")));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function skills(n: number): Promise<SkillDirRequest[]> {
  const dirs: SkillDirRequest[] = [];
  for (let i = 0; i < n; i++) {
    const dir = path.join(root, `s${String(i).padStart(3, "0")}`);
    await fs.mkdir(dir);
    // Every seventh SKILL.md is broken, so failures travel the same way.
    await fs.writeFile(path.join(dir, "SKILL.md"), i % 7 === 3 ? "no frontmatter\n" : `---\nname: s${i}\nmetadata:\n  dcc-mcp:\n    dcc: maya\n    recipes: R.yaml\n---\n`);
    if (i % 2 === 0) await fs.writeFile(path.join(dir, "R.yaml"), "recipes: []\n");
    dirs.push({ dir, root, rootIndex: 0 });
  }
  return dirs;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A worker's part (readClaimed, as parse-worker.ts runs it) on this thread,
 * slowed down: the worker itself needs compiled code (test/recipes/parse-pool.test.ts).
 */
function slowWorker(delayMs: number, claimed: number[]): PackParser {
  return {
    ...inlineParser,
    shareSkillDirReads: (reads) => {
      // The first claim at once (a worker already up), then one per delay.
      let first = true;
      return readClaimed(
        { ...reads, onBatch: (from, readings) => (claimed.push(readings.length), reads.onBatch(from, readings)) },
        () => (first ? ((first = false), Promise.resolve()) : sleep(delayMs)),
      );
    },
  };
}
describe("skill directories read by workers and the calling thread together", () => {
  it("delivers every directory's reading once, at its index, from both sides", async () => {
    const dirs = await skills(300);
    const workerBatches: number[] = [];
    const got = new Map<number, SkillDirReading>();
    let duplicates = 0;
    await readSkillDirsShared(dirs, "maya", slowWorker(50, workerBatches), (i, reading) => {
      if (got.has(i)) duplicates++;
      got.set(i, reading);
    });
    expect(duplicates).toBe(0);
    expect([...got.keys()].sort((a, b) => a - b)).toEqual(dirs.map((_, i) => i));
    expect(dirs.map((_, i) => got.get(i))).toEqual(await readSkillDirs(dirs, "maya"));
    // Both sides took batches: the worker its first at once, the calling thread while it slept.
    const onWorkers = workerBatches.reduce((a, b) => a + b, 0);
    expect(onWorkers).toBeGreaterThan(0);
    expect(onWorkers).toBeLessThan(dirs.length);
  });

  it("delivers everything while the workers are slow to answer, and nothing for no directories", async () => {
    const dirs = await skills(70);
    const got: number[] = [];
    await readSkillDirsShared(dirs, "maya", slowWorker(200, []), (i) => got.push(i));
    expect(got.sort((a, b) => a - b)).toEqual(dirs.map((_, i) => i));
    let calls = 0;
    await readSkillDirsShared([], "maya", slowWorker(1, []), () => calls++);
    expect(calls).toBe(0);
  });

  it("reads the batches a stopped worker claimed but never sent back", async () => {
    const dirs = await skills(120);
    // Claims three batches, then stops without a word (as a worker that exited).
    const stopped: PackParser = {
      ...inlineParser,
      shareSkillDirReads: async (reads) => {
        Atomics.add(new Int32Array(reads.claims), 0, 3 * reads.batch);
      },
    };
    const got = new Map<number, SkillDirReading>();
    await readSkillDirsShared(dirs, "maya", stopped, (i, reading) => got.set(i, reading));
    expect(dirs.map((_, i) => got.get(i))).toEqual(await readSkillDirs(dirs, "maya"));
  });

  it("fails the load when the workers' share fails (a bug), rather than serving part of the tree", async () => {
    const dirs = await skills(100);
    const broken: PackParser = { ...inlineParser, shareSkillDirReads: () => Promise.reject(new Error("worker bug")) };
    let delivered = 0;
    await expect(readSkillDirsShared(dirs, "maya", broken, () => delivered++)).rejects.toThrow("worker bug");
    // Nothing is taken after the failure: the calling thread's loop stops too.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(delivered).toBe(0);
  });
});
