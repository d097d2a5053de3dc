#!/usr/bin/env node
/**
 * `recipe-server` entry point: resolve config once, serve until a signal;
 * `recipe-server lint …` runs the pack author's check instead.
 *
 * Kept small, and bundled apart from the server (scripts/bundle.mjs): help,
 * version and usage errors answer without loading the server's modules, and
 * a first start's parse worker starts before they load (see below).
 *
 * V8's default heap settings: since YAML entries are held as bytes rather
 * than object graphs, a larger young generation (once 64 MB semi-spaces) no
 * longer speeds a 20,000-recipe start and only cost RSS (bench:server: ready
 * 4.0 s / 217 MB with defaults against 4.4 s / 308 MB).
 * Usage errors: one line on stderr, exit 2. Port in use: one line, exit 1.
 */
import { existsSync } from "node:fs";
import { HELP_TEXT, resolveConfig, type Config } from "./config.js";
import { parseWorkerCount, startParseWorkers } from "./recipes/parse-threads.js";
import { stateFiles } from "./recipes/state-files.js";
import { packageVersion } from "./version.js";

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
  const parseWorkers = firstLoadParses(config) ? startParseWorkers(parseWorkerCount()) : undefined;
  const { serve } = await import("./serve.js");
  return serve(config, parseWorkers !== undefined ? { parseWorkers } : {});
}

/**
 * A DCC with no parse cache yet parses every pack of its first load, on
 * parse workers (reload.ts): started here, their start-up (~100–200 ms on 2
 * cores, most of it loading the worker's module) overlaps the loading of the
 * server's modules instead of following the load's directory listing. Not
 * started on a restart, whose packs come from the cache: a worker nobody
 * takes is stopped once the first load is done.
 */
function firstLoadParses(config: Config): boolean {
  return config.dccs.some((dcc) => !existsSync(stateFiles(dcc.stateDir).parseCache));
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
