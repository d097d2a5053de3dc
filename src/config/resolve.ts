/**
 * Configuration is resolved exactly once, here: built-in defaults < config
 * file (`--config` / RECIPE_SERVER_CONFIG) < environment < command-line flags
 * (docs/configuration.md). The result is frozen and passed down; nothing deeper reads
 * process.env.
 */
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { ConfigFileError, readConfigFile, type FileValues } from "./file.js";
import { EndpointError, parseDccEndpoints, type EndpointEntry } from "./dcc-endpoints.js";
import { checkStoreUrl } from "../util/pg-url.js";
import { nearest } from "../util/edit-distance.js";
import { dccEnvName, resolveDataDir, resolveSkillRoots } from "../skills/roots.js";
import type { Config, ConfigInput, ConfigResult, DccConfig, EmbeddingsKind, Limits, LogFormat, LogLevel } from "./types.js";
import { DEFAULT_LIMITS, DEFAULT_PORT, OPTIONS } from "./options.js";

export type { Config, ConfigInput, ConfigResult, DccConfig, DccEndpointConfig, EmbeddingsKind, Limits, LogFormat, LogLevel } from "./types.js";

const LOG_LEVELS: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
const EMBEDDINGS: readonly EmbeddingsKind[] = ["local", "none", "openai"];
const LOG_FORMATS: readonly LogFormat[] = ["json", "pretty"];
const DCC_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

class UsageError extends Error {}

function integer(name: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw.trim())) throw new UsageError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new UsageError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function oneOf<T extends string>(name: string, raw: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  throw new UsageError(`${name} must be one of ${allowed.join(", ")}, got "${raw}"`);
}

function nonEmpty(name: string, raw: string | undefined): string | null {
  if (raw === undefined) return null;
  if (raw.trim() === "") throw new UsageError(`${name} must not be empty`);
  return raw;
}

/** Resolve argv + env into a frozen config, or a one-line usage error. */
export function resolveConfig(input: ConfigInput): ConfigResult {
  try {
    return resolveOrThrow(input);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigFileError || error instanceof EndpointError) return { kind: "error", message: error.message };
    if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS")) {
      if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return { kind: "error", message: unknownOptionMessage(error.message) };
      return { kind: "error", message: error.message.split("\n")[0] ?? String(error) };
    }
    throw error;
  }
}

function resolveOrThrow(input: ConfigInput): ConfigResult {
  const { env } = input;
  const homeDir = input.homeDir ?? os.homedir();
  const platform = input.platform ?? process.platform;
  const cwd = input.cwd ?? process.cwd();
  const { values, positionals } = parseArgs({
    // -V as in most CLIs; -v stays for the scripts that use it.
    args: input.argv.map((arg) => (arg === "-V" ? "--version" : arg)),
    options: OPTIONS,
    strict: true,
    allowPositionals: true,
  });
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}" (see --help)`);

  const configPath = nonEmpty("--config", values.config ?? env.RECIPE_SERVER_CONFIG);
  const file: FileValues =
    configPath === null ? {} : readConfigFile({ file: configPath, cwd, flags: OPTIONS, ...(input.readFile ? { read: input.readFile } : {}) });
  const str = (key: keyof typeof OPTIONS): string | undefined => {
    const value = file[key];
    return typeof value === "string" ? value : undefined;
  };
  const list = (key: keyof typeof OPTIONS): readonly string[] | undefined => {
    const value = file[key];
    return Array.isArray(value) ? (value as readonly string[]) : undefined;
  };
  const bool = (key: "insecure-no-auth" | "stateless" | "no-watch"): boolean => values[key] === true || file[key] === true;

  const dccNames = values.dcc ?? (env.RECIPE_SERVER_DCC !== undefined ? splitList(env.RECIPE_SERVER_DCC) : [...(list("dcc") ?? [])]);
  if (dccNames.length === 0) throw new UsageError("--dcc is required (or set RECIPE_SERVER_DCC)");
  const seen = new Set<string>();
  for (const raw of dccNames) {
    const name = raw.trim().toLowerCase();
    if (!DCC_NAME.test(name)) throw new UsageError(`--dcc "${raw}" is not a valid DCC name (letters, digits, - and _)`);
    if (seen.has(name)) throw new UsageError(`--dcc "${name}" given twice`);
    seen.add(name);
  }

  // Flags win over the environment, the environment over the file (whose entries alone may carry headers).
  const endpointEntries: { entries: readonly EndpointEntry[]; source: string } =
    values["dcc-endpoint"] !== undefined
      ? { entries: values["dcc-endpoint"], source: "--dcc-endpoint" }
      : env.RECIPE_SERVER_DCC_ENDPOINT !== undefined
        ? { entries: splitList(env.RECIPE_SERVER_DCC_ENDPOINT), source: "RECIPE_SERVER_DCC_ENDPOINT" }
        : { entries: (file["dcc-endpoint"] as readonly EndpointEntry[] | undefined) ?? [], source: "config file dcc-endpoint" };
  const dccEndpoints = parseDccEndpoints(endpointEntries.entries, [...seen], endpointEntries.source);

  const portRaw = values.port ?? env.RECIPE_SERVER_PORT ?? str("port");
  const port = portRaw === undefined ? DEFAULT_PORT : integer("--port", portRaw, 0, 65535);
  const host = nonEmpty("--host", values.host ?? env.RECIPE_SERVER_HOST ?? str("host")) ?? "127.0.0.1";
  const token = nonEmpty("--token", values.token ?? env.RECIPE_SERVER_TOKEN ?? str("token"));
  const usersFileRaw = nonEmpty("--users-file", values["users-file"] ?? env.RECIPE_SERVER_USERS_FILE ?? str("users-file"));
  const usersFile = usersFileRaw === null ? null : path.resolve(cwd, usersFileRaw);
  const insecureNoAuth = bool("insecure-no-auth");
  if (!isLoopbackHost(host) && token === null && usersFile === null && !insecureNoAuth) {
    throw new UsageError(
      `refusing to listen on non-loopback host ${host} without a token: set --token or RECIPE_SERVER_TOKEN (or pass --insecure-no-auth)`,
    );
  }
  // LOG_LEVEL: the name before the RECIPE_SERVER_ prefix, still read when the prefixed one is unset.
  const logLevel = oneOf("--log-level", values["log-level"] ?? env.RECIPE_SERVER_LOG_LEVEL ?? env.LOG_LEVEL ?? str("log-level") ?? "info", LOG_LEVELS);
  const logFormat = oneOf(
    "--log-format",
    values["log-format"] ?? env.RECIPE_SERVER_LOG_FORMAT ?? str("log-format") ?? (input.stderrIsTTY === true ? "pretty" : "json"),
    LOG_FORMATS,
  );
  const embeddingsKind = oneOf("--embeddings", values.embeddings ?? str("embeddings") ?? "local", EMBEDDINGS);
  const embeddingsUrl = nonEmpty("--embeddings-url", values["embeddings-url"] ?? str("embeddings-url"));
  if (embeddingsKind === "openai" && embeddingsUrl === null) {
    throw new UsageError("--embeddings openai needs --embeddings-url (an OpenAI-compatible base URL)");
  }
  if (embeddingsUrl !== null && !/^https?:\/\/[^\s]+$/.test(embeddingsUrl)) {
    throw new UsageError(`--embeddings-url must be an http(s) URL, got "${embeddingsUrl}"`);
  }

  const allowedOrigins = (values["allowed-origin"] ?? list("allowed-origin") ?? []).map((origin) => {
    const trimmed = origin.trim();
    if (trimmed === "") throw new UsageError("--allowed-origin must not be empty");
    return trimmed;
  });

  const dataDir = resolveDataDir(env, homeDir, platform);
  const privateDirFlag = nonEmpty("--private-dir", values["private-dir"] ?? env.RECIPE_SERVER_PRIVATE_DIR ?? str("private-dir"));
  const storeUrl = nonEmpty("--store", values.store ?? env.RECIPE_SERVER_STORE_URL ?? str("store"));
  if (storeUrl !== null) {
    const checked = checkStoreUrl(storeUrl);
    if (!checked.ok) throw new UsageError(checked.message);
  }
  const extraPaths = (values["skills-path"] ?? list("skills-path") ?? []).map((p) => {
    if (p.trim() === "") throw new UsageError("--skills-path must not be empty");
    return path.resolve(cwd, p);
  });

  const dccs: DccConfig[] = [...seen].map((name) => {
    const skillRoots = resolveSkillRoots({ dcc: name, extraPaths, env, homeDir, platform });
    const defaultsOnly = new Set(
      resolveSkillRoots({ dcc: name, extraPaths: [], env: { ...env, [dccEnvName(name)]: undefined, DCC_MCP_SKILL_PATHS: undefined }, homeDir, platform }),
    );
    const named = new Set([
      ...resolveSkillRoots({ dcc: name, extraPaths, env: { ...env, DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" }, homeDir, platform }),
    ]);
    return Object.freeze({
      name,
      skillRoots: Object.freeze(skillRoots),
      builtInRoots: Object.freeze(skillRoots.filter((root) => defaultsOnly.has(root) && !named.has(root))),
      privateDir:
        privateDirFlag !== null
          ? path.resolve(cwd, privateDirFlag)
          : path.join(dataDir, "recipe-server", name, "private"),
      stateDir: path.join(dataDir, "recipe-server", name),
      storeUrl,
    });
  });

  const limits: Limits = Object.freeze({
    bodyLimitBytes: optionalInt("--body-limit", values["body-limit"] ?? str("body-limit"), 1024, 64 * 1024 * 1024, DEFAULT_LIMITS.bodyLimitBytes),
    maxSessions: optionalInt("--max-sessions", values["max-sessions"] ?? str("max-sessions"), 1, 100_000, DEFAULT_LIMITS.maxSessions),
    sessionIdleMs: optionalInt("--session-idle-ms", values["session-idle-ms"] ?? str("session-idle-ms"), 1000, 7 * 86_400_000, DEFAULT_LIMITS.sessionIdleMs),
    maxBatch: optionalInt("--max-batch", values["max-batch"] ?? str("max-batch"), 1, 1000, DEFAULT_LIMITS.maxBatch),
    maxToolArgumentBytes: optionalInt("--max-tool-argument-bytes", values["max-tool-argument-bytes"] ?? str("max-tool-argument-bytes"), 1024, 64 * 1024 * 1024, DEFAULT_LIMITS.maxToolArgumentBytes),
    maxConcurrentPerSession: optionalInt("--max-concurrent-per-session", values["max-concurrent-per-session"] ?? str("max-concurrent-per-session"), 1, 10_000, DEFAULT_LIMITS.maxConcurrentPerSession),
    requestTimeoutMs: optionalInt("--request-timeout-ms", values["request-timeout-ms"] ?? str("request-timeout-ms"), 100, 3_600_000, DEFAULT_LIMITS.requestTimeoutMs),
    maxConnections: optionalInt("--max-connections", values["max-connections"] ?? str("max-connections"), 1, 1_000_000, DEFAULT_LIMITS.maxConnections),
    historyLimit: optionalInt("--history-limit", values["history-limit"] ?? str("history-limit"), 2, 100_000, DEFAULT_LIMITS.historyLimit),
  });

  const config: Config = Object.freeze({
    dccs: Object.freeze(dccs),
    dccEndpoints,
    host,
    port,
    token,
    usersFile,
    allowedOrigins: Object.freeze(allowedOrigins),
    insecureNoAuth,
    stateless: bool("stateless"),
    watch: !bool("no-watch"),
    allowPromote: values["allow-promote"] === true || envSwitch("RECIPE_SERVER_ALLOW_PROMOTE", env.RECIPE_SERVER_ALLOW_PROMOTE) || (env.RECIPE_SERVER_ALLOW_PROMOTE === undefined && file["allow-promote"] === true),
    watchPollMs: watchPollOf(values.watch ?? str("watch"), bool("no-watch")),
    embeddings: Object.freeze({
      kind: embeddingsKind,
      url: embeddingsUrl,
      model: nonEmpty("--embeddings-model", values["embeddings-model"] ?? str("embeddings-model")),
      apiKey: nonEmpty("RECIPE_SERVER_EMBEDDINGS_KEY", env.RECIPE_SERVER_EMBEDDINGS_KEY),
    }),
    logLevel,
    logFormat,
    configFile: configPath === null ? null : path.resolve(cwd, configPath),
    limits,
  });
  return { kind: "serve", config };
}

/**
 * parseArgs' unknown-option message ("Unknown option '--prot'. To specify a
 * positional argument …") as one line naming the closest known flag.
 */
function unknownOptionMessage(raw: string): string {
  const given = /Unknown option '([^']*)'/.exec(raw)?.[1] ?? raw.split("\n")[0] ?? raw;
  const name = given.replace(/^-+/, "").split("=")[0] ?? "";
  const known = Object.keys(OPTIONS);
  // No flag is longer than 30 characters: a longer word gets no suggestion, and is shown cut.
  const close = name.length > 1 && name.length <= 64 ? nearest(name, known, Math.max(2, Math.floor(name.length / 3))) : undefined;
  const hint = close !== undefined ? `; did you mean --${close.match}?` : "";
  const shown = given.length > 64 ? `${given.slice(0, 64)}…` : given;
  return `unknown option ${JSON.stringify(shown)}${hint} (see --help)`;
}

/** Default poll interval of `--watch poll`. */
const WATCH_POLL_DEFAULT_MS = 1000;

function watchPollOf(raw: string | undefined, noWatch: boolean): number | null {
  if (raw === undefined || raw === "events") return null;
  if (noWatch) throw new UsageError("--watch and --no-watch contradict each other");
  const match = /^poll(?::(.*))?$/.exec(raw);
  if (match === null) throw new UsageError(`--watch must be events, poll or poll:MS, not ${JSON.stringify(raw)}`);
  return optionalInt("--watch poll:MS", match[1], 100, 60_000, WATCH_POLL_DEFAULT_MS);
}

/** An on/off environment variable: 1/true/yes or 0/false/no (any case); unset is off. */
function envSwitch(name: string, raw: string | undefined): boolean {
  if (raw === undefined) return false;
  const value = raw.trim().toLowerCase();
  if (value === "1" || value === "true" || value === "yes") return true;
  if (value === "0" || value === "false" || value === "no" || value === "") return false;
  throw new UsageError(`${name} must be 1, true, yes, 0, false or no, got ${JSON.stringify(raw.length > 32 ? `${raw.slice(0, 32)}…` : raw)}`);
}

function optionalInt(name: string, raw: string | undefined, min: number, max: number, fallback: number): number {
  return raw === undefined ? fallback : integer(name, raw, min, max);
}

function splitList(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return raw.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/** True for addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
