/**
 * The command line's option table, its built-in defaults and its help text:
 * src/config/resolve.ts resolves them against the config file and the environment.
 */
import type { Limits } from "./types.js";

export const DEFAULT_PORT = 8765;
export const DEFAULT_LIMITS: Limits = Object.freeze({
  bodyLimitBytes: 4 * 1024 * 1024,
  maxSessions: 256,
  sessionIdleMs: 30 * 60_000,
  maxBatch: 32,
  maxToolArgumentBytes: 1024 * 1024,
  maxConcurrentPerSession: 16,
  requestTimeoutMs: 60_000,
  maxConnections: 1024,
  historyLimit: 50,
});

export const OPTIONS = {
  dcc: { type: "string", multiple: true },
  "dcc-endpoint": { type: "string", multiple: true },
  port: { type: "string" },
  host: { type: "string" },
  "skills-path": { type: "string", multiple: true },
  "private-dir": { type: "string" },
  store: { type: "string" },
  token: { type: "string" },
  "users-file": { type: "string" },
  "allowed-origin": { type: "string", multiple: true },
  "insecure-no-auth": { type: "boolean" },
  stateless: { type: "boolean" },
  "no-watch": { type: "boolean" },
  "allow-promote": { type: "boolean" },
  watch: { type: "string" },
  embeddings: { type: "string" },
  "embeddings-url": { type: "string" },
  "embeddings-model": { type: "string" },
  "log-level": { type: "string" },
  "log-format": { type: "string" },
  config: { type: "string" },
  "body-limit": { type: "string" },
  "max-sessions": { type: "string" },
  "max-connections": { type: "string" },
  "session-idle-ms": { type: "string" },
  "max-batch": { type: "string" },
  "max-tool-argument-bytes": { type: "string" },
  "max-concurrent-per-session": { type: "string" },
  "request-timeout-ms": { type: "string" },
  "history-limit": { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

export const HELP_TEXT = `recipe-server — serves DCC recipes to AI agents over MCP streamable HTTP

Usage:
  recipe-server --dcc NAME [--dcc NAME]... [options]
  recipe-server paths --dcc NAME [--skills-path DIR]... [--config FILE] [--format text|json]
  recipe-server promote private/<slug> --to SKILL_DIR [--revision N] [--dcc NAME] [options]
  recipe-server lint [PATH ...] [--dcc NAME] [--format text|json|github] [--max-warnings N]
  recipe-server --help | --version

Options (precedence: defaults < config file < environment < flags):
  --config FILE            YAML or JSON file of flag values (keys: flag names)  [RECIPE_SERVER_CONFIG]
  --dcc NAME               DCC served (repeatable; first at /mcp, each at /mcp/<dcc>)  [RECIPE_SERVER_DCC]
  --dcc-endpoint NAME=URL  the MCP server of DCC NAME's adapter: recipes__run runs recipes
                           there (repeatable; headers such as a token: config file only)
                                                              [RECIPE_SERVER_DCC_ENDPOINT]
  --port N                 port, 0 = any free port (default 8765)                   [RECIPE_SERVER_PORT]
  --host H                 bind address (default 127.0.0.1)                          [RECIPE_SERVER_HOST]
  --skills-path DIR        extra skill root, searched first (repeatable)
  --private-dir DIR        private playbooks dir                               [RECIPE_SERVER_PRIVATE_DIR]
                           (default <data dir>/recipe-server/<dcc>/private)
  --store URL              postgres://user:pass@host/db: playbooks and usage in PostgreSQL  [RECIPE_SERVER_STORE_URL]
  --token T                bearer token required on every request but /healthz      [RECIPE_SERVER_TOKEN]
  --allowed-origin O       extra allowed Origin/Host (repeatable; loopback always allowed)
  --users-file FILE        bearer token SHA-256 hashes -> user ids; each user's playbooks their own  [RECIPE_SERVER_USERS_FILE]
  --insecure-no-auth       allow a non-loopback --host without --token
  --stateless              no MCP sessions: every POST stands alone
  --no-watch               do not hot-reload skill files
  --allow-promote          the \`recipe\` tool's action=promote may write a caller's private
                           playbook into a writable skill root (off by default)
                                                            [RECIPE_SERVER_ALLOW_PROMOTE]
  --watch poll[:MS]        poll for changes every MS ms (default 1000; NFS, container volumes)
  --embeddings KIND        local | none | openai (default local)
  --embeddings-url URL     OpenAI-compatible base URL (with --embeddings openai)
  --embeddings-model M     model name for the openai provider   [key: RECIPE_SERVER_EMBEDDINGS_KEY]
  --log-level L            fatal|error|warn|info|debug|trace|silent (default info)
                                         [RECIPE_SERVER_LOG_LEVEL, or LOG_LEVEL]
  --log-format F           pretty (on stderr) | json (on stdout); default pretty when
                           stderr is a terminal, json otherwise        [RECIPE_SERVER_LOG_FORMAT]
  --body-limit BYTES       max HTTP body (default ${DEFAULT_LIMITS.bodyLimitBytes})
  --max-sessions N         max live MCP sessions (default ${DEFAULT_LIMITS.maxSessions})
  --session-idle-ms MS     idle session expiry (default ${DEFAULT_LIMITS.sessionIdleMs})
  --max-batch N            max JSON-RPC batch size (default ${DEFAULT_LIMITS.maxBatch})
  --max-tool-argument-bytes BYTES   max JSON size of one tool call's arguments (default ${DEFAULT_LIMITS.maxToolArgumentBytes})
  --max-concurrent-per-session N    concurrent requests per session (default ${DEFAULT_LIMITS.maxConcurrentPerSession})
  --request-timeout-ms MS  per-request timeout; also how long a connection may stay
                           silent or half-sent (default ${DEFAULT_LIMITS.requestTimeoutMs})
  --max-connections N      open connections at once; past it 503 (default ${DEFAULT_LIMITS.maxConnections})
  --history-limit N        revisions kept per private playbook (default ${DEFAULT_LIMITS.historyLimit})
  -h, --help               this text
  -V, -v, --version        print the version

Skill roots per DCC, in priority order: --skills-path; DCC_MCP_<DCC>_SKILL_PATHS;
DCC_MCP_SKILL_PATHS; ~/.dcc-mcp/<dcc>/skills, <data dir>/dcc-mcp/skills/<dcc>,
<data dir>/dcc-mcp/skills (unless DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS=1).
`;
