/**
 * Shared end-to-end harness: a real daemon on 127.0.0.1:0 with temp skill and
 * private dirs, driven by the SDK's real Client over streamable HTTP.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pino, { type Logger } from "pino";
import { createRecipeServer, type RecipeServer } from "../../src/compose/app.js";
import { resolveConfig } from "../../src/config/resolve.js";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export { REAL_SKILLS, SHARED_DIR } from "../helpers/shared.js";
export const EXAMPLE_SKILLS = path.join(REPO_ROOT, "skills-example");

export interface RunningServer {
  readonly server: RecipeServer;
  readonly url: string;
  readonly port: number;
  readonly tmp: string;
  readonly skillsDir: string;
  readonly privateDir: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Extra CLI flags (e.g. ["--stateless"], ["--dcc", "houdini"]). */
  readonly args?: readonly string[];
  /** Skill roots; default: a fresh empty temp dir (returned as skillsDir). */
  readonly skillsPaths?: readonly string[];
  readonly dccs?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Watch the skill roots and private dirs as the daemon does by default (default false: --no-watch). */
  readonly watch?: boolean;
  /** Wait for the catalogs to load (default true). */
  readonly waitReady?: boolean;
  /** The daemon's logger (default: silent), for tests that read its log lines. */
  readonly logger?: Logger;
}

export async function makeTempDir(prefix = "recipe-server-"): Promise<string> {
  return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
}

/**
 * A daemon in this process with its private, data and home dirs in `tmp`
 * and these flags after the test defaults (a flag given again wins): on a
 * loopback port, no embeddings, no default skill roots. Ready, and (when the
 * flags leave watching on) its watchers seeing changes, unless `waitReady`
 * is false.
 */
export async function startDaemonIn(
  tmp: string,
  flags: readonly string[],
  options: { readonly env?: Readonly<Record<string, string>>; readonly waitReady?: boolean; readonly logger?: Logger } = {},
): Promise<{ server: RecipeServer; url: string; port: number }> {
  const resolved = resolveConfig({
    argv: ["--port", "0", "--embeddings", "none", "--private-dir", path.join(tmp, "private"), ...flags],
    env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1", XDG_DATA_HOME: path.join(tmp, "data"), ...options.env },
    homeDir: tmp,
  });
  if (resolved.kind !== "serve") throw new Error(`bad test config: ${JSON.stringify(resolved)}`);
  const server = createRecipeServer(resolved.config, { logger: options.logger ?? pino({ level: "silent" }) });
  const { port, url } = await server.start();
  if (options.waitReady !== false) {
    await server.ready();
    if (resolved.config.watch) await Promise.all([...server.libraries.values()].map((l) => l.watch()));
  }
  return { server, url, port };
}

export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const tmp = await makeTempDir();
  const skillsDir = path.join(tmp, "skills");
  await fs.mkdir(skillsDir, { recursive: true });
  const roots = options.skillsPaths ?? [skillsDir];
  const { server, url, port } = await startDaemonIn(
    tmp,
    [
      ...(options.dccs ?? ["maya"]).flatMap((d) => ["--dcc", d]),
      ...(options.watch === true ? [] : ["--no-watch"]),
      ...roots.flatMap((r) => ["--skills-path", r]),
      ...(options.args ?? []),
    ],
    { ...(options.env ? { env: options.env } : {}), ...(options.waitReady === false ? { waitReady: false } : {}), ...(options.logger ? { logger: options.logger } : {}) },
  );
  return {
    server,
    url,
    port,
    tmp,
    skillsDir,
    privateDir: path.join(tmp, "private"),
    async stop() {
      await server.stop();
      await fs.rm(tmp, { recursive: true, force: true });
    },
  };
}

export async function connect(
  url: string,
  endpoint = "/mcp",
  headers: Record<string, string> = {},
): Promise<Client> {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}${endpoint}`), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

export interface ToolAnswer {
  readonly success: boolean;
  readonly message: string;
  readonly error?: string;
  readonly context?: any; // eslint-style escape: tests read deep, loosely-typed payloads
  readonly revision?: number;
  readonly isError: boolean;
  readonly raw: unknown;
}

/** Calls a tool and parses the envelope from content[0].text (whole result expected). */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const result = (await client.callTool({ name, arguments: args })) as {
    content: Array<{ type: string; text: string }>;
    isError?: boolean;
    structuredContent?: unknown;
  };
  const text = result.content[0]?.text ?? "";
  const parsed = JSON.parse(text) as Omit<ToolAnswer, "isError" | "raw">;
  return { ...parsed, isError: result.isError === true, raw: result };
}

/** Writes files under `root`: { "a/SKILL.md": "..." }. */
export async function writeTree(root: string, files: Readonly<Record<string, string | Buffer>>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const target = path.join(root, relative);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(target, content);
  }
}

export function skillMd(name: string, dcc: string, recipes: string | string[], extra = ""): string {
  const list = Array.isArray(recipes) ? `[${recipes.map((r) => JSON.stringify(r)).join(", ")}]` : JSON.stringify(recipes);
  return `---\nname: ${name}\ndescription: ${name} test skill\nmetadata:\n  dcc-mcp:\n    dcc: ${dcc}\n    recipes: ${list}\n${extra}---\n# ${name}\n`;
}

export { until } from "../helpers/until.js";

/** A `recipe` action=create call of a lookdev playbook (the promotion tests promote it). */
export const EXPOSURE_PLAYBOOK: Readonly<Record<string, unknown>> = Object.freeze({
  action: "create",
  title: "Calibrate hero shader exposure",
  summary: "Match the hero shader exposure to the studio grey card before lookdev sign-off.",
  whenToUse: "Before any lookdev review of a hero asset.",
  steps: [
    { title: "Load grey card", detail: "Reference the studio grey card rig." },
    { title: "Match exposure", detail: "Adjust until the card reads 18%." },
  ],
  acceptanceCriteria: ["grey card reads 0.18 linear"],
  tags: ["lookdev"],
  document: "Keep the key light fixed.\n",
});

