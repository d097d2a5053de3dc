/**
 * bench/request-path.ts — which of the project's source files one tools/call
 * runs code in, on each protocol leg: V8 precise coverage (call counts) of
 * the unbundled dist/ modules (tsc's output, one .js per src/ .ts), reset
 * after the server is up and the leg warmed (a 2025 session initialized; one
 * call of each tool made), then read after exactly one call over real HTTP
 * on loopback. A file counts when any of its functions ran in that call.
 *
 *   npm run build && npx tsx bench/request-path.ts [--dist dist] [--recipes 200]
 *
 * Prints the count and the files for each leg × tool. Asserts nothing.
 */
import fs from "node:fs/promises";
import { Session } from "node:inspector/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { generateTree, recipeName } from "./lib/generate.js";

const { values } = parseArgs({ options: { dist: { type: "string", default: "dist" }, recipes: { type: "string", default: "200" } } });
const dist = path.resolve(values.dist);
const work = await fs.mkdtemp(path.join(os.tmpdir(), "request-path-"));
const tree = await generateTree(path.join(work, "skills"), Math.ceil(Number(values.recipes) / 10), 10);

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: true });

const lib = (await import(pathToFileURL(path.join(dist, "index.js")).href)) as {
  resolveConfig(input: { argv: string[]; env: Record<string, string>; homeDir: string }): { kind: string; config?: unknown };
  createRecipeServer(config: unknown, options: { logger: unknown }): { start(): Promise<{ url: string }>; ready(): Promise<void>; stop(): Promise<void> };
};
const home = path.join(work, "home");
await fs.mkdir(home, { recursive: true });
const resolved = lib.resolveConfig({
  argv: ["--dcc", "maya", "--port", "0", "--skills-path", tree.root, "--embeddings", "none"],
  env: { HOME: home, XDG_DATA_HOME: home, DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" },
  homeDir: home,
});
const logger = pino({ level: "info", formatters: { level: (label: string) => ({ level: label }) } }, pino.destination({ dest: "/dev/null", sync: false, minLength: 4096 }));
const server = lib.createRecipeServer(resolved.config, { logger });
const { url } = await server.start();
await server.ready();
const mcp = `${url}/mcp`;

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "trace", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
let id = 1;
async function post(body: unknown, headers: Record<string, string>): Promise<Response> {
  const response = await fetch(mcp, { method: "POST", headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) });
  await response.arrayBuffer();
  return response;
}

const initialized = await post({ jsonrpc: "2.0", id: id++, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "trace", version: "1" } } }, {});
const legacyHeaders = { "mcp-session-id": initialized.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": "2025-11-25" };
await post({ jsonrpc: "2.0", method: "notifications/initialized" }, legacyHeaders);

const CALLS = {
  search: { name: "recipes__search", arguments: { query: "bevel the edges", limit: 10 } },
  get: { name: "recipes__get", arguments: { skill: "bench-skill-1", anchor: recipeName(1, 0) } },
} as const;
const legs = {
  "2025-11-25": (params: object) => post({ jsonrpc: "2.0", id: id++, method: "tools/call", params }, legacyHeaders),
  "2026-07-28": (params: object) =>
    post({ jsonrpc: "2.0", id: id++, method: "tools/call", params: { ...params, _meta: ENVELOPE } }, { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": (params as { name: string }).name }),
};
// Warm-up: every leg and tool once, so lazy first-use work is not counted.
for (const call of Object.values(legs)) for (const params of Object.values(CALLS)) await call(params);

interface Coverage {
  result: Array<{ url: string; functions: Array<{ ranges: Array<{ count: number }> }> }>;
}
const srcRoot = path.resolve(dist, "..", "src");
for (const [leg, call] of Object.entries(legs)) {
  for (const [tool, params] of Object.entries(CALLS)) {
    await session.post("Profiler.takePreciseCoverage");
    const response = await call(params);
    const { result } = (await session.post("Profiler.takePreciseCoverage")) as Coverage;
    const files = result
      .filter((script) => script.url.startsWith(pathToFileURL(dist).href) && script.functions.some((f) => (f.ranges[0]?.count ?? 0) > 0))
      .map((script) => path.relative(srcRoot, path.join(srcRoot, path.relative(dist, fileURLToPath(script.url)))).replace(/\.js$/, ".ts"))
      .sort();
    const byFolder = new Map<string, number>();
    for (const file of files) byFolder.set(path.dirname(file), (byFolder.get(path.dirname(file)) ?? 0) + 1);
    console.log(`${leg} ${tool} (HTTP ${response.status}): ${files.length} src files — ${[...byFolder].map(([folder, n]) => `${folder} ${n}`).join(", ")}`);
    for (const file of files) console.log(`  ${file}`);
  }
}
await session.post("Profiler.stopPreciseCoverage");
await server.stop();
await fs.rm(work, { recursive: true, force: true });
