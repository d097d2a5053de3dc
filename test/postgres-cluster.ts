/**
 * A real PostgreSQL for tests and benches: the machine's PostgreSQL binaries,
 * a cluster in a temp dir owned by the postgres user (initdb refuses root), on
 * a loopback port. `startPostgres()` starts a cluster of the caller's own
 * (test/postgres.ts shares one per test run); where no binaries exist it
 * answers a reason to skip.
 *
 * Host connections need a password (scram), so a wrong one is refused as it
 * would be in production; the socket in the temp dir is trusted.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);
export const PG_PASSWORD = "s3cret'\";--pw";

export interface PostgresCluster {
  readonly dir: string;
  readonly port: number;
  /** postgres://postgres:<password>@127.0.0.1:<port>/<database> */
  url(database?: string): string;
  /** A new empty database; returns its URL. */
  createDatabase(): Promise<string>;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stop and remove everything. */
  destroy(): Promise<void>;
}

export function findPostgresBin(): string | null {
  const base = "/usr/lib/postgresql";
  let versions: string[];
  try {
    versions = fs.readdirSync(base).sort((a, b) => Number(b) - Number(a));
  } catch {
    return null;
  }
  for (const v of versions) {
    const bin = path.join(base, v, "bin");
    if (fs.existsSync(path.join(bin, "initdb")) && fs.existsSync(path.join(bin, "pg_ctl"))) return bin;
  }
  return null;
}

export const NO_POSTGRES_REASON = "no PostgreSQL binaries under /usr/lib/postgresql/*/bin (CI installs the postgresql package)";

async function asPostgres(bin: string, args: readonly string[]): Promise<void> {
  const root = process.getuid?.() === 0;
  const [file, argv] = root ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, [...args]];
  await run(file, argv, { timeout: 60_000 });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Initialise a cluster in `dir` (created) and start it. */
export async function startPostgres(dir?: string, options: { fsync?: boolean } = {}): Promise<PostgresCluster | string> {
  const bin = findPostgresBin();
  if (bin === null) return NO_POSTGRES_REASON;
  const home = dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "recipe-pg-"));
  fs.mkdirSync(home, { recursive: true });
  const data = path.join(home, "data");
  const pwfile = path.join(home, "pw");
  fs.writeFileSync(pwfile, `${PG_PASSWORD}\n`);
  if (process.getuid?.() === 0) {
    await run("chown", ["-R", "postgres", home]);
  }
  await asPostgres(path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256", `--pwfile=${pwfile}`, "-E", "UTF8", "--no-sync"]);
  const cluster = clusterAt(home, await freePort(), bin, options.fsync === true);
  await cluster.start();
  return cluster;
}

/** A cluster's URLs and databases; start and stop only for the cluster's owner (`bin` given). */
export function clusterAt(home: string, port: number, bin: string | null, fsync = false): PostgresCluster {
  const data = path.join(home, "data");
  const url = (database = "postgres"): string => `postgres://postgres:${encodeURIComponent(PG_PASSWORD)}@127.0.0.1:${port}/${database}`;
  const notOwner = (): Promise<void> => Promise.reject(new Error("the shared cluster is not stopped or restarted by a test: use startPostgres()"));
  const cluster: PostgresCluster = {
    dir: home,
    port,
    url,
    async createDatabase() {
      const name = `t_${randomBytes(6).toString("hex")}`;
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    start:
      bin === null
        ? notOwner
        : () =>
            asPostgres(path.join(bin, "pg_ctl"), [
              "-D", data, "-l", path.join(home, "log"), "-w", "-t", "60",
              "-o", `-p ${port} -k ${home} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=${fsync ? "on" : "off"}`,
              "start",
            ]),
    stop: bin === null ? notOwner : () => stopCluster(bin, home),
    async destroy() {
      if (bin === null) return;
      await stopCluster(bin, home);
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
  return cluster;
}

/** Immediate stop (what a crash looks like to clients); quiet when it is not running. */
export async function stopCluster(bin: string, home: string): Promise<void> {
  await asPostgres(path.join(bin, "pg_ctl"), ["-D", path.join(home, "data"), "-m", "immediate", "-w", "stop"]).catch(() => undefined);
}
