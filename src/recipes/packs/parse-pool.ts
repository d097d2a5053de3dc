/**
 * Parses YAML packs on worker threads during a large load: an executor, not
 * a protocol. A worker is handed a pack (its text, or its path to read and
 * key itself) and answers with the parse; nothing else crosses the thread.
 * A cold start of 20,000 recipes spends most of its time parsing YAML and
 * compiling schemas, all of it pure CPU work on one file at a time: the
 * workers take it while the calling thread builds recipes and indexes them.
 * Small reloads parse in the calling thread (a worker costs ~100–200 ms of
 * CPU to start).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { parsePack, type PackRecord } from "./parsed-pack.js";
import {
  fileResultFromWire,
  parsePackFile,
  recordFromWire,
  type PackFileResult,
  type PackFileResultWire,
  type PackRecordWire,
  type ParseReply,
  type ParseRequest,
} from "./parse-job.js";

export interface PackParser {
  parse(text: string, file: string): Promise<PackRecord>;
  /**
   * Reads, keys (see packCacheKey) and parses the pack at `absPath` where
   * it parses: on a worker, the calling thread neither reads nor hashes it.
   * `within`, `quietMs`: see parsePackFile.
   */
  parseFile(within: string, absPath: string, file: string, fingerprint: string, quietMs?: number): Promise<PackFileResult>;
  /** Starts the workers now rather than on the first parse (a load sure to parse many packs). */
  prestart(): void;
  /** Workers this parser has started so far. */
  workers(): number;
  close(): Promise<void>;
}

export interface PackParserLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
}

interface Job {
  readonly request: ParseRequest;
  /** The worker's reply as the caller wants it (see parse-job.ts). */
  readonly decode: (value: unknown) => unknown;
  /** The same work in the calling thread, for a worker that stopped. */
  inline(): unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** The calling thread only. */
export const inlineParser: PackParser = {
  parse: (text, file) => Promise.resolve(parsePack(text, file)),
  parseFile: (within, absPath, file, fingerprint, quietMs = 0) => Promise.resolve(parsePackFile(within, absPath, file, fingerprint, quietMs)),
  prestart: () => undefined,
  workers: () => 0,
  close: () => Promise.resolve(),
};

/**
 * Requests a worker holds at once. The calling thread parses a pack itself
 * only when every worker holds this many: its own share of a load (building
 * recipes, indexing them) comes first, and it takes some of the parsing only
 * when the workers fall behind.
 */
const BACKLOG = 32;

export interface PackParserOptions {
  readonly logger?: PackParserLogger;
}

export function createPackParser(workers: number, options: PackParserOptions = {}): PackParser {
  const { logger } = options;
  if (workers <= 0) return inlineParser;
  const pool = new Map<Worker, Map<number, Job>>();
  let nextId = 0;
  let closed = false;
  let started = 0;

  // A worker that fails (a bug, never an author's file: parsePack turns those
  // into diagnostics) hands its jobs back and leaves; the rest, or the
  // calling thread, parse on.
  const retire = (worker: Worker, reason: string): void => {
    const jobs = pool.get(worker);
    if (jobs === undefined) return;
    pool.delete(worker);
    if (!closed) logger?.warn({ reason }, "parse worker stopped; parsing continues without it");
    const handedBack = [...jobs.values()];
    jobs.clear();
    for (const job of handedBack) {
      // In an event handler: a parse that throws here too (a bug) must fail its load, not the process.
      try {
        job.resolve(job.inline());
      } catch (error) {
        job.reject(error);
      }
    }
    void worker.terminate();
  };

  const spawn = (): void => {
    const worker = spawnParseWorker();
    started += 1;
    const jobs = new Map<number, Job>();
    pool.set(worker, jobs);
    worker.on("message", (reply: ParseReply) => {
      const job = jobs.get(reply.id);
      if (job === undefined) return;
      if (reply.value === undefined) return retire(worker, reply.error ?? "no result");
      jobs.delete(reply.id);
      // In an event handler: a reply that does not decode (a bug) fails its load, not the process.
      let value: unknown;
      try {
        value = job.decode(reply.value);
      } catch (error) {
        return job.reject(error);
      }
      job.resolve(value);
    });
    worker.on("error", (err) => retire(worker, err.message));
    worker.on("exit", (code) => retire(worker, `exited ${code}`));
  };

  // Started on the first parse: a restart whose packs all come from the
  // parse cache never pays for them.
  const start = (): void => {
    if (started > 0 || closed) return;
    for (let i = 0; i < workers; i++) spawn();
  };

  // The calling thread runs `inline` itself when every worker's backlog is full (or none is left).
  const submit = <T>(request: (id: number) => ParseRequest, inline: () => T, decode: (value: unknown) => T): Promise<T> => {
    start();
    let target: [Worker, Map<number, Job>] | undefined;
    for (const entry of pool) if (entry[1].size < BACKLOG && (target === undefined || entry[1].size < target[1].size)) target = entry;
    if (target === undefined) return Promise.resolve(inline());
    const [worker, jobs] = target;
    return new Promise<T>((resolve, reject) => {
      const job: Job = { request: request(nextId++), inline, decode, resolve: resolve as (value: unknown) => void, reject };
      jobs.set(job.request.id, job);
      worker.postMessage(job.request);
    });
  };

  return {
    prestart: start,
    workers: () => started,
    parse: (text, file) =>
      submit(
        (id) => ({ id, kind: "text", text, file }),
        () => parsePack(text, file),
        (value) => recordFromWire(value as PackRecordWire),
      ),
    parseFile: (within, absPath, file, fingerprint, quietMs = 0) =>
      submit(
        (id) => ({ id, kind: "file", within, path: absPath, file, fingerprint, quietMs }),
        () => parsePackFile(within, absPath, file, fingerprint, quietMs),
        (value) => fileResultFromWire(value as PackFileResultWire),
      ),
    async close() {
      closed = true;
      const workersLeft = [...pool.keys()];
      // Anything still queued is parsed here rather than lost.
      for (const worker of workersLeft) retire(worker, "closed");
      await Promise.all(workersLeft.map((w) => w.terminate()));
    },
  };
}

/**
 * Workers worth starting for one load, at most `max`: one core is left to
 * the calling thread, which builds the recipes and indexes them as the
 * workers' parses come back (see SearchEngine.warm).
 */
export function parseWorkerCount(max = 3): number {
  return Math.max(0, Math.min(max, availableParallelism() - 1));
}

/** Running from the TypeScript sources (tests, benches under tsx) rather than the build. */
const fromSource = import.meta.url.endsWith(".ts");

export function spawnParseWorker(): Worker {
  if (!fromSource) return new Worker(new URL("./parse-worker.js", import.meta.url));
  // The same worker from source, under tsx's loader (a dev dependency: the
  // build never takes this path), so tests exercise the worker they test.
  // Node 20 applies no --import hook to a worker's entry module: the entry
  // registers tsx, then imports the worker.
  const boot = `import { register } from ${JSON.stringify(tsxEsmApi())}; register(); await import(${JSON.stringify(new URL("./parse-worker.ts", import.meta.url).href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`));
}

/** tsx's ES module API, as its package.json exports it to `import`. */
function tsxEsmApi(): string {
  const manifest = createRequire(import.meta.url).resolve("tsx/package.json");
  const { exports } = JSON.parse(readFileSync(manifest, "utf8")) as { exports: Record<string, { import: { default: string } }> };
  return pathToFileURL(path.join(path.dirname(manifest), exports["./esm/api"]!.import.default)).href;
}
