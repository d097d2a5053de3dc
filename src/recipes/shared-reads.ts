/**
 * A cold load's skill directories (SKILL.md, then the recipe files it names),
 * read by the parse workers and this thread together. Both claim batches from
 * one shared counter: the workers start as soon as they are up, while this
 * thread is still starting the server, and this thread takes a batch whenever
 * its event loop has a turn free. Neither waits on the other for work. A
 * worker then parses the packs of the directories it read without waiting
 * to be asked (preparseFingerprint): this thread, still starting the server,
 * would only ask for them ~100–200 ms later.
 */
import { readSkillDirs, type SkillDirReading, type SkillDirRequest } from "../skills/discover.js";
import type { PackParser, SharedSkillDirReads } from "./parse-pool.js";

/** Directories per claim: a few ms of work, one message. */
const BATCH = 16;

/**
 * Claims and reads batches until none is left (a worker runs this too);
 * `between` runs before each claim.
 */
export async function readClaimed(reads: SharedSkillDirReads, between?: () => Promise<void>): Promise<void> {
  const next = new Int32Array(reads.claims);
  for (;;) {
    if (between !== undefined) await between();
    const from = Atomics.add(next, 0, reads.batch);
    if (from >= reads.dirs.length) return;
    reads.onBatch(from, await readSkillDirs(reads.dirs.slice(from, from + reads.batch), reads.dcc));
  }
}

export async function readSkillDirsShared(
  dirs: readonly SkillDirRequest[],
  dcc: string,
  parser: PackParser,
  onRead: (index: number, reading: SkillDirReading) => void,
  options: { readonly preparseFingerprint?: string } = {},
): Promise<void> {
  const claims = new SharedArrayBuffer(4);
  const delivered = new Uint8Array(dirs.length);
  // Past a failure, or once the batches never delivered are being re-read here, a late
  // batch (posted by a worker just before it stopped) is dropped.
  let settled = false;
  const reads: SharedSkillDirReads = {
    dirs,
    dcc,
    claims,
    batch: BATCH,
    ...(options.preparseFingerprint !== undefined ? { preparseFingerprint: options.preparseFingerprint } : {}),
    onBatch(from, readings) {
      if (settled) return;
      readings.forEach((reading, i) => {
        if (delivered[from + i] === 1) return;
        delivered[from + i] = 1;
        onRead(from + i, reading);
      });
    },
  };
  const stopOnFailure = (error: unknown): never => {
    // A failed read (a bug) fails the load: nothing more is claimed or delivered.
    settled = true;
    Atomics.store(new Int32Array(claims), 0, dirs.length);
    throw error;
  };
  await Promise.all([parser.shareSkillDirReads(reads), readClaimed(reads, freeTurn)].map((p) => p.catch(stopOnFailure)));
  // Batches a worker claimed but never sent back (it stopped): read here.
  settled = true;
  const missed: number[] = [];
  delivered.forEach((done, i) => done === 0 && missed.push(i));
  if (missed.length > 0) {
    const readings = await readSkillDirs(
      missed.map((i) => dirs[i]!),
      dcc,
    );
    readings.forEach((reading, k) => onRead(missed[k]!, reading));
  }
}

function freeTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
