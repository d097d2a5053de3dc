/**
 * The daemon's serve command, once the CLI has resolved its config: the
 * logger, the catalogs, the server, and the signals that stop them. Loaded
 * by cli.ts on demand, so help, version and usage errors never load the
 * server's modules.
 */
import type { Logger } from "pino";
import type { Config } from "../config/resolve.js";
import { createDaemonLogger, flushLogs } from "./logger.js";
import { startStartupReport } from "./startup-report.js";
import { createStatusLine } from "./status-line.js";
import { packageVersion } from "../util/version.js";

/** `recipe-server paths`: in this bundle because it loads catalogs as the server does. */
export { runPaths } from "./paths-command.js";

/** Serves until SIGTERM or SIGINT; resolves with the process's exit code. */
export async function serve(config: Config): Promise<number> {
  // Progress rewrites one line only where a person watches a terminal.
  const statusLine = config.logFormat === "pretty" && process.stderr.isTTY === true ? createStatusLine(process.stderr) : null;
  const logger: Logger = createDaemonLogger(config, { statusLine });
  const { openCatalogs } = await import("../compose/catalogs.js");
  // The catalogs start loading before the server stack is set up, so the
  // load's file reads and parse workers overlap it; start() listens, then
  // awaits (and logs the failure of) this same load.
  const catalogs = openCatalogs(config, logger);
  catalogs.load().catch(() => undefined);
  // Bad credentials or a schema newer than this code never get better by waiting: one line, exit 2.
  const storeProblem = (await Promise.all([...catalogs.libraries.values()].map((l) => l.store.startupProblem()))).find((p) => p !== null);
  if (storeProblem !== undefined) {
    process.stderr.write(`recipe-server: ${storeProblem}\n`);
    return 2;
  }
  const { createRecipeServer } = await import("../compose/app.js");
  const server = createRecipeServer(config, { logger, catalogs });
  let url: string;
  try {
    ({ url } = await server.start());
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_USERS_FILE") {
      process.stderr.write(`recipe-server: ${(error as Error).message}\n`);
      return 2;
    }
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
  const report = startStartupReport({ config, version: packageVersion(), url, libraries: server.libraries, logger, loaded: server.ready(), statusLine });
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
