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
import type { ParseRequest, PreparsedPack } from "./parse-worker.js";
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
   * until none is left; resolves when no directory is left to claim and every
   * batch a worker read has come (a worker then goes on preparsing, see
   * preparseFingerprint). Claims nothing where there is no worker; a worker
   * that stops leaves its claims undelivered: the caller reads whatever is
   * left itself.
   */
  shareSkillDirReads(reads: SharedSkillDirReads): Promise<void>;
  /** Starts the workers now rather than on the first parse (a load sure to parse many packs). */
  prestart(): void;
  /** The workers this parser has run so far, by where they came from. */
  workers(): ParseWorkerCounts;
  /** Packs whose parse a worker sent before it was asked, and parseFile used (see SharedSkillDirReads.preparseFingerprint). */
  preparsed(): number;
  close(): Promise<void>;
}

export interface ParseWorkerCounts {
  /** Taken from the workers started ahead (see parse-threads.ts). */
  readonly ahead: number;
  /** Started by this parser. */
  readonly spawned: number;
}

export const NO_PARSE_WORKERS: ParseWorkerCounts = Object.freeze({ ahead: 0, spawned: 0 });

/** Parse workers a load ran (see ParseWorkerCounts), and the packs whose parse they sent before being asked (see preparsed()). */
export interface ParseWorkerUse extends ParseWorkerCounts {
  readonly preparsed: number;
}

export const NO_PARSE_WORKER_USE: ParseWorkerUse = Object.freeze({ ...NO_PARSE_WORKERS, preparsed: 0 });

/** Skill directories read by whoever claims them first, a batch at a time. */
export interface SharedSkillDirReads {
  readonly dirs: readonly SkillDirRequest[];
  /** The DCC the load serves: recipe paths are resolved for its skills only. */
  readonly dcc: string;
  /** One Int32 on a SharedArrayBuffer: the index of the next unclaimed directory. */
  readonly claims: SharedArrayBuffer;
  readonly batch: number;
  /**
   * Set: each worker, once no directory is left to claim, parses the YAML
   * packs of the directories it read (keyed with this fingerprint) before
   * it is asked, and parseFile takes those parses rather than sending the
   * packs again. A cold load's calling thread is still starting the server
   * when the reads are done: the worker parses on instead of waiting for it.
   */
  readonly preparseFingerprint?: string;
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
  /** Packs the worker will parse unasked, announced with the readings that named them. */
  readonly preparsed?: readonly PreparsedPack[];
  readonly value?: unknown;
  readonly error?: string;
}

interface WorkerState {
  /** Requests sent, by id. */
  readonly jobs: Map<number, Job>;
  /** Packs announced and not yet asked for, by path. */
  readonly preparsed: Map<string, PreparsedPack>;
  /** Preparsed packs' replies that came before they were asked for, by id. */
  readonly arrived: Map<number, unknown>;
  /** Preparsed packs asked for before their reply came, by id. */
  readonly awaited: Map<number, Job>;
}

/** The calling thread only. */
export const inlineParser: PackParser = {
  parse: (text, file) => Promise.resolve(parsePack(text, file)),
  parseFile: (absPath, file, fingerprint) => Promise.resolve(parsePackFile(absPath, file, fingerprint)),
  shareSkillDirReads: () => Promise.resolve(),
  prestart: () => undefined,
  workers: () => NO_PARSE_WORKERS,
  preparsed: () => 0,
  close: () => Promise.resolve(),
};

/**
 * Requests a worker holds at once. The calling thread parses a pack itself
 * only when every worker holds this many: its own share of a load (building
 * recipes, indexing them) comes first, and it takes some of the parsing only
 * when the workers fall behind. Packs a worker preparses are not requests:
 * they do not count, and are only ever parsed by that worker (or here, if it
 * stops). Parsing some of them here instead made a cold start slower (+0.2 s
 * at 20,000 recipes, measured with a backlog of 8): this thread's own share
 * of a load is the longer one once the worker parses unasked.
 */
const BACKLOG = 32;

export interface PackParserOptions {
  readonly logger?: PackParserLogger;
  /** Workers started ahead (see parse-threads.ts), taken before any is spawned here. */
  readonly supply?: ParseWorkerSupply;
}

/** Preparsed packs' ids are negative (see PreparsedPack); requests count up from 0. */
const isPreparseId = (id: number): boolean => id < 0;

export function createPackParser(workers: number, options: PackParserOptions = {}): PackParser {
  const { logger, supply = noParseWorkers } = options;
  if (workers <= 0) return inlineParser;
  const pool = new Map<Worker, WorkerState>();
  let nextId = 0;
  let closed = false;
  let ahead = 0;
  let spawned = 0;
  let preparsedUsed = 0;

  // A worker that fails (a bug, never an author's file: parsePack turns those
  // into diagnostics) hands its jobs back and leaves; the rest, or the
  // calling thread, parse on.
  const retire = (worker: Worker, reason: string): void => {
    const state = pool.get(worker);
    if (state === undefined) return;
    pool.delete(worker);
    if (!closed) logger?.warn({ reason }, "parse worker stopped; parsing continues without it");
    // Messages the worker posted before it stopped may still arrive: its jobs are settled here.
    // Packs it announced and nobody asked for yet are sent elsewhere when asked for.
    const handedBack = [...state.jobs.values(), ...state.awaited.values()];
    state.jobs.clear();
    state.awaited.clear();
    state.preparsed.clear();
    state.arrived.clear();
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
    const state: WorkerState = { jobs: new Map(), preparsed: new Map(), arrived: new Map(), awaited: new Map() };
    const { jobs } = state;
    pool.set(worker, state);
    worker.on("message", (reply: Reply) => {
      for (const pack of reply.preparsed ?? []) state.preparsed.set(pack.path, pack);
      const job = jobs.get(reply.id) ?? state.awaited.get(reply.id);
      if (job === undefined) {
        if (!isPreparseId(reply.id)) return;
        // A pack it failed on (a bug) would leave whoever asks for it later waiting: the worker leaves now.
        if (reply.value === undefined) return retire(worker, reply.error ?? "no result");
        state.arrived.set(reply.id, reply.value);
        return;
      }
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
      state.awaited.delete(reply.id);
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
    let target: [Worker, WorkerState] | undefined;
    for (const entry of pool) if (entry[1].jobs.size < BACKLOG && (target === undefined || entry[1].jobs.size < target[1].jobs.size)) target = entry;
    if (target === undefined) return Promise.resolve(inline());
    const [worker, { jobs }] = target;
    return new Promise<T>((resolve, reject) => {
      const job: Job = { request: request(nextId++), inline, decode, resolve: resolve as (value: unknown) => void, reject, ...(progress ? { progress } : {}) };
      jobs.set(job.request.id, job);
      worker.postMessage(job.request);
    });
  };

  // A pack a worker announced for this path and key: its parse, now or when it comes.
  const takePreparsed = (absPath: string, file: string, fingerprint: string): Promise<PackFileResult> | undefined => {
    for (const state of pool.values()) {
      const pack = state.preparsed.get(absPath);
      if (pack === undefined || pack.file !== file || pack.fingerprint !== fingerprint) continue;
      state.preparsed.delete(absPath);
      // Counted where the worker's parse is used: one its worker stopped before sending is parsed here (retire).
      const decode = (value: unknown): PackFileResult => {
        preparsedUsed += 1;
        return fileResultFromWire(value as PackFileResultWire);
      };
      if (state.arrived.has(pack.id)) {
        const value = state.arrived.get(pack.id);
        state.arrived.delete(pack.id);
        return new Promise((resolve) => resolve(decode(value)));
      }
      return new Promise<PackFileResult>((resolve, reject) => {
        const request: ParseRequest = { id: pack.id, kind: "file", path: absPath, file, fingerprint };
        const inline = (): PackFileResult => parsePackFile(absPath, file, fingerprint);
        state.awaited.set(pack.id, { request, inline, decode, resolve: resolve as (value: unknown) => void, reject });
      });
    }
    return undefined;
  };

  return {
    prestart: start,
    workers: () => ({ ahead, spawned }),
    preparsed: () => preparsedUsed,
    parse: (text, file) =>
      submit(
        (id) => ({ id, kind: "text", text, file }),
        () => parsePack(text, file),
        (value) => recordFromWire(value as PackRecordWire),
      ),
    parseFile: (absPath, file, fingerprint) =>
      takePreparsed(absPath, file, fingerprint) ??
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
      const preparse = reads.preparseFingerprint !== undefined ? { preparseFingerprint: reads.preparseFingerprint } : {};
      const request = (id: number): ParseRequest => ({ id, kind: "skills", dirs: reads.dirs, dcc: reads.dcc, claims: reads.claims, batch: reads.batch, ...preparse });
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
