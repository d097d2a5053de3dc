/**
 * The parse worker's threads, apart from the pool that feeds them
 * (parse-pool.ts): how many a load may use, how one is started, and workers
 * started ahead of the load that will use them.
 *
 * A worker takes ~100–200 ms to start and load its module on 2 cores. On a
 * first start (which parses every pack) the CLI starts a load's workers
 * before it loads the server's own modules: their start-up then overlaps
 * that instead of following the load's directory listing. Imports nothing
 * of the project, so the CLI can load it without the rest.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

/**
 * Workers worth starting for one load, at most `max`: one core is left to
 * the calling thread, which reads the files, builds the recipes and indexes
 * them as the workers' parses come back (see SearchEngine.warm).
 */
export function parseWorkerCount(max = 3): number {
  // The worker runs compiled JavaScript only (see parse-worker.ts).
  if (!import.meta.url.endsWith(".js")) return 0;
  return Math.max(0, Math.min(max, availableParallelism() - 1));
}

export function spawnParseWorker(): Worker {
  return new Worker(new URL("./parse-worker.js", import.meta.url));
}

/** Workers started ahead, for the first pool that wants them. */
export interface ParseWorkerSupply {
  /**
   * A started worker not known to have failed (one whose failure is still
   * in flight may be handed out: the taker's own 'error' and 'exit'
   * listeners hear it); undefined when none is left. The caller owns it
   * from here: its listeners, its termination.
   */
  take(): Worker | undefined;
  /** Terminates the workers nobody took. */
  release(): Promise<void>;
}

export const noParseWorkers: ParseWorkerSupply = {
  take: () => undefined,
  release: () => Promise.resolve(),
};

export function startParseWorkers(count: number): ParseWorkerSupply {
  /** Each idle worker with the function that removes this supply's listeners from it. */
  const idle = new Map<Worker, () => void>();
  for (let i = 0; i < count; i++) {
    const worker = spawnParseWorker();
    // Until it is taken, a worker that fails is only dropped: an 'error' with
    // no listener would end the process. Whoever takes one attaches its own
    // listeners in the same turn, so no event falls between the two.
    const drop = (): void => {
      idle.delete(worker);
    };
    worker.on("error", drop);
    worker.on("exit", drop);
    // An idle worker must not keep a process that is otherwise done alive.
    worker.unref();
    idle.set(worker, () => {
      worker.off("error", drop);
      worker.off("exit", drop);
      // Handed out as a freshly spawned worker would be.
      worker.ref();
    });
  }
  return {
    take() {
      for (const [worker, detach] of idle) {
        idle.delete(worker);
        detach();
        return worker;
      }
      return undefined;
    },
    async release() {
      const left = [...idle.keys()];
      idle.clear();
      await Promise.all(left.map((worker) => worker.terminate()));
    },
  };
}
