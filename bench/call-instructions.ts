/**
 * bench/call-instructions.ts — instructions per tool call (every thread of
 * the server process), counted by valgrind's callgrind: a figure that does
 * not move with the load other processes put on a shared host, unlike CPU
 * time. Each server (the daemon at its default flags, --baseline's build,
 * and the bare server of the era's SDK line that bench/server.ts builds)
 * runs under callgrind with instrumentation off; after a warm-up (so V8 has
 * compiled the hot paths) it is switched on for exactly --calls calls from
 * one real SDK client, one call at a time, and the dump's total is divided
 * by the calls.
 *
 *   npm run build && npm run bench:server -- --recipes 100 --rounds 1 --seconds 0.2   # once: builds the bare bundles
 *   npx tsx bench/call-instructions.ts [--recipes 2000] [--eras legacy,modern] [--calls 200] [--warmup 400]
 *                                      [--baseline path/to/cli.js] [--no-bare]
 *
 * Instructions are not time (memory stalls and GC threads count by their
 * instructions only), so this judges changes and compares like with like;
 * the ratio against the bare server is a proxy for bench:server's.
 * Prints figures, asserts nothing.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { closeClients, connectClients, connectModernClients, type LoadClient } from "./lib/clients.js";
import { benchQueries, generateTree, recipeName } from "./lib/generate.js";
import { servingUrl } from "./lib/serving-url.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    recipes: { type: "string", default: "2000" },
    eras: { type: "string", default: "legacy,modern" },
    calls: { type: "string", default: "200" },
    warmup: { type: "string", default: "400" },
    baseline: { type: "string" },
    "no-bare": { type: "boolean", default: false },
  },
});
const SIZE = Number(values.recipes);
const CALLS = Number(values.calls);
const WARMUP = Number(values.warmup);
const ERAS = String(values.eras).split(",").filter((era): era is "legacy" | "modern" => era === "legacy" || era === "modern");
const PER_SKILL = 10;
const children = new Set<ChildProcess>();

const work = await fs.mkdtemp(path.join(os.tmpdir(), "call-instr-"));
const callgrind = (out: string): string[] => ["--tool=callgrind", "--instr-atstart=no", "--dump-instr=no", `--callgrind-out-file=${out}`, process.execPath];

async function until(test: () => Promise<boolean>): Promise<void> {
  while (!(await test())) await new Promise((r) => setTimeout(r, 200));
}

async function startDaemon(name: string, cli: string, tree: string): Promise<{ child: ChildProcess; url: string; out: string }> {
  const home = path.join(work, `home-${name}`);
  await fs.mkdir(home, { recursive: true });
  const out = path.join(work, `${name}.cg`);
  const child = spawn("valgrind", [...callgrind(out), cli, "--dcc", "maya", "--port", "0", "--skills-path", tree, "--embeddings", "none"], {
    env: { PATH: process.env.PATH ?? "", HOME: home, XDG_DATA_HOME: home, DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" },
    stdio: ["ignore", "pipe", "ignore"],
  });
  children.add(child);
  const url = await servingUrl(child, name);
  await until(async () => (await fetch(url.replace(/\/mcp$/, "/readyz")).catch(() => null))?.status === 200);
  return { child, url, out };
}

async function startBare(era: "legacy" | "modern", constantsFile: string): Promise<{ child: ChildProcess; url: string; out: string }> {
  const bundle = path.join(ROOT, ".bench-tmp/bare-deps", era, "bare-server.mjs");
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run bench:server once first (it builds the bare servers)`);
  const out = path.join(work, `bare-${era}.cg`);
  const child = spawn("valgrind", [...callgrind(out), bundle, era, constantsFile], { stdio: ["ignore", "pipe", "ignore"], cwd: path.dirname(bundle) });
  children.add(child);
  return { child, url: await servingUrl(child, "bare"), out };
}

/** Total instructions in the dumps callgrind wrote for `out` (one file per dump, per thread when asked). */
function dumpedInstructions(out: string): number {
  let total = 0;
  for (const file of readdirSync(path.dirname(out)).filter((f) => f.startsWith(path.basename(out)))) {
    const match = /^(?:summary|totals): (\d+)/m.exec(readFileSync(path.join(path.dirname(out), file), "utf8"));
    total += Number(match?.[1] ?? 0);
  }
  return total;
}

const queries = benchQueries(2000);
function callOf(tool: "search" | "get", i: number, skills: number): { name: string; arguments: Record<string, unknown> } {
  if (tool === "search") return { name: "recipes__search", arguments: { query: queries[i % queries.length]!, limit: 10 } };
  const skill = (i * 31) % skills;
  return { name: "recipes__get", arguments: { skill: `bench-skill-${skill}`, anchor: recipeName(skill, i % PER_SKILL) } };
}

/** Instructions per call of `tool` on the server `pid`, counted over CALLS calls after WARMUP. */
async function count(pid: number, out: string, client: LoadClient, tool: "search" | "get", skills: number): Promise<number> {
  for (let i = 0; i < WARMUP; i += 1) await client.callTool(callOf(tool, i, skills));
  for (const file of readdirSync(path.dirname(out)).filter((f) => f.startsWith(path.basename(out)))) await fs.rm(path.join(path.dirname(out), file));
  execFileSync("callgrind_control", ["-i", "on", String(pid)], { stdio: "ignore" });
  execFileSync("callgrind_control", ["-z", String(pid)], { stdio: "ignore" });
  for (let i = 0; i < CALLS; i += 1) await client.callTool(callOf(tool, WARMUP + i, skills));
  execFileSync("callgrind_control", ["-d", String(pid)], { stdio: "ignore" });
  execFileSync("callgrind_control", ["-i", "off", String(pid)], { stdio: "ignore" });
  return dumpedInstructions(out) / CALLS;
}

try {
  const skills = Math.ceil(SIZE / PER_SKILL);
  const tree = await generateTree(path.join(work, "skills"), skills, PER_SKILL);
  const servers: Record<string, { child: ChildProcess; url: string; out: string }> = { daemon: await startDaemon("daemon", path.join(ROOT, "dist/cli.js"), tree.root) };
  if (values.baseline !== undefined) servers.baseline = await startDaemon("baseline", path.resolve(values.baseline), tree.root);
  console.log(`call-instructions: ${tree.recipes} recipes, ${CALLS} calls after ${WARMUP} warm-up calls, one client; millions of instructions per call (all threads)`);
  for (const era of ERAS) {
    const connect = (url: string): Promise<LoadClient[]> => (era === "modern" ? connectModernClients(url, 1) : connectClients(url, 1));
    const targets = { ...servers };
    if (values["no-bare"] !== true) {
      const [probe] = await connect(servers.daemon!.url);
      const constants = {
        recipes__search: await probe!.callTool(callOf("search", 0, skills)),
        recipes__get: await probe!.callTool(callOf("get", 0, skills)),
      };
      await closeClients([probe!]);
      const file = path.join(work, `constants-${era}.json`);
      await fs.writeFile(file, JSON.stringify(constants));
      (targets as Record<string, { child: ChildProcess; url: string; out: string }>).bare = await startBare(era, file);
    }
    const figures: Record<string, Record<string, number>> = {};
    for (const [name, server] of Object.entries(targets)) {
      const [client] = await connect(server.url);
      figures[name] = {};
      for (const tool of ["search", "get"] as const) figures[name]![tool] = await count(server.child.pid!, server.out, client!, tool, skills);
      await closeClients([client!]);
    }
    for (const [name, byTool] of Object.entries(figures)) {
      const ratio = (tool: string): string => (figures.bare === undefined || name === "bare" ? "" : ` (${(byTool[tool]! / figures.bare[tool]!).toFixed(2)}× bare)`);
      const versus = (tool: string): string => (figures.baseline === undefined || name !== "daemon" ? "" : ` [${(byTool[tool]! / figures.baseline[tool]!).toFixed(3)}× baseline]`);
      console.log(`${era.padEnd(7)} ${name.padEnd(9)} search ${(byTool.search! / 1e6).toFixed(3)}M${ratio("search")}${versus("search")}  get ${(byTool.get! / 1e6).toFixed(3)}M${ratio("get")}${versus("get")}`);
    }
    const bare = (targets as Record<string, { child: ChildProcess }>).bare;
    if (bare !== undefined) {
      bare.child.kill("SIGTERM");
      children.delete(bare.child);
    }
  }
} finally {
  for (const child of children) child.kill("SIGTERM");
  await fs.rm(work, { recursive: true, force: true }).catch(() => undefined);
}
