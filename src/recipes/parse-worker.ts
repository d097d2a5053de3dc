/**
 * Worker side of parse-pool.ts: parses the packs it is sent, as text or as
 * a path to read itself. Runs only from compiled JavaScript (dist/); under
 * TypeScript tooling the pool parses in the calling thread instead.
 */
import { parentPort } from "node:worker_threads";
import { parsePackFile } from "./pack-file.js";
import { parsePack } from "./parsed-pack.js";

export type ParseRequest =
  | { readonly id: number; readonly kind: "text"; readonly text: string; readonly file: string }
  | { readonly id: number; readonly kind: "file"; readonly path: string; readonly file: string; readonly fingerprint: string };

parentPort?.on("message", (request: ParseRequest) => {
  try {
    const value = request.kind === "text" ? parsePack(request.text, request.file) : parsePackFile(request.path, request.file, request.fingerprint);
    parentPort!.postMessage({ id: request.id, value });
  } catch (err) {
    parentPort!.postMessage({ id: request.id, error: err instanceof Error ? err.message : String(err) });
  }
});
