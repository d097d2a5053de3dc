/**
 * The parse worker's threads: a count that leaves the calling thread a
 * core, and a worker that starts from the TypeScript sources as it does
 * from the build (bundled-cli.test.ts drives the built one).
 */
import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { recordFromWire, type ParseReply, type PackRecordWire } from "../../../src/recipes/packs/pack-wire.js";
import { parseWorkerCount, spawnParseWorker } from "../../../src/recipes/packs/parse-threads.js";

describe("parse threads", () => {
  it("counts one worker fewer than the cores, at most the maximum asked", () => {
    expect(parseWorkerCount()).toBe(Math.max(0, Math.min(3, availableParallelism() - 1)));
    expect(parseWorkerCount(0)).toBe(0);
    expect(parseWorkerCount(1)).toBe(Math.min(1, availableParallelism() - 1));
  });

  it("starts the source worker, which answers a request it is handed", async () => {
    const worker = spawnParseWorker();
    try {
      const reply = await new Promise<ParseReply>((resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
        worker.postMessage({ id: 7, kind: "text", text: "recipes:\n  - name: a\n    steps: []\n", file: "p.yaml" });
      });
      expect(reply.id).toBe(7);
      expect(recordFromWire(reply.value as PackRecordWire).entries.map((e) => e.name)).toEqual(["a"]);
    } finally {
      await worker.terminate();
    }
  });
});
