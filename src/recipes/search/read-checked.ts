import { createHash } from "node:crypto";
import { promises as fs, statSync } from "node:fs";
import { Worker } from "node:worker_threads";

/**
 * A whole file read into a buffer of its own, with the sha256 of all but its
 * trailing checksum, for the vector cache. A large file is read and hashed
 * in a short-lived worker thread and its buffer transferred back without a
 * copy: at 20,000 recipes that is ~40 MB whose first pass (the hash) costs
 * the main thread ~0.15–0.3 s of CPU on this VM, in the very seconds the
 * catalog loads on it at start-up.
 *
 * The worker is plain JS given as a string (as in embeddings/local.ts) so
 * the same code runs from dist/ and from TypeScript under tsx/vitest.
 */

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const { createHash } = require("node:crypto");
function run() {
  const { file, min, max, trailer } = workerData;
  const fd = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(fd).size;
    if (size < min || size > max) return { type: "size" };
    const buf = Buffer.allocUnsafeSlow(size);
    let done = 0;
    while (done < size) {
      const n = fs.readSync(fd, buf, done, size - done, done);
      if (n === 0) return { type: "size" };
      done += n;
    }
    const sum = createHash("sha256").update(buf.subarray(0, size - trailer)).digest();
    return { type: "ok", buffer: buf.buffer, sum };
  } finally {
    fs.closeSync(fd);
  }
}
try {
  const out = run();
  parentPort.postMessage(out, out.type === "ok" ? [out.buffer] : []);
} catch (err) {
  parentPort.postMessage({ type: "error", code: err && err.code, message: String((err && err.message) || err) });
}
`;

export interface CheckedRead {
  /** The whole file; offset 0 in its own ArrayBuffer, so alignment within the file holds in memory. */
  readonly buf: Buffer;
  /** sha256 of all but the last `trailer` bytes. */
  readonly sum: Buffer;
}

interface ReadCheckedOptions {
  /** Sizes outside [min, max] answer null (max below 2^31). */
  readonly min: number;
  readonly max: number;
  /** Bytes at the end left out of the checksum (the stored checksum). */
  readonly trailer: number;
  /** Files of at least this many bytes are read in a worker thread. */
  readonly offThreadFrom: number;
}

/**
 * Rejects with the file system's error (code ENOENT for a missing file).
 * The worker, when used, starts before this returns: a caller that goes on
 * with synchronous work (a first catalog indexed in one go) gets the read
 * done meanwhile, where an awaited stat would wait for that work to finish.
 */
export function readChecked(file: string, options: ReadCheckedOptions): Promise<CheckedRead | null> {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (err) {
    return Promise.reject(err as Error);
  }
  return size >= options.offThreadFrom ? readInWorker(file, options) : readHere(file, options);
}

async function readHere(file: string, { min, max, trailer }: ReadCheckedOptions): Promise<CheckedRead | null> {
  const handle = await fs.open(file, "r");
  try {
    const size = (await handle.stat()).size;
    if (size < min || size > max) return null;
    const buf = Buffer.allocUnsafeSlow(size);
    let done = 0;
    while (done < size) {
      const { bytesRead } = await handle.read(buf, done, size - done, done);
      if (bytesRead === 0) return null; // shrank under us
      done += bytesRead;
    }
    return { buf, sum: createHash("sha256").update(buf.subarray(0, size - trailer)).digest() };
  } finally {
    await handle.close();
  }
}

type WorkerAnswer =
  | { type: "ok"; buffer: ArrayBuffer; sum: Uint8Array }
  | { type: "size" }
  | { type: "error"; code?: string; message: string };

function readInWorker(file: string, { min, max, trailer }: ReadCheckedOptions): Promise<CheckedRead | null> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, min, max, trailer } });
    worker.once("message", (msg: WorkerAnswer) => {
      settled = true;
      if (msg.type === "ok") resolve({ buf: Buffer.from(msg.buffer), sum: Buffer.from(msg.sum.buffer, msg.sum.byteOffset, msg.sum.byteLength) });
      else if (msg.type === "size") resolve(null);
      else reject(Object.assign(new Error(msg.message), msg.code ? { code: msg.code } : {}));
    });
    worker.once("error", (err) => {
      if (!settled) reject(err);
      settled = true;
    });
    worker.once("exit", (code) => {
      if (!settled) reject(new Error(`cache reader exited with code ${code}`));
      settled = true;
    });
  });
}
