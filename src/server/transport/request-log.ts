/**
 * The logger fastify hands each request (`request.log`), made on first use:
 * fastify makes a child logger per request for its request id, and most
 * requests (a tools/call answered: its line comes from the tool layer) never
 * write through theirs, so the pino child (its bindings serialized) is made
 * only when a line at an enabled level is written.
 */
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, Logger } from "pino";
import type { FastifyBaseLogger, FastifyServerOptions } from "fastify";

type ChildLoggerFactory = NonNullable<FastifyServerOptions["childLoggerFactory"]>;

type Level = "fatal" | "error" | "warn" | "info" | "debug" | "trace";
// pino's LogFn overloads: the arguments are handed on as they came.
type LogArgs = Parameters<Logger["info"]>;

export class LazyRequestLogger implements FastifyBaseLogger {
  private made: Logger | null = null;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): Logger {
    if (this.made === null) this.made = this.parent.child(this.bindings, this.options);
    return this.made;
  }

  private write(level: Level, args: LogArgs): void {
    if (this.made === null && !this.parent.isLevelEnabled(level)) return;
    (this.logger[level] as (...a: LogArgs) => void)(...args);
  }

  get level(): LevelWithSilentOrString {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.logger.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (this.made ?? this.parent).isLevelEnabled(level);
  }

  // Prototype methods, not per-instance arrow functions: one object per request is the whole cost.
  fatal(...args: LogArgs): void {
    this.write("fatal", args);
  }
  error(...args: LogArgs): void {
    this.write("error", args);
  }
  warn(...args: LogArgs): void {
    this.write("warn", args);
  }
  info(...args: LogArgs): void {
    this.write("info", args);
  }
  debug(...args: LogArgs): void {
    this.write("debug", args);
  }
  trace(...args: LogArgs): void {
    this.write("trace", args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options) as FastifyBaseLogger;
  }
}

/**
 * fastify's childLoggerFactory: a lazy child, unless the route sets its own
 * level or serializers (none of ours does), which pino must apply at once.
 */
export const lazyChildLoggers: ChildLoggerFactory = function (logger, bindings, options) {
  const parent = logger as unknown as Logger;
  if (options.level !== undefined || options.serializers !== undefined) return parent.child(bindings, options) as FastifyBaseLogger;
  return new LazyRequestLogger(parent, bindings, options);
};
