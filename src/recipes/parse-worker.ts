/**
 * Worker side of parse-pool.ts: parses the packs it is sent. Runs only from
 * compiled JavaScript (dist/); under TypeScript tooling the pool parses in
 * the calling thread instead.
 */
import { parentPort } from "node:worker_threads";
import { parsePack } from "./parsed-pack.js";

export interface ParseRequest {
  readonly id: number;
  readonly text: string;
  readonly file: string;
}

parentPort?.on("message", (request: ParseRequest) => {
  try {
    parentPort!.postMessage({ id: request.id, record: parsePack(request.text, request.file) });
  } catch (err) {
    parentPort!.postMessage({ id: request.id, error: err instanceof Error ? err.message : String(err) });
  }
});
