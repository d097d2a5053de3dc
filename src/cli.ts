#!/usr/bin/env node
/**
 * `recipe-server` entry point: resolve config once, serve until a signal;
 * `recipe-server lint …` runs the pack author's check instead, `paths` and
 * `promote` the TD's (each loaded only when asked for).
 *
 * Kept small, and bundled apart from the server (scripts/bundle.mjs): help,
 * version and usage errors answer without loading the server's modules.
 *
 * V8's default heap settings: since YAML entries are held as bytes rather
 * than object graphs, a larger young generation (once 64 MB semi-spaces) no
 * longer speeds a 20,000-recipe start and only cost RSS (bench:server: ready
 * 4.0 s / 217 MB with defaults against 4.4 s / 308 MB).
 * Usage errors: one line on stderr, exit 2 (port in use: serve.ts).
 */
import { resolveConfig } from "./config/resolve.js";
import { HELP_TEXT } from "./config/options.js";
import { packageVersion } from "./util/version.js";

async function main(argv: readonly string[]): Promise<number> {
  const io = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
  if (argv[0] === "lint") {
    // Loaded on demand: the serve path never pays for the linter's modules.
    const { runLint } = await import("./lint/command.js");
    return runLint(argv.slice(1), { ...io, isTTY: process.stdout.isTTY === true });
  }
  if (argv[0] === "paths") {
    const { runPaths } = await import("./cli/serve.js");
    return runPaths(argv.slice(1), io);
  }
  if (argv[0] === "promote") {
    // Through the server bundle, as paths: the command line bundle stays small (scripts/bundle.mjs).
    const { runPromote } = await import("./cli/serve.js");
    return runPromote(argv.slice(1), io);
  }
  const resolved = resolveConfig({ argv, env: process.env, stderrIsTTY: process.stderr.isTTY === true });
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
  const { serve } = await import("./cli/serve.js");
  return serve(config);
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
