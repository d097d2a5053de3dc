#!/usr/bin/env node
/**
 * `recipe-server` entry point: resolve config once, serve until a signal;
 * `recipe-server lint …` runs the pack author's check instead.
 *
 * V8's default heap settings: since YAML entries are held as bytes rather
 * than object graphs, a larger young generation (once 64 MB semi-spaces) no
 * longer speeds a 20,000-recipe start and only cost RSS (bench:server: ready
 * 4.0 s / 217 MB with defaults against 4.4 s / 308 MB).
 * Usage errors: one line on stderr, exit 2. Port in use: one line, exit 1.
 */
import type { Logger } from "pino";
import { HELP_TEXT, resolveConfig, type Config } from "./config.js";
import { packageVersion } from "./version.js";

/** Log bytes held before a write, and the longest a line waits. */
const LOG_BATCH_BYTES = 4096;
const LOG_FLUSH_MS = 200;

async function main(argv: readonly string[]): Promise<number> {
  if (argv[0] === "lint") {
    // Loaded on demand: the serve path never pays for the linter's modules.
    const { runLint } = await import("./lint/command.js");
    return runLint(argv.slice(1), {
      stdout: process.stdout,
      stderr: process.stderr,
      env: process.env,
      cwd: process.cwd(),
      isTTY: process.stdout.isTTY === true,
    });
  }
  const resolved = resolveConfig({ argv, env: process.env });
  switch (resolved.kind) {
    case "help":
      process.stdout.write(HELP_TEXT);
      return 0;
    case "version":
      process.stdout.write(`${packageVersion()}\n`);
      return 0;
    case "error":
      process.stderr.write(`recipe-server: ${resolved.message}\n`);
      return 2;
    case "serve":
      break;
  }
  const { config } = resolved;
  const { pino } = await import("pino");
  // Log lines (two per tool call at info) are written in batches, at most
  // LOG_FLUSH_MS late, instead of one blocking write each: the writes cost
  // ~0.2 ms of every call under load (profiled at one client). pino writes
  // what is still buffered when the process exits, by any path.
  const logger = pino({ level: config.logLevel }, pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS }));
  return serve(config, logger);
}

/** Longest the server stack's import waits for the first load to get under way. */
const UNDERWAY_WAIT_MS = 100;

async function serve(config: Config, logger: Logger): Promise<number> {
  const { openCatalogs } = await import("./catalogs.js");
  // The catalogs start loading before the server stack is imported, so the
  // load overlaps that import; start() listens, then awaits (and logs the
  // failure of) this same load. On a cold start the import waits until the
  // load's parse workers are starting (a few ms of directory listing): it is
  // CPU work on this thread, and the workers' own start-up and SKILL.md reads
  // overlap it. Never for long: a stalled skill root must not keep the
  // server from listening (and answering /healthz).
  const catalogs = openCatalogs(config, logger);
  catalogs.load().catch(() => undefined);
  await Promise.race([catalogs.underway(), new Promise((resolve) => setTimeout(resolve, UNDERWAY_WAIT_MS).unref())]);
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

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Pending timers (sweepers, debouncers) must not keep a stopped daemon alive.
    if (code !== undefined) setTimeout(() => process.exit(code), 50).unref();
  },
  (error: unknown) => {
    process.stderr.write(`recipe-server: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    process.exit(1);
  },
);
