/**
 * The run's shared PostgreSQL for test files: started by the first file that
 * asks, in the directory test/postgres-global.ts names (and stops and removes
 * when the run ends); each caller makes its own databases.
 */
import fs from "node:fs";
import path from "node:path";
import { inject } from "vitest";
import { clusterAt, findPostgresBin, NO_POSTGRES_REASON, startPostgres, type PostgresCluster } from "./postgres-cluster.js";

export { PG_PASSWORD, startPostgres, type PostgresCluster } from "./postgres-cluster.js";

const LOCK_WAIT_MS = 90_000;

/** The run's one cluster (started by the first file that asks); a reason string when there is none. */
export async function sharedPostgres(): Promise<PostgresCluster | string> {
  if (findPostgresBin() === null) return NO_POSTGRES_REASON;
  const home = inject("postgresHome");
  const ready = path.join(home, "ready.json");
  const lock = path.join(home, "lock");
  fs.mkdirSync(path.dirname(home), { recursive: true });
  let mine = false;
  try {
    fs.mkdirSync(home);
    fs.mkdirSync(lock);
    mine = true;
  } catch {
    // Another file is starting it (or did).
  }
  if (mine) {
    const started = await startPostgres(home);
    if (typeof started === "string") return started;
    fs.writeFileSync(`${ready}.tmp`, JSON.stringify({ port: started.port }));
    fs.renameSync(`${ready}.tmp`, ready);
    return started;
  }
  const deadline = Date.now() + LOCK_WAIT_MS;
  while (!fs.existsSync(ready)) {
    if (Date.now() > deadline) return "the shared PostgreSQL did not start in time";
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { port } = JSON.parse(fs.readFileSync(ready, "utf8")) as { port: number };
  return clusterAt(home, port, null);
}
