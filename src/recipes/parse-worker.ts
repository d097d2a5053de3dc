/**
 * Worker side of parse-pool.ts: parses the packs it is sent, as text or as
 * a path to read itself, and reads the skill directories of a cold load
 * (shared-reads.ts). Runs only from compiled JavaScript (dist/); under
 * TypeScript tooling the pool parses in the calling thread instead.
 */
import { parentPort } from "node:worker_threads";
import type { SkillDirRequest } from "../skills/discover.js";
import { parsePackFile } from "./pack-file.js";
import { parsePack } from "./parsed-pack.js";
import { fileResultToWire, recordToWire } from "./pack-wire.js";
import { readClaimed } from "./shared-reads.js";

export type ParseRequest =
  | { readonly id: number; readonly kind: "text"; readonly text: string; readonly file: string }
  | { readonly id: number; readonly kind: "file"; readonly path: string; readonly file: string; readonly fingerprint: string }
  | {
      readonly id: number;
      readonly kind: "skills";
      readonly dirs: readonly SkillDirRequest[];
      readonly dcc: string;
      /** See parse-pool.ts SharedSkillDirReads. */
      readonly claims: SharedArrayBuffer;
      readonly batch: number;
    };

const reply = (id: number, value: unknown): void => parentPort!.postMessage({ id, value });
const fail = (id: number, err: unknown): void => parentPort!.postMessage({ id, error: err instanceof Error ? err.message : String(err) });

parentPort?.on("message", (request: ParseRequest) => {
  try {
    if (request.kind === "skills") {
      const { id, dirs, dcc, claims, batch } = request;
      const onBatch = (from: number, readings: unknown): void => parentPort!.postMessage({ id, progress: { from, readings } });
      readClaimed({ dirs, dcc, claims, batch, onBatch }).then(
        () => reply(request.id, true),
        (err: unknown) => fail(request.id, err),
      );
      return;
    }
    reply(
      request.id,
      request.kind === "text" ? recordToWire(parsePack(request.text, request.file)) : fileResultToWire(parsePackFile(request.path, request.file, request.fingerprint)),
    );
  } catch (err) {
    fail(request.id, err);
  }
});
