/**
 * Preloaded into a daemon by bench/starts.ts --breakdown (node --import):
 * on SIGUSR2 it appends one JSON line to $BENCH_MEMORY_PROBE with
 * process.memoryUsage() and V8's heap spaces, in MB. Bench-only: the
 * product has no memory-report flag, and the daemon never sees this file
 * unless a bench puts it on its command line.
 */
import { appendFileSync } from "node:fs";
import { getHeapSpaceStatistics } from "node:v8";

const out = process.env.BENCH_MEMORY_PROBE;
const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;

function reading() {
  const usage = process.memoryUsage();
  const spaces = {};
  for (const s of getHeapSpaceStatistics()) spaces[s.space_name.replace(/_space$/, "")] = { size: mb(s.space_size), used: mb(s.space_used_size) };
  return { rss: mb(usage.rss), heapTotal: mb(usage.heapTotal), heapUsed: mb(usage.heapUsed), external: mb(usage.external), arrayBuffers: mb(usage.arrayBuffers), spaces };
}

if (out) {
  process.on("SIGUSR2", () => {
    const line = reading();
    // Under --expose-gc: what a full collection would free (garbage not yet collected vs memory kept).
    if (typeof globalThis.gc === "function") {
      globalThis.gc();
      line.afterGc = reading();
    }
    appendFileSync(out, JSON.stringify(line) + "\n");
  });
}
