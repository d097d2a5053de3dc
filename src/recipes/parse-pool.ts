/**
 * Parses YAML packs on worker threads during a large load. A cold start of
 * 20,000 recipes spends most of its time parsing YAML and compiling schemas,
 * all of it pure CPU work on one file at a time: the workers take it while
 * the calling thread reads files, builds recipes and indexes them. Small
 * reloads parse in the calling thread (a worker costs ~100–200 ms of CPU to start).
 */
import type { Worker } from "node:worker_threads";
import { deepFreeze } from "../skills/freeze.js";
import type { SkillDirReading, SkillDirRequest } from "../skills/discover.js";
import { parsePackFile, type PackFileResult } from "./pack-file.js";
import { parsePack, type PackRecord } from "./parsed-pack.js";
import type { ParseRequest } from "./parse-worker.js";
import { fileResultFromWire, recordFromWire, type PackFileResultWire, type PackRecordWire } from "./pack-wire.js";
import { noParseWorkers, spawnParseWorker, type ParseWorkerSupply } from "./parse-threads.js";

export interface PackParser {
  parse(text: string, file: string): Promise<PackRecord>;
  /**
   * Reads, keys (see packCacheKey) and parses the pack at `absPath` where
   * it parses: on a worker, the calling thread neither reads nor hashes it.
   */
  parseFile(absPath: string, file: string, fingerprint: string): Promise<PackFileResult>;
  /**
   * Has the workers claim and read batches of `reads.dirs` (see shared-reads.ts)
   * until none is left; resolves when they stop. Claims nothing where there is
   * no worker; a worker that stops leaves its claims undelivered: the caller
   * reads whatever is left itself.
   */
  shareSkillDirReads(reads: SharedSkillDirReads): Promise<void>;
  /** Starts the workers now rather than on the first parse (a load sure to parse many packs). */
  prestart(): void;
  /** The workers this parser has run so far, by where they came from. */
  workers(): ParseWorkerCounts;
  close(): Promise<void>;
}

export interface ParseWorkerCounts {
  /** Taken from the workers started ahead (see parse-threads.ts). */
  readonly ahead: number;
  /** Started by this parser. */
  readonly spawned: number;
}

export const NO_PARSE_WORKERS: ParseWorkerCounts = Object.freeze({ ahead: 0, spawned: 0 });

/** Skill directories read by whoever claims them first, a batch at a time. */
export interface SharedSkillDirReads {
  readonly dirs: readonly SkillDirRequest[];
  /** The DCC the load serves: recipe paths are resolved for its skills only. */
  readonly dcc: string;
  /** One Int32 on a SharedArrayBuffer: the index of the next unclaimed directory. */
  readonly claims: SharedArrayBuffer;
  readonly batch: number;
  /** Each batch read (by a worker or the calling thread), as it comes: readings of dirs[from], dirs[from + 1] … */
  onBatch(from: number, readings: readonly SkillDirReading[]): void;
}

export interface PackParserLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
}

interface Job {
  readonly request: ParseRequest;
  /** The worker's reply as the caller wants it (see pack-wire.ts). */
  readonly decode: (value: unknown) => unknown;
  /** Partial results a job sends before its reply (shared skill reads). */
  readonly progress?: (value: unknown) => void;
  /** The same work in the calling thread, for a worker that stopped. */
  inline(): unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Reply {
  readonly id: number;
  readonly progress?: unknown;
  readonly value?: unknown;
  readonly error?: string;
}

/** The calling thread only. */
export const inlineParser: PackParser = {
  parse: (text, file) => Promise.resolve(parsePack(text, file)),
  parseFile: (absPath, file, fingerprint) => Promise.resolve(parsePackFile(absPath, file, fingerprint)),
  shareSkillDirReads: () => Promise.resolve(),
  prestart: () => undefined,
  workers: () => NO_PARSE_WORKERS,
  close: () => Promise.resolve(),
};

/**
 * Packs a worker holds at once. The calling thread parses a pack itself only
 * when every worker holds this many: its own share of a load (building
 * recipes, indexing them) comes first, and it takes some of the parsing only
 * when the workers fall behind.
 */
const BACKLOG = 32;

export interface PackParserOptions {
  readonly logger?: PackParserLogger;
  /** Workers started ahead (see parse-threads.ts), taken before any is spawned here. */
  readonly supply?: ParseWorkerSupply;
}

export function createPackParser(workers: number, options: PackParserOptions = {}): PackParser {
  const { logger, supply = noParseWorkers } = options;
  if (workers <= 0) return inlineParser;
  const pool = new Map<Worker, Map<number, Job>>();
  let nextId = 0;
  let closed = false;
  let ahead = 0;
  let spawned = 0;

  // A worker that fails (a bug, never an author's file: parsePack turns those
  // into diagnostics) hands its jobs back and leaves; the rest, or the
  // calling thread, parse on.
  const retire = (worker: Worker, reason: string): void => {
    const jobs = pool.get(worker);
    if (jobs === undefined) return;
    pool.delete(worker);
    if (!closed) logger?.warn({ reason }, "parse worker stopped; parsing continues without it");
    // Messages the worker posted before it stopped may still arrive: its jobs are settled here.
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

  // Started on the first parse: a restart whose packs all come from the
  // parse cache never pays for them.
  let started = false;
  const spawn = (): void => {
    let worker = supply.take();
    if (worker === undefined) {
      worker = spawnParseWorker();
      spawned += 1;
    } else {
      ahead += 1;
    }
    const jobs = new Map<number, Job>();
    pool.set(worker, jobs);
    worker.on("message", (reply: Reply) => {
      const job = jobs.get(reply.id);
      if (job === undefined) return;
      if (reply.progress !== undefined) {
        // In an event handler: a bug handling a batch fails its load, not the process.
        try {
          job.progress?.(reply.progress);
        } catch (error) {
          jobs.delete(reply.id);
          job.reject(error);
        }
        return;
      }
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

  const start = (): void => {
    if (started || closed) return;
    started = true;
    for (let i = 0; i < workers; i++) spawn();
  };

  // The calling thread runs `inline` itself when every worker's backlog is full (or none is left).
  const submit = <T>(
    request: (id: number) => ParseRequest,
    inline: () => T,
    decode: (value: unknown) => T,
    progress?: (value: unknown) => void,
  ): Promise<T> => {
    start();
    let target: [Worker, Map<number, Job>] | undefined;
    for (const entry of pool) if (entry[1].size < BACKLOG && (target === undefined || entry[1].size < target[1].size)) target = entry;
    if (target === undefined) return Promise.resolve(inline());
    const [worker, jobs] = target;
    return new Promise<T>((resolve, reject) => {
      const job: Job = { request: request(nextId++), inline, decode, resolve: resolve as (value: unknown) => void, reject, ...(progress ? { progress } : {}) };
      jobs.set(job.request.id, job);
      worker.postMessage(job.request);
    });
  };

  return {
    prestart: start,
    workers: () => ({ ahead, spawned }),
    parse: (text, file) =>
      submit(
        (id) => ({ id, kind: "text", text, file }),
        () => parsePack(text, file),
        (value) => recordFromWire(value as PackRecordWire),
      ),
    parseFile: (absPath, file, fingerprint) =>
      submit(
        (id) => ({ id, kind: "file", path: absPath, file, fingerprint }),
        () => parsePackFile(absPath, file, fingerprint),
        (value) => fileResultFromWire(value as PackFileResultWire),
      ),
    shareSkillDirReads: async (reads) => {
      // One job per worker, each claiming batches until none is left. A job
      // that ends up inline (no worker, or its worker stopped) claims nothing:
      // the caller reads whatever was claimed and never delivered.
      const progress = (value: unknown): void => {
        const { from, readings } = value as { from: number; readings: SkillDirReading[] };
        // A thread hop hands back copies: frozen again, as the calling thread's reads are.
        reads.onBatch(from, deepFreeze(readings));
      };
      const request = (id: number): ParseRequest => ({ id, kind: "skills", dirs: reads.dirs, dcc: reads.dcc, claims: reads.claims, batch: reads.batch });
      start();
      await Promise.all([...pool.keys()].map(() => submit(request, () => undefined, () => undefined, progress)));
    },
    async close() {
      closed = true;
      const workersLeft = [...pool.keys()];
      // Anything still queued is parsed here rather than lost.
      for (const worker of workersLeft) retire(worker, "closed");
      await Promise.all(workersLeft.map((w) => w.terminate()));
    },
  };
}
