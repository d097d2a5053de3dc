/**
 * The daemon's logger in the format the config chose. json: pino lines on
 * stdout, written in batches, with level labels; pretty: pino-pretty's lines
 * on stderr, for a person, through the terminal's status line when there is
 * one (status-line.ts).
 */
import { createRequire } from "node:module";
import { pino, type Logger } from "pino";
import type { Config } from "../config/resolve.js";
import type { StatusLine } from "./status-line.js";

/** Log bytes held before a write, and the longest a line waits. */
const LOG_BATCH_BYTES = 4096;
const LOG_FLUSH_MS = 200;

/**
 * Keys whose structured data serve JSON consumers; the pretty lines carry
 * the same facts in their message.
 */
const PRETTY_HIDDEN_KEYS = ["pid", "hostname", "banner", "progress", "summary"] as const;

/**
 * Info lines whose facts the start-up banner and the per-DCC "ready" lines
 * already give a person (URLs, per-DCC counts): the pretty format leaves
 * them out, the JSON format keeps them for machines.
 */
const PRETTY_REPEATS = [/^catalog loaded$/, /^serving MCP at /, /^Server listening at /];
const INFO = 30;

interface DaemonLoggerOptions {
  /** Where pretty lines go; default stderr. */
  readonly out?: { write(text: string): unknown };
  /** The terminal's status line, which pretty lines are printed above. */
  readonly statusLine?: StatusLine | null;
}

export function createDaemonLogger(config: Pick<Config, "logLevel" | "logFormat">, options: DaemonLoggerOptions = {}): Logger {
  if (config.logFormat === "pretty") {
    // Required at run time rather than imported: the server bundle
    // (scripts/bundle.mjs) then stays as it was for the JSON format, which
    // every non-terminal start (containers, services, tests) uses.
    const load = createRequire(import.meta.url);
    const pretty = load("pino-pretty") as typeof import("pino-pretty");
    const format = pretty.prettyFactory({ singleLine: true, translateTime: "SYS:HH:MM:ss", ignore: PRETTY_HIDDEN_KEYS.join(",") });
    const out = options.out ?? process.stderr;
    const statusLine = options.statusLine ?? null;
    // Synchronous, one line at a time: a person reads these as they happen.
    const destination = {
      write(line: string): void {
        const entry = JSON.parse(line) as { level?: unknown; msg?: unknown };
        if (entry.level === INFO && typeof entry.msg === "string" && PRETTY_REPEATS.some((r) => r.test(entry.msg as string))) return;
        const text = format(entry);
        if (statusLine !== null) statusLine.print(text);
        else out.write(text);
      },
    };
    return pino({ level: config.logLevel }, destination);
  }
  // Log lines (two per tool call at info) are written in batches, at most
  // LOG_FLUSH_MS late, instead of one blocking write each: the writes cost
  // ~0.2 ms of every call under load (profiled at one client). pino writes
  // what is still buffered when the process exits, by any path.
  // Level labels ("info", "warn") rather than pino's numbers: log shippers and
  // people filter on the word; every line still carries the same fields.
  return pino(
    { level: config.logLevel, formatters: { level: (label) => ({ level: label }) } },
    pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS }),
  );
}

/** Longest a shutdown waits for its last log lines. */
const FINAL_FLUSH_MS = 1000;

/**
 * Writes what the logger still holds, asynchronously, before the process
 * exits. Regression: when stdout's reader is gone (`recipe-server | head`)
 * and lines are still buffered, pino's synchronous flush at exit retried the
 * EPIPE write forever (sonic-boom 4.2 sleeps and retries any error in
 * flushSync) and SIGTERM never ended the process. An asynchronous write
 * reports EPIPE instead, and pino then drops the stream's later writes.
 */
export function flushLogs(logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, FINAL_FLUSH_MS);
    timer.unref();
    try {
      logger.flush(() => {
        clearTimeout(timer);
        resolve();
      });
    } catch {
      clearTimeout(timer);
      resolve();
    }
  });
}
