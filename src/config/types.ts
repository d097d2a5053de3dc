/** The resolved configuration (config/resolve.ts resolves it, once) and what resolving takes. */

/** The limits the HTTP transport enforces (a part of Limits). */
export interface HttpLimits {
  readonly bodyLimitBytes: number;
  readonly maxSessions: number;
  readonly sessionIdleMs: number;
  readonly maxBatch: number;
  readonly maxConcurrentPerSession: number;
  readonly requestTimeoutMs: number;
  /** Open TCP connections at once; past it a new one is answered 503 and closed. */
  readonly maxConnections: number;
  /** The JSON size (UTF-8 bytes) of one tool call's arguments, checked at the HTTP edge with their depth. */
  readonly maxToolArgumentBytes: number;
}

export type EmbeddingsKind = "local" | "none" | "openai";
export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
export type LogFormat = "json" | "pretty";

export interface DccConfig {
  readonly name: string;
  /** Skill roots in priority order (absolute). */
  readonly skillRoots: readonly string[];
  /** Those of `skillRoots` that only the built-in defaults name (a missing one is normal, not a mistake). */
  readonly builtInRoots: readonly string[];
  readonly privateDir: string;
  /** `<data dir>/recipe-server/<dcc>`: vectors, usage counts. */
  readonly stateDir: string;
  /** postgres://… keeps playbooks and usage counts in PostgreSQL; null: files. Holds the password: never log it. */
  readonly storeUrl: string | null;
}

/** `--dcc-endpoint`: the MCP server of a DCC's adapter that `recipes__run` drives. */
export interface DccEndpointConfig {
  readonly dcc: string;
  readonly url: string;
  /** From the config file only; may hold a bearer token: never log, echo or count it. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The HTTP layer's limits, and the tool-argument bound the argument guard applies. */
export interface Limits extends HttpLimits {
  /** Revisions of each private playbook the store keeps (its history). */
  readonly historyLimit: number;
}

export interface Config {
  readonly dccs: readonly DccConfig[];
  /** At most one per DCC, each naming one of `dccs`; empty: no DCC can run recipes. */
  readonly dccEndpoints: readonly DccEndpointConfig[];
  readonly host: string;
  readonly port: number;
  readonly token: string | null;
  /** `--users-file`: bearer token hashes to user ids; null = one user. */
  readonly usersFile: string | null;
  readonly allowedOrigins: readonly string[];
  readonly insecureNoAuth: boolean;
  readonly stateless: boolean;
  readonly watch: boolean;
  /** `--allow-promote`: the `recipe` tool offers action=promote (a playbook written into a writable skill root). */
  readonly allowPromote: boolean;
  /** `--watch poll[:ms]`: the skills watcher polls every this many ms (NFS, container volumes); null = file system events. */
  readonly watchPollMs: number | null;
  readonly embeddings: {
    readonly kind: EmbeddingsKind;
    readonly url: string | null;
    readonly model: string | null;
    readonly apiKey: string | null;
  };
  readonly logLevel: LogLevel;
  /** json: one pino line per event on stdout; pretty: human-readable lines on stderr. */
  readonly logFormat: LogFormat;
  /** The config file the values came from (absolute), or null. */
  readonly configFile: string | null;
  readonly limits: Limits;
}

export type ConfigResult =
  | { readonly kind: "serve"; readonly config: Config }
  | { readonly kind: "help" }
  | { readonly kind: "version" }
  | { readonly kind: "error"; readonly message: string };

export interface ConfigInput {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homeDir?: string;
  readonly platform?: NodeJS.Platform;
  readonly cwd?: string;
  /** Whether stderr is a terminal: picks the default --log-format. */
  readonly stderrIsTTY?: boolean;
  /** Reads a config file (tests inject; default: the file system, size-bounded). */
  readonly readFile?: (file: string) => string;
}
