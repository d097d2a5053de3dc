/**
 * The daemon's serve command, once the CLI has resolved its config: the
 * logger, the catalogs, the server, and the signals that stop them. Loaded
 * by cli.ts on demand, so help, version and usage errors never load the
 * server's modules.
 */
import type { Logger } from "pino";
import type { Config } from "./config.js";
import { createDaemonLogger, flushLogs } from "./main/logger.js";
import { startStartupReport } from "./main/startup-report.js";
import type { ParseWorkerSupply } from "./recipes/parse-threads.js";
import { packageVersion } from "./version.js";

/** `recipe-server paths`: in this bundle because it loads catalogs as the server does. */
export { runPaths } from "./main/paths-command.js";

/** Longest the server stack's import waits for the first load to get under way. */
const UNDERWAY_WAIT_MS = 100;

export interface ServeOptions {
  /** Parse workers the CLI started ahead of the first load; the catalogs own them from here. */
  readonly parseWorkers?: ParseWorkerSupply;
}

/** Serves until SIGTERM or SIGINT; resolves with the process's exit code. */
export async function serve(config: Config, options: ServeOptions = {}): Promise<number> {
  const logger: Logger = createDaemonLogger(config);
  const { openCatalogs } = await import("./catalogs.js");
  // The catalogs start loading before the server stack is imported, so the
  // load overlaps that import; start() listens, then awaits (and logs the
  // failure of) this same load. On a cold start the import waits until the
  // load's parse workers are starting (a few ms of directory listing): it is
  // CPU work on this thread, and the workers' own start-up and SKILL.md reads
  // overlap it. Never for long: a stalled skill root must not keep the
  // server from listening (and answering /healthz).
  const catalogs = openCatalogs(config, logger, options.parseWorkers !== undefined ? { parseWorkers: options.parseWorkers } : {});
  catalogs.load().catch(() => undefined);
  // store (#24): bad credentials or a schema newer than this code never get better by waiting: one line, exit 2.
  const storeProblem = (await Promise.all([...catalogs.libraries.values()].map((l) => l.store.startupProblem()))).find((p) => p !== null);
  if (storeProblem !== undefined) {
    process.stderr.write(`recipe-server: ${storeProblem}\n`);
    return 2;
  }
  await Promise.race([catalogs.underway(), new Promise((resolve) => setTimeout(resolve, UNDERWAY_WAIT_MS).unref())]);
  const { createRecipeServer } = await import("./app.js");
  const server = createRecipeServer(config, { logger, catalogs });
  let url: string;
  try {
    ({ url } = await server.start());
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "EADDRINUSE") {
      process.stderr.write(`recipe-server: port ${config.port} is already in use on ${config.host}\n`);
      return 1;
    }
    if (code === "EACCES" || code === "EADDRNOTAVAIL") {
      process.stderr.write(`recipe-server: cannot listen on ${config.host}:${config.port} (${code})\n`);
      return 1;
    }
    throw error;
  }
  const report = startStartupReport({ config, version: packageVersion(), url, libraries: server.libraries, logger, loaded: server.ready() });
  return new Promise<number>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stopping) {
        server.logger.warn({ signal }, "second signal: exiting now");
        process.exit(1);
      }
      stopping = true;
      report.stop();
      server.logger.info({ signal }, "shutting down");
      server.stop().then(
        () => flushLogs(logger).then(() => resolve(0)),
        (error: unknown) => {
          server.logger.error({ err: error }, "shutdown failed");
          void flushLogs(logger).then(() => resolve(1));
        },
      );
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}
