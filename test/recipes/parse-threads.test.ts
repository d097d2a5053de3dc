/**
 * Parse workers started ahead of the load that uses them. Workers run
 * compiled JavaScript only, so these tests drive the built modules in dist/
 * (`npm ci` builds them), as parse-pool.test.ts does.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { recordFromWire, type PackRecordWire } from "../../src/recipes/pack-wire.js";
import { noParseWorkers, parseWorkerCount } from "../../src/recipes/parse-threads.js";

type Threads = typeof import("../../src/recipes/parse-threads.js");
type Pool = typeof import("../../src/recipes/parse-pool.js");

const built = path.resolve(import.meta.dirname, "../../dist/recipes/parse-threads.js");
const haveBuild = existsSync(built);
if (!haveBuild) console.warn(`parse-threads worker tests skipped: ${built} is missing (run npm run build)`);

const load = async <T>(file: string): Promise<T> => (await import(pathToFileURL(path.resolve(built, "..", file)).href)) as T;

const exitOf = (worker: Worker): Promise<number> => new Promise((resolve) => worker.once("exit", resolve));

describe("parse threads (TypeScript module)", () => {
  it("counts no worker where none can run, and supplies none when none was started", async () => {
    expect(parseWorkerCount()).toBe(0);
    expect(noParseWorkers.take()).toBeUndefined();
    await expect(noParseWorkers.release()).resolves.toBeUndefined();
  });
});

describe.skipIf(!haveBuild)("parse threads (built)", () => {
  /** Workers this process creates while `run` runs, seen without taking them from a supply. */
  const created = async (run: () => void): Promise<Worker[]> => {
    const workers: Worker[] = [];
    const onWorker = (worker: Worker): void => void workers.push(worker);
    process.on("worker", onWorker);
    try {
      run();
      // Node announces a new worker on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("worker", onWorker);
    }
    return workers;
  };

  /** Sends one pack to parse; resolves with the entry names of the reply. */
  const parseOn = (worker: Worker): Promise<string[]> =>
    new Promise((resolve, reject) => {
      worker.once("message", (reply: { value?: PackRecordWire; error?: string }) =>
        reply.value !== undefined ? resolve(recordFromWire(reply.value).entries.map((e) => e.name)) : reject(new Error(reply.error)),
      );
      worker.postMessage({ id: 1, kind: "text", text: "recipes:\n  - name: a\n    steps: []\n", file: "p.yaml" });
    });

  it("hands each started worker out once, running, and stops the ones nobody took", async () => {
    const threads = await load<Threads>("parse-threads.js");
    let supply = noParseWorkers;
    const workers = await created(() => (supply = threads.startParseWorkers(3)));
    expect(workers).toHaveLength(3);
    const exits = workers.map(exitOf);
    const first = supply.take();
    const second = supply.take();
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    await supply.release();
    // The one left idle is stopped; nothing is handed out after release.
    const untaken = workers.find((w) => w !== first && w !== second)!;
    await exits[workers.indexOf(untaken)];
    expect(supply.take()).toBeUndefined();
    // Taken workers belong to the taker: release() left them running.
    expect(await parseOn(first!)).toEqual(["a"]);
    expect(await parseOn(second!)).toEqual(["a"]);
    await Promise.all([first!.terminate(), second!.terminate()]);
  });

  it("drops a worker that fails before it is taken, without ending the process", async () => {
    // The module alone, without parse-worker.js beside it: its worker cannot load.
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "parse-threads-"));
    try {
      await fs.copyFile(built, path.join(dir, "parse-threads.js"));
      await fs.copyFile(`${built}.map`, path.join(dir, "parse-threads.js.map"));
      await fs.writeFile(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
      const threads = (await import(pathToFileURL(path.join(dir, "parse-threads.js")).href)) as Threads;
      let supply = noParseWorkers;
      const [worker] = await created(() => (supply = threads.startParseWorkers(1)));
      // Its 'error' event reaches only the supply's listener: an unheard one would fail this test.
      expect(await exitOf(worker!)).not.toBe(0);
      expect(supply.take()).toBeUndefined();
      await supply.release();
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("a pool takes the supplied worker before it spawns one, and parses on it", async () => {
    const threads = await load<Threads>("parse-threads.js");
    const pool = await load<Pool>("parse-pool.js");
    const started = threads.startParseWorkers(1);
    let takes = 0;
    const handedOut: Worker[] = [];
    const supply = {
      take: () => {
        takes += 1;
        const worker = started.take();
        if (worker !== undefined) handedOut.push(worker);
        return worker;
      },
      release: () => started.release(),
    };
    const parser = pool.createPackParser(1, { supply });
    try {
      const record = await parser.parse("recipes:\n  - name: a\n    steps: []\n", "p.yaml");
      expect(record.entries.map((e) => e.name)).toEqual(["a"]);
      expect(takes).toBe(1);
      expect(handedOut).toHaveLength(1);
      expect(parser.workers()).toEqual({ ahead: 1, spawned: 0 });
      // The pool owns the worker it took: closing the pool stops it.
      const exited = exitOf(handedOut[0]!);
      await parser.close();
      await exited;
    } finally {
      await parser.close();
      await started.release();
    }
  });

  /** Runs `body` as an ES module script in a fresh process (a worker inherits --input-type, which would fail it). */
  const runScript = async (body: string): Promise<{ status: number | null; signal: NodeJS.Signals | null; lines: string[] }> => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "parse-threads-"));
    try {
      const script = path.join(dir, "script.mjs");
      await fs.writeFile(script, `import { startParseWorkers } from ${JSON.stringify(pathToFileURL(built).href)};\n${body}`);
      const run = spawnSync(process.execPath, [script], { encoding: "utf8", timeout: 10_000 });
      return { status: run.status, signal: run.signal, lines: run.stdout.split("\n").filter(Boolean) };
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  };

  it("an idle worker nobody took does not keep a finished process alive", async () => {
    // Once the worker is up nothing else is pending: the process must end by itself.
    const run = await runScript(`process.on("worker", (w) => w.once("online", () => console.log("online")));\nstartParseWorkers(1);\n`);
    expect(run.signal).toBeNull();
    expect(run.status).toBe(0);
    // Unheld, the worker may or may not have come up before the end: either way the process ended.
    expect(run.lines.every((line) => line === "online")).toBe(true);
  });
});
