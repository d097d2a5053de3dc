/**
 * bench/inject-profile.ts — where the daemon's own CPU per tool call goes,
 * function by function: one build's server answers one cell's calls through
 * fastify's inject (as bench/inject-calls.ts: no sockets), under V8's sampling
 * profiler started only around the counted calls. Self time per function
 * (source-mapped through the bundle; builtins and node's own JS charged to
 * the nearest caller of the project or a package), and inclusive time of
 * the frames named with --inclusive.
 *
 *   RECIPE_SERVER_BUNDLE_MAPS=1 npm run build
 *   npx tsx bench/inject-profile.ts [--build dist | bare | edge=DIR/dist] [--era legacy|modern] [--tool search|get]
 *                                   [--calls 4000] [--interval 50] [--top 40] [--inclusive name,name]
 *
 * --build bare: the bare server's route (bench/lib/bare-routes.ts), in this process;
 * --build edge=DIR/dist: that build's HTTP app, protocol legs and surface in
 * front of a registry answering constants. Both answer the results in the
 * file BARE_CONSTANTS names, which a daemon run with that variable set writes.
 * PEEK=1 prints one reply and exits. Under valgrind's callgrind
 * (--instr-atstart=no), --callgrind-out PREFIX counts instructions over the
 * calls instead of profiling (docs/benchmarks.md has the command).
 *
 * Shares, not times: a shared host's pre-emption lands on whatever ran. Asserts nothing.
 */
import { Session } from "node:inspector/promises";
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import { SourceMap } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { benchQueries, generateTree, recipeName } from "./lib/generate.js";
import { routeBare, type BareResult } from "./lib/bare-routes.js";

const { values } = parseArgs({
  options: {
    build: { type: "string", default: "dist" },
    era: { type: "string", default: "modern" },
    tool: { type: "string", default: "get" },
    recipes: { type: "string", default: "2000" },
    calls: { type: "string", default: "4000" },
    interval: { type: "string", default: "50" },
    top: { type: "string", default: "40" },
    inclusive: { type: "string", default: "" },
    /** Internal: this process runs under callgrind; count instructions over the calls, dumped to this prefix. */
    "callgrind-out": { type: "string" },
  },
});
const PER_SKILL = 10;
const SIZE = Number(values.recipes);
const CALLS = Number(values.calls);
const era = values.era === "legacy" ? "legacy" : "modern";
const tool = values.tool === "search" ? "search" : "get";
const work = await fs.mkdtemp(path.join(os.tmpdir(), "inject-profile-"));
const skills = Math.ceil(SIZE / PER_SKILL);
const tree = values.build === "bare" || values.build.startsWith("edge=") ? { root: "" } : await generateTree(path.join(work, "skills"), skills, PER_SKILL);
const queries = benchQueries(2000);
type Injector = { inject(o: object): Promise<{ statusCode: number; body: string; headers: Record<string, string> }> };
let fastify: Injector;
let stop: () => Promise<void>;
if (values.build.startsWith("edge=")) {
  // The project's edge (http-app, guard, checks, era legs, surface, era servers) of one build, with a
  // registry answering the daemon's bytes as constants: the transport and protocol layers alone.
  ({ fastify, stop } = await edgeServer(path.resolve(values.build.slice(5))));
} else if (values.build === "bare") {
  // The bare server's route (bench/lib/bare-routes.ts), in this process, answering the daemon's bytes for one call as constants.
  ({ fastify, stop } = await bareServer(era));
} else {
  const dist = path.resolve(values.build);
  const lib = (await import(pathToFileURL(path.join(dist, "index.js")).href)) as {
    resolveConfig(input: { argv: string[]; env: Record<string, string | undefined>; homeDir: string }): { kind: string; config?: unknown };
    createRecipeServer(config: unknown, options: { logger: unknown }): { http: { fastify: Injector }; start(): Promise<unknown>; ready(): Promise<void>; stop(): Promise<void> };
  };
  const home = path.join(work, "home");
  await fs.mkdir(home, { recursive: true });
  const resolved = lib.resolveConfig({
    argv: ["--dcc", "maya", "--port", "0", "--skills-path", tree.root, "--embeddings", "none"],
    env: { HOME: home, XDG_DATA_HOME: home, DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" },
    homeDir: home,
  });
  const logger = pino(
    { level: "info", formatters: { level: (label: string) => ({ level: label }) } },
    pino.destination({ dest: "/dev/null", sync: false, minLength: 4096, periodicFlush: 200 }),
  );
  const server = lib.createRecipeServer(resolved.config, { logger });
  await server.start();
  await server.ready();
  fastify = server.http.fastify;
  stop = () => server.stop();
}
const BASE = { host: "127.0.0.1", "content-type": "application/json", accept: "application/json, text/event-stream" };
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const callOf = (i: number): { name: string; arguments: Record<string, unknown> } => {
  if (tool === "search") return { name: "recipes__search", arguments: { query: queries[i % queries.length]!, limit: 10 } };
  const skill = (i * 31) % skills;
  return { name: "recipes__get", arguments: { skill: `bench-skill-${skill}`, anchor: recipeName(skill, i % PER_SKILL) } };
};
let id = 1;
let headers: Record<string, string> = { ...BASE, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call" };
if (era === "legacy") {
  const init = await fastify.inject({
    method: "POST", url: "/mcp", headers: BASE,
    payload: JSON.stringify({ jsonrpc: "2.0", id: id++, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } } }),
  });
  headers = { ...BASE, "mcp-session-id": init.headers["mcp-session-id"]!, "mcp-protocol-version": "2025-11-25" };
  await fastify.inject({ method: "POST", url: "/mcp", headers, payload: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
}
const one = async (i: number): Promise<void> => {
  const c = callOf(i);
  const params = era === "modern" ? { ...c, _meta: ENVELOPE } : c;
  const h = era === "modern" ? { ...headers, "mcp-name": c.name } : headers;
  const reply = await fastify.inject({ method: "POST", url: "/mcp", headers: h, payload: JSON.stringify({ jsonrpc: "2.0", id: id++, method: "tools/call", params }) });
  if (reply.statusCode !== 200 || reply.body.includes('"isError":true')) throw new Error(`${reply.statusCode} ${reply.body.slice(0, 300)}`);
};
if (process.env.PEEK === "1") {
  const c = callOf(0);
  const params = era === "modern" ? { ...c, _meta: ENVELOPE } : c;
  const h = era === "modern" ? { ...headers, "mcp-name": c.name } : headers;
  const reply = await fastify.inject({ method: "POST", url: "/mcp", headers: h, payload: JSON.stringify({ jsonrpc: "2.0", id: id++, method: "tools/call", params }) });
  console.log(reply.statusCode, JSON.stringify(reply.headers), reply.body.length, reply.body.slice(0, 120));
  process.exit(0);
}
for (let i = 0; i < 1000; i++) await one(i);
if (values.build !== "bare" && process.env.BARE_CONSTANTS !== undefined) {
  // The daemon's own results for the two tools, for a --build bare run to answer as constants.
  const resultOf = async (c: { name: string; arguments: Record<string, unknown> }): Promise<unknown> => {
    const params = era === "modern" ? { ...c, _meta: ENVELOPE } : c;
    const h = era === "modern" ? { ...headers, "mcp-name": c.name } : headers;
    const reply = await fastify.inject({ method: "POST", url: "/mcp", headers: h, payload: JSON.stringify({ jsonrpc: "2.0", id: id++, method: "tools/call", params }) });
    const text = reply.body.startsWith("event:") ? reply.body.slice(reply.body.indexOf("data: ") + 6) : reply.body;
    return (JSON.parse(text) as { result: unknown }).result;
  };
  const search = { name: "recipes__search", arguments: { query: queries[0]!, limit: 10 } };
  const get = { name: "recipes__get", arguments: { skill: "bench-skill-0", anchor: recipeName(0, 0) } };
  await fs.writeFile(process.env.BARE_CONSTANTS, JSON.stringify({ recipes__search: await resultOf(search), recipes__get: await resultOf(get) }));
}

if (values["callgrind-out"] !== undefined) {
  const prefix = values["callgrind-out"];
  const control = (...args: string[]): Promise<void> =>
    new Promise((resolve, reject) => execFile("callgrind_control", [...args, String(process.pid)], (error) => (error === null ? resolve() : reject(error))));
  await control("-i", "on");
  await control("-z");
  for (let i = 0; i < CALLS; i++) await one(1000 + i);
  await control("-d", "calls");
  await control("-i", "off");
  let total = 0;
  const dir = path.dirname(prefix);
  for (const file of readdirSync(dir).filter((f) => f.startsWith(path.basename(prefix)))) {
    total += Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(path.join(dir, file), "utf8"))?.[1] ?? 0);
  }
  process.stdout.write(`${JSON.stringify({ era, tool, build: values.build, instructionsPerCall: total / CALLS })}\n`);
  await stop().catch(() => undefined);
  await fs.rm(work, { recursive: true, force: true });
  process.exit(0);
}

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] }
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: Number(values.interval) });
await session.post("Profiler.start");
const cpu0 = process.cpuUsage();
for (let i = 0; i < CALLS; i++) await one(1000 + i);
const cpu = process.cpuUsage(cpu0);
const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: { nodes: Node[]; samples: number[]; timeDeltas: number[] } };
await stop().catch(() => undefined);

const maps = new Map<string, SourceMap | null>();
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
function sourceOf(frame: Node["callFrame"]): string {
  if (!frame.url.startsWith("file://")) return frame.url;
  const file = fileURLToPath(frame.url);
  let map = maps.get(file);
  if (map === undefined) {
    try { map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8"))); } catch { map = null; }
    maps.set(file, map);
  }
  let source = file;
  if (map !== null) {
    const e = map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string; originalLine?: number };
    if (e.originalSource !== undefined) source = e.originalSource.startsWith("file://") ? fileURLToPath(e.originalSource) : path.resolve(path.dirname(file), e.originalSource);
  }
  const nm = source.lastIndexOf("node_modules/");
  if (nm !== -1) return source.slice(nm + 13);
  return path.relative(root, source);
}
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = new Map<number, string>();
const nameOf = (id: number): string => {
  const known = label.get(id);
  if (known !== undefined) return known;
  const n = byId.get(id)!;
  const src = sourceOf(n.callFrame);
  let l = `${src}:${n.callFrame.functionName || "(anon)"}`;
  if (src === "" || src.startsWith("node:")) {
    const up = parent.get(id);
    if (n.callFrame.functionName === "(garbage collector)") l = "(GC)";
    else if (up !== undefined && byId.get(up)!.callFrame.functionName !== "(root)") l = `${nameOf(up)} <- ${n.callFrame.functionName || "(anon)"}`.replace(/ <- .* <- /, " <- … <- ");
  }
  label.set(id, l);
  return l;
};
const self = new Map<string, number>();
const incl = new Map<string, number>();
const wanted = String(values.inclusive).split(",").filter(Boolean);
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const d = profile.timeDeltas[i + 1] ?? 0;
  const s = profile.samples[i]!;
  if (byId.get(s)!.callFrame.functionName === "(idle)") continue;
  total += d;
  const l = nameOf(s);
  // Group node-internal leaves by the project/package frame they hang under.
  const key = l.includes(" <- ") ? `${l.split(" <- ")[0]} <- (node/builtins)` : l;
  self.set(key, (self.get(key) ?? 0) + d);
  const seen = new Set<string>();
  for (let n: number | undefined = s; n !== undefined; n = parent.get(n)) {
    const f = byId.get(n)!.callFrame.functionName;
    for (const w of wanted) if (f === w && !seen.has(w)) { seen.add(w); incl.set(w, (incl.get(w) ?? 0) + d); }
  }
}
const perCall = (cpu.user + cpu.system) / CALLS;
console.log(`inject-profile: ${era} ${tool}, ${CALLS} calls, ${perCall.toFixed(1)} µs CPU per call; shares of ${(total / 1000).toFixed(0)} ms sampled`);
for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) console.log(`${((v / total) * perCall).toFixed(1).padStart(7)} µs ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
for (const w of wanted) console.log(`inclusive ${w}: ${(((incl.get(w) ?? 0) / total) * perCall).toFixed(1)} µs`);
const bySrc = new Map<string, number>();
for (const [k, v] of self) { const src = k.startsWith("(") ? k : k.split(":")[0]!.replace(/^(@[^/]+\/[^/]+|[^@/][^/]*)\/.*$/, (m, p: string) => (m.startsWith("src/") ? m : p)); bySrc.set(src, (bySrc.get(src) ?? 0) + v); }
console.log("--- by file/package");
for (const [k, v] of [...bySrc.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${((v / total) * perCall).toFixed(1).padStart(7)} µs  ${k}`);
await fs.rm(work, { recursive: true, force: true });
process.exit(0);

async function bareServer(mode: "legacy" | "modern"): Promise<{ fastify: Injector; stop: () => Promise<void> }> {
  const { default: Fastify } = await import("fastify");
  const constants = JSON.parse(readFileSync(String(process.env.BARE_CONSTANTS), "utf8")) as Record<string, BareResult>;
  const app = Fastify({ bodyLimit: 4 * 1024 * 1024 });
  await routeBare(app, mode, constants);
  await app.ready();
  return { fastify: app as unknown as Injector, stop: () => app.close() };
}

async function edgeServer(dist: string): Promise<{ fastify: Injector; stop: () => Promise<void> }> {
  const constants = JSON.parse(readFileSync(String(process.env.BARE_CONSTANTS), "utf8")) as Record<string, Record<string, unknown>>;
  const imp = async <T>(file: string): Promise<T> => (await import(pathToFileURL(path.join(dist, file)).href)) as T;
  const { buildHttpApp } = await imp<{ buildHttpApp(o: object): { fastify: Injector; close(): Promise<void> } }>("server/transport/http-app.js");
  const { endpointServers } = await imp<{ endpointServers(o: object): object }>("server/protocol/endpoint.js");
  const { resolveConfig } = await imp<{ resolveConfig(i: object): { config: { limits: object } } }>("index.js");
  const resolved = resolveConfig({ argv: ["--dcc", "maya", "--port", "0", "--embeddings", "none"], env: { HOME: work, DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" }, homeDir: work });
  const logger = pino(
    { level: "info", formatters: { level: (label: string) => ({ level: label }) } },
    pino.destination({ dest: "/dev/null", sync: false, minLength: 4096, periodicFlush: 200 }),
  );
  const listed = Object.keys(constants).map((name) => ({ name, title: name, description: "constant", inputSchema: { type: "object" }, annotations: { title: name } }));
  const registry = {
    list: () => listed,
    has: (name: string) => name in constants,
    call: (name: string) => ({ kind: "result", result: constants[name], success: true }),
  };
  const servers = endpointServers({ name: "recipe-server-maya", version: "0", tools: { registry, contextFor: () => ({}), logger, timeoutMs: 30_000, onToolCall: () => undefined } });
  const app = buildHttpApp({
    endpoints: [{ path: "/mcp", ...servers }, { path: "/mcp/maya", ...servers }],
    guard: { bindHost: "127.0.0.1", bindIsLoopback: true, allowedOrigins: [], token: null },
    stateless: false,
    limits: resolved.config.limits,
    logger,
    onRequestDone: () => undefined,
    readiness: () => ({ ready: true, body: {} }),
  });
  await (app.fastify as unknown as { ready(): Promise<void> }).ready();
  return { fastify: app.fastify, stop: () => app.close() };
}
