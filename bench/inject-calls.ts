/**
 * bench/inject-calls.ts — the daemon's own CPU per tool call, in one process,
 * with no sockets: each build's server (createRecipeServer from its dist/)
 * answers recipes__search / recipes__get through fastify's inject (the whole
 * request path from the routing on: hooks, guard, message checks, the era's
 * leg, the SDK transport and server, the surface table, the registry, the
 * tool, metrics and the log line, written to /dev/null as the daemon writes
 * its lines). Builds alternate in short slices inside each round, so a shared
 * host's drift falls on both; process.cpuUsage() per call is the figure.
 * Socket and kernel costs (the same bytes for every build) are left out,
 * which is what makes a few µs visible.
 *
 *   npm run build
 *   npx tsx bench/inject-calls.ts [--build now=dist] [--build before=/tmp/base/dist] [--recipes 2000]
 *                                 [--eras legacy,modern] [--tools search,get] [--rounds 8] [--calls 300] [--callgrind]
 *
 * The first --build is the one the others are compared with. Prints µs per
 * call per build and the ratio per round. With --callgrind each build runs
 * alone under valgrind's callgrind instead, counted only while its --calls
 * calls of a cell run (after a warm-up): instructions per call, all threads,
 * a figure a loaded host does not move. Asserts nothing.
 */
import { readdirSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { benchQueries, generateTree, recipeName } from "./lib/generate.js";
import { control, countEachBuild, dumped } from "./lib/callgrind.js";

const { values } = parseArgs({
  options: {
    build: { type: "string", multiple: true, default: ["now=dist"] },
    recipes: { type: "string", default: "2000" },
    eras: { type: "string", default: "legacy,modern" },
    rounds: { type: "string", default: "8" },
    calls: { type: "string", default: "300" },
    callgrind: { type: "boolean", default: false },
    tools: { type: "string", default: "search,get" },
    /** Internal: this process is one build under callgrind, writing its dumps to this prefix, over this tree. */
    "callgrind-child": { type: "string" },
    tree: { type: "string" },
  },
});
const SIZE = Number(values.recipes);
const ROUNDS = Number(values.rounds);
const CALLS = Number(values.calls);
const PER_SKILL = 10;
const TOOLS = String(values.tools).split(",").filter((tool): tool is "search" | "get" => tool === "search" || tool === "get");
const ERAS = String(values.eras).split(",").filter((era): era is "legacy" | "modern" => era === "legacy" || era === "modern");

interface Injected {
  readonly statusCode: number;
  readonly body: string;
}
interface Fastify {
  inject(options: { method: string; url: string; headers: Record<string, string>; payload: string }): Promise<Injected>;
}
interface Built {
  readonly name: string;
  readonly http: { readonly fastify: Fastify };
  ready(): Promise<void>;
  stop(): Promise<void>;
}

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const BASE_HEADERS = { host: "127.0.0.1", "content-type": "application/json", accept: "application/json, text/event-stream" };

const work = await fs.mkdtemp(path.join(os.tmpdir(), "inject-calls-"));
const skills = Math.ceil(SIZE / PER_SKILL);
const tree = values.tree !== undefined ? { root: values.tree, recipes: SIZE } : await generateTree(path.join(work, "skills"), skills, PER_SKILL);
const queries = benchQueries(2000);

async function load(spec: string): Promise<Built> {
  const [name, dir] = spec.includes("=") ? (spec.split("=", 2) as [string, string]) : [spec, spec];
  const dist = path.resolve(dir!);
  const lib = (await import(pathToFileURL(path.join(dist, "index.js")).href)) as {
    resolveConfig(input: { argv: string[]; env: Record<string, string | undefined>; homeDir: string }): { kind: string; config?: unknown; message?: string };
    createRecipeServer(config: unknown, options: { logger: unknown }): Built;
  };
  const home = path.join(work, `home-${name}`);
  await fs.mkdir(home, { recursive: true });
  const resolved = lib.resolveConfig({
    argv: ["--dcc", "maya", "--port", "0", "--skills-path", tree.root, "--embeddings", "none"],
    env: { HOME: home, XDG_DATA_HOME: home, DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" },
    homeDir: home,
  });
  if (resolved.kind !== "serve") throw new Error(`${name}: ${JSON.stringify(resolved)}`);
  // The daemon's JSON logger: level labels, batched asynchronous writes.
  const logger = pino(
    { level: "info", formatters: { level: (label: string) => ({ level: label }) } },
    pino.destination({ dest: "/dev/null", sync: false, minLength: 4096, periodicFlush: 200 }),
  );
  const server = lib.createRecipeServer(resolved.config, { logger });
  await (server as unknown as { start(): Promise<unknown> }).start();
  await server.ready();
  return Object.assign(server, { name });
}

function call(tool: "search" | "get", i: number): { name: string; arguments: Record<string, unknown> } {
  if (tool === "search") return { name: "recipes__search", arguments: { query: queries[i % queries.length]!, limit: 10 } };
  const skill = (i * 31) % skills;
  return { name: "recipes__get", arguments: { skill: `bench-skill-${skill}`, anchor: recipeName(skill, i % PER_SKILL) } };
}

/** A client of one era over inject: a 2025 session (initialize first), or 2026 requests that each stand alone. */
async function client(server: Built, era: "legacy" | "modern"): Promise<(tool: "search" | "get", i: number) => Promise<void>> {
  const fastify = server.http.fastify;
  let id = 1;
  if (era === "modern") {
    return async (tool, i) => {
      const { name, arguments: args } = call(tool, i);
      const body = JSON.stringify({ jsonrpc: "2.0", id: id++, method: "tools/call", params: { name, arguments: args, _meta: ENVELOPE } });
      const reply = await fastify.inject({ method: "POST", url: "/mcp", headers: { ...BASE_HEADERS, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name }, payload: body });
      if (reply.statusCode !== 200 || reply.body.includes('"isError":true')) throw new Error(`${server.name}: ${reply.statusCode} ${reply.body.slice(0, 300)}`);
    };
  }
  const init = await fastify.inject({
    method: "POST",
    url: "/mcp",
    headers: BASE_HEADERS,
    payload: JSON.stringify({ jsonrpc: "2.0", id: id++, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } } }),
  });
  const session = (init as unknown as { headers: Record<string, string> }).headers["mcp-session-id"];
  if (session === undefined) throw new Error(`${server.name}: no session (${init.statusCode} ${init.body.slice(0, 200)})`);
  const headers = { ...BASE_HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
  await fastify.inject({ method: "POST", url: "/mcp", headers, payload: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
  return async (tool, i) => {
    const reply = await fastify.inject({ method: "POST", url: "/mcp", headers, payload: JSON.stringify({ jsonrpc: "2.0", id: id++, method: "tools/call", params: call(tool, i) }) });
    if (reply.statusCode !== 200 || reply.body.includes('"isError":true')) throw new Error(`${server.name}: ${reply.statusCode} ${reply.body.slice(0, 300)}`);
  };
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;


if (values["callgrind-child"] !== undefined) {
  // One build under callgrind: instructions per call of each cell, as one JSON line.
  const prefix = values["callgrind-child"];
  const built = await load((values.build as string[])[0]!);
  const figures: Record<string, number> = {};
  for (const era of ERAS) {
    const c = await client(built, era);
    for (const tool of TOOLS) {
      for (let i = 0; i < 300; i += 1) await c(tool, i);
      // A full collection before the window and one inside it at its end: each window pays for its own
      // garbage, not for whatever an earlier one left (the largest source of spread between runs).
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      await control("-i", "on");
      await control("-z");
      for (let i = 0; i < CALLS; i += 1) await c(tool, 1000 + i);
      gc?.();
      await control("-d", `${era}-${tool}`);
      await control("-i", "off");
      figures[`${era} ${tool}`] = dumped(prefix) / CALLS;
      // INJECT_CALLS_KEEP_DUMPS=1 leaves the dumps for callgrind_annotate (one cell per run, then).
      if (process.env["INJECT_CALLS_KEEP_DUMPS"] === "1") continue;
      for (const file of readdirSync(path.dirname(prefix)).filter((f) => f.startsWith(path.basename(prefix)))) await fs.rm(path.join(path.dirname(prefix), file));
    }
  }
  process.stdout.write(`${JSON.stringify(figures)}\n`);
  await built.stop().catch(() => undefined);
  process.exit(0);
}

if (values.callgrind) {
  const self = fileURLToPath(import.meta.url);
  const results = await countEachBuild(self, values.build as string[], work, ["--tree", tree.root, "--recipes", String(SIZE), "--eras", ERAS.join(","), "--tools", TOOLS.join(","), "--calls", String(CALLS)], "inherit");
  console.log(`inject-calls --callgrind: ${tree.recipes} recipes; ${CALLS} calls per cell after 300; thousands of instructions per call (all threads)`);
  for (const cell of Object.keys(results[0]!.figures)) {
    const base = results[0]!.figures[cell]!;
    console.log(`${cell.padEnd(14)} ${results.map((r, k) => `${r.name} ${(r.figures[cell]! / 1000).toFixed(1)}k${k === 0 ? "" : ` (${(r.figures[cell]! / base).toFixed(3)}×)`}`).join("; ")}`);
  }
  await fs.rm(work, { recursive: true, force: true }).catch(() => undefined);
  process.exit(0);
}

const builds: Built[] = [];
for (const spec of values.build as string[]) builds.push(await load(spec));
console.log(`inject-calls: ${tree.recipes} recipes; ${ROUNDS} rounds × ${CALLS} calls per build and cell, builds alternating in slices of 50; µs of process CPU per call`);
try {
  for (const era of ERAS) {
    const clients = await Promise.all(builds.map((b) => client(b, era)));
    for (const tool of TOOLS) {
      // Warm-up: every build compiles its hot paths before anything is counted.
      for (let i = 0; i < 400; i += 1) for (const c of clients) await c(tool, i);
      const perBuild: number[][] = builds.map(() => []);
      let n = 1000;
      for (let r = 0; r < ROUNDS; r += 1) {
        const used = builds.map(() => 0);
        for (let done = 0; done < CALLS; done += 50) {
          // Alternate which build goes first in each slice.
          const order = builds.map((_, k) => k);
          if ((done / 50 + r) % 2 === 1) order.reverse();
          for (const k of order) {
            const start = process.cpuUsage();
            for (let j = 0; j < 50; j += 1) await clients[k]!(tool, n + j);
            const spent = process.cpuUsage(start);
            used[k]! += spent.user + spent.system;
          }
          n += 50;
        }
        used.forEach((us, k) => perBuild[k]!.push(us / CALLS));
      }
      const first = perBuild[0]!;
      const line = builds
        .map((b, k) => {
          const mine = perBuild[k]!;
          if (k === 0) return `${b.name} ${median(mine).toFixed(1)} µs`;
          const ratios = mine.map((x, r) => x / first[r]!);
          return `${b.name} ${median(mine).toFixed(1)} µs (${(median(ratios)).toFixed(3)}× ${builds[0]!.name}, rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
        })
        .join("; ");
      console.log(`${era.padEnd(7)} ${tool.padEnd(6)} ${line}`);
    }
  }
} finally {
  for (const b of builds) await b.stop().catch(() => undefined);
  await fs.rm(work, { recursive: true, force: true }).catch(() => undefined);
}
