/**
 * Worker side of parse-pool.ts: parses the packs it is sent, as text or as
 * a path to read itself, and reads the skill directories of a cold load
 * (shared-reads.ts), then parses the packs of the directories it read
 * before it is asked for them (see PreparsedPack). Runs only from compiled
 * JavaScript (dist/); under TypeScript tooling the pool parses in the
 * calling thread instead.
 */
import { parentPort } from "node:worker_threads";
import type { SkillDirReading, SkillDirRequest } from "../skills/discover.js";
import { skillRelative } from "../skills/recipe-paths.js";
import { isYamlFile, parsePackFile } from "./pack-file.js";
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
      /** Set: parse the packs of the directories read here once none is left to claim, keyed with it. */
      readonly preparseFingerprint?: string;
    };

/**
 * A pack the worker parses without being asked: its reply comes under `id`
 * (negative, never a request's), whether or not the pool has asked by then.
 * Announced (`{ preparsed: [...] }`) with the batch of readings that named
 * it, so before the reads' own reply.
 */
export interface PreparsedPack {
  readonly id: number;
  readonly path: string;
  /** Skill-relative name, as parseFile takes it. */
  readonly file: string;
  readonly fingerprint: string;
}

const port = parentPort;
if (port !== null) serve(port);

function serve(port: NonNullable<typeof parentPort>): void {
  const reply = (id: number, value: unknown): void => port.postMessage({ id, value });
  const fail = (id: number, err: unknown): void => port.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  let lastPreparseId = 0;

  const packsOf = (readings: readonly SkillDirReading[], fingerprint: string): PreparsedPack[] =>
    readings.flatMap(({ result, paths }) =>
      result.skill === null || paths === null
        ? []
        : paths.files.filter(isYamlFile).map((path) => ({ id: --lastPreparseId, path, file: skillRelative(result.skill!.dir, path), fingerprint })),
    );

  // One pack per turn: a pack the pool sends meanwhile (one this worker did not read) waits for one parse at most.
  const preparse = (packs: readonly PreparsedPack[]): void => {
    let next = 0;
    const step = (): void => {
      const pack = packs[next++];
      if (pack === undefined) return;
      try {
        reply(pack.id, fileResultToWire(parsePackFile(pack.path, pack.file, pack.fingerprint)));
      } catch (err) {
        fail(pack.id, err);
      }
      setImmediate(step);
    };
    step();
  };

  port.on("message", (request: ParseRequest) => {
    try {
      if (request.kind === "skills") {
        const { id, dirs, dcc, claims, batch, preparseFingerprint } = request;
        const packs: PreparsedPack[] = [];
        const onBatch = (from: number, readings: readonly SkillDirReading[]): void => {
          const announced = preparseFingerprint === undefined ? [] : packsOf(readings, preparseFingerprint);
          packs.push(...announced);
          port.postMessage({ id, progress: { from, readings }, ...(announced.length > 0 ? { preparsed: announced } : {}) });
        };
        readClaimed({ dirs, dcc, claims, batch, onBatch }).then(
          () => {
            reply(request.id, true);
            preparse(packs);
          },
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
}
