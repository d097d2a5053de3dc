/**
 * The parse worker's threads, apart from the pool that feeds them
 * (parse-pool.ts): how many a load may use and how one is started.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * Workers worth starting for one load, at most `max`: one core is left to
 * the calling thread, which builds the recipes and indexes them as the
 * workers' parses come back (see SearchEngine.warm).
 */
export function parseWorkerCount(max = 3): number {
  return Math.max(0, Math.min(max, availableParallelism() - 1));
}

/** Running from the TypeScript sources (tests, benches under tsx) rather than the build. */
const fromSource = import.meta.url.endsWith(".ts");

export function spawnParseWorker(): Worker {
  if (!fromSource) return new Worker(new URL("./parse-worker.js", import.meta.url));
  // The same worker from source, under tsx's loader (a dev dependency: the
  // build never takes this path), so tests exercise the worker they test.
  // Node 20 applies no --import hook to a worker's entry module: the entry
  // registers tsx, then imports the worker.
  const boot = `import { register } from ${JSON.stringify(tsxEsmApi())}; register(); await import(${JSON.stringify(new URL("./parse-worker.ts", import.meta.url).href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`));
}

/** tsx's ES module API, as its package.json exports it to `import`. */
function tsxEsmApi(): string {
  const manifest = createRequire(import.meta.url).resolve("tsx/package.json");
  const { exports } = JSON.parse(readFileSync(manifest, "utf8")) as { exports: Record<string, { import: { default: string } }> };
  return pathToFileURL(path.join(path.dirname(manifest), exports["./esm/api"]!.import.default)).href;
}
