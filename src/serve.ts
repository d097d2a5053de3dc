/**
 * The daemon's serve command, once the CLI has resolved its config: the
 * logger, the catalogs, the server, and the signals that stop them. Loaded
 * by cli.ts on demand, so help, version and usage errors never load the
 * server's modules.
 */
import { pino, type Logger } from "pino";
import type { Config } from "./config.js";

/** Log bytes held before a write, and the longest a line waits. */
const LOG_BATCH_BYTES = 4096;
const LOG_FLUSH_MS = 200;

/** Serves until SIGTERM or SIGINT; resolves with the process's exit code. */
export async function serve(config: Config): Promise<number> {
  // Log lines (two per tool call at info) are written in batches, at most
  // LOG_FLUSH_MS late, instead of one blocking write each: the writes cost
  // ~0.2 ms of every call under load (profiled at one client). pino writes
  // what is still buffered when the process exits, by any path.
  const logger: Logger = pino({ level: config.logLevel }, pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS }));
  const { openCatalogs } = await import("./catalogs.js");
  // The catalogs start loading before the server stack is set up, so the
  // load's file reads and parse workers overlap it; start() listens, then
  // awaits (and logs the failure of) this same load.
  const catalogs = openCatalogs(config, logger);
  catalogs.load().catch(() => undefined);
  const { createRecipeServer } = await import("./app.js");
  const server = createRecipeServer(config, { logger, catalogs });
  try {
    await server.start();
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
  return new Promise<number>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stopping) {
        server.logger.warn({ signal }, "second signal: exiting now");
        process.exit(1);
      }
      stopping = true;
      server.logger.info({ signal }, "shutting down");
      server.stop().then(
        () => resolve(0),
        (error: unknown) => {
          server.logger.error({ err: error }, "shutdown failed");
          resolve(1);
        },
      );
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}
