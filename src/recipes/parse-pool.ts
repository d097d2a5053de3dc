/**
 * Parses YAML packs on worker threads during a large load. A cold start of
 * 20,000 recipes spends most of its time parsing YAML and compiling schemas,
 * all of it pure CPU work on one file at a time: the calling thread and the
 * workers each take the next file, so every core parses. Small reloads parse
 * in the calling thread (a worker costs ~50 ms to start).
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { parsePack, type PackRecord } from "./parsed-pack.js";

export interface PackParser {
  parse(text: string, file: string): Promise<PackRecord>;
  close(): Promise<void>;
}

export interface PackParserLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
}

interface Job {
  readonly id: number;
  readonly text: string;
  readonly file: string;
  resolve(record: PackRecord): void;
}

interface Reply {
  readonly id: number;
  readonly record?: PackRecord;
  readonly error?: string;
}

/** Workers worth starting here: one per core beside the calling thread, at most `max`. */
export function parseWorkerCount(max = 3): number {
  // The worker runs compiled JavaScript only (see parse-worker.ts).
  if (!import.meta.url.endsWith(".js")) return 0;
  return Math.max(0, Math.min(max, availableParallelism() - 1));
}

/** The calling thread only. */
export const inlineParser: PackParser = {
  parse: (text, file) => Promise.resolve(parsePack(text, file)),
  close: () => Promise.resolve(),
};

export function createPackParser(workers: number, logger?: PackParserLogger): PackParser {
  if (workers <= 0) return inlineParser;
  const idle: Worker[] = [];
  const running = new Map<Worker, Job>();
  let nextId = 0;
  let closed = false;

  // A worker that fails (a bug, never an author's file: parsePack turns those
  // into diagnostics) hands its job back and leaves; the rest, or the calling
  // thread, parse on.
  const retire = (worker: Worker, reason: string): void => {
    const job = running.get(worker);
    running.delete(worker);
    const at = idle.indexOf(worker);
    if (at >= 0) idle.splice(at, 1);
    if (!closed) logger?.warn({ reason }, "parse worker stopped; parsing continues without it");
    if (job !== undefined) job.resolve(parsePack(job.text, job.file));
    void worker.terminate();
  };

  // Started on the first parse: a restart whose packs all come from the
  // parse cache never pays for them.
  let started = false;
  const start = (): void => {
    started = true;
    for (let i = 0; i < workers; i++) spawn();
  };
  const spawn = (): void => {
    const worker = new Worker(new URL("./parse-worker.js", import.meta.url));
    worker.on("message", (reply: Reply) => {
      const job = running.get(worker);
      if (job === undefined || job.id !== reply.id) return;
      if (reply.record === undefined) return retire(worker, reply.error ?? "no record");
      running.delete(worker);
      idle.push(worker);
      job.resolve(reply.record);
    });
    worker.on("error", (err) => retire(worker, err.message));
    worker.on("exit", (code) => {
      if (running.has(worker) || idle.includes(worker)) retire(worker, `exited ${code}`);
    });
    idle.push(worker);
  };

  return {
    parse(text, file) {
      if (!started && !closed) start();
      const worker = idle.pop();
      // Every worker busy (or none left): the calling thread takes this one.
      if (worker === undefined) return Promise.resolve(parsePack(text, file));
      return new Promise<PackRecord>((resolve) => {
        const job: Job = { id: nextId++, text, file, resolve };
        running.set(worker, job);
        worker.postMessage({ id: job.id, text, file });
      });
    },
    async close() {
      closed = true;
      const all = [...idle, ...running.keys()];
      idle.length = 0;
      await Promise.all(all.map((w) => w.terminate()));
    },
  };
}
