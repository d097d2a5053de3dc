/**
 * bench/starts.ts — cold start and restart of two (or more) builds of the
 * daemon, alternating, on one generated tree (default 1,000 skills / 20,000
 * recipes of the studio shape, or --shape flat). This machine's speed drifts by ±20% over tens of seconds: each
 * pair runs every build back to back, the order flipping each pair, so the
 * drift falls on both alike. Used to decide whether a start-up mechanism
 * earns its code: build the code with and without it, copy each
 * dist/ aside (beside a package.json and a node_modules link), run this.
 *
 *   npx tsx bench/starts.ts --build before=/tmp/ab/before --build after=/tmp/ab/after [--pairs 5] [--skills 1000] [--shape studio|flat]
 *   npx tsx bench/starts.ts            (this checkout's dist/ alone)
 *   npx tsx bench/starts.ts --build plain=DIR --build semi8=DIR --node-flag semi8=--max-semi-space-size=8
 *
 * A build directory holds dist/ and package.json (node_modules resolved from
 * it or a parent); with no --build, this checkout is the one build.
 *
 * --shape studio (default): per skill a SKILL.md, a YAML pack of 10 recipes
 * with inputs_schema and output_contract, and a Markdown file of 10 anchors
 * (1,000 skills: 3,000 files, ~19 MB, 20,000 recipes). --shape flat: the
 * older tree, one pack of --recipes-per-skill (20) YAML recipes per skill.
 * Every cold start gets a fresh HOME (no parse cache); its restart reuses it.
 *
 * Per start: ms to /readyz 200 (either form of it: the token-free
 * {"ready":…} or the older detailed one; only the status is read), the process's CPU time by
 * then (steadier than wall time when other work shares the cores) and its main thread's alone
 * (the critical path: parse workers run beside it), RSS at ready, and RSS and
 * CPU one second after one recipes__search (the caches written by then).
 * Prints figures, asserts nothing.
 *
 * --breakdown: also where the RSS is, at ready and after the search, from
 * /proc/<pid>/status (anonymous vs file-backed pages) and from inside the
 * process (process.memoryUsage(), V8's heap spaces) by a probe preloaded
 * with node --import (bench/lib/memory-probe.mjs; no product code). The
 * probe's preload costs a few ms: compare timings only between runs alike.
 * --breakdown-gc: each reading also after a full GC (garbage vs kept).
 * --idle: no search, the second reading after ready alone; --after-ms N:
 * the second reading N ms after the search (default 1000).
 *
 * --callgrind: instead of the timed pairs, each build's restart (over the
 * parse cache its own cold start wrote) under valgrind's callgrind, threads
 * apart: the instructions the main thread ran to /readyz 200, a figure a
 * loaded host does not move (system calls, waits and cache misses are not
 * in it). ~2 minutes per build.
 *
 *   npx tsx bench/starts.ts --callgrind --build before=DIR --build now=DIR
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { generateStudioTree, generateTree } from "./lib/generate.js";
import { servingUrl } from "./lib/serving-url.js";

const { values } = parseArgs({
  options: {
    build: { type: "string", multiple: true, default: [] },
    /** name=--flag: a node flag for that build's daemon (e.g. a V8 heap setting to A/B without a rebuild); repeatable. */
    "node-flag": { type: "string", multiple: true, default: [] },
    pairs: { type: "string", default: "5" },
    skills: { type: "string", default: "1000" },
    /** Per skill: YAML recipes (flat), or YAML recipes and as many Markdown anchors (studio); default 20 flat, 10 studio. */
    "recipes-per-skill": { type: "string" },
    shape: { type: "string", default: "studio" },
    /** Per start, where the RSS is: V8's heap spaces, external memory, anonymous vs file-backed pages. */
    breakdown: { type: "boolean", default: false },
    /** When the second reading is taken, ms after the search (the target names 1 s). */
    "after-ms": { type: "string", default: "1000" },
    /** No search: the second reading is 1 s after ready with no call (what the background work alone leaves). */
    idle: { type: "boolean", default: false },
    /** With --breakdown: each reading also after a full GC (node --expose-gc), so garbage shows apart from what is kept. */
    "breakdown-gc": { type: "boolean", default: false },
    /** Each build's restart under callgrind: main-thread instructions to ready (see the header). */
    callgrind: { type: "boolean", default: false },
  },
});
const builds = (values.build ?? []).map((spec) => {
  const at = spec.indexOf("=");
  return at < 0 ? { name: path.basename(spec), dir: path.resolve(spec) } : { name: spec.slice(0, at), dir: path.resolve(spec.slice(at + 1)) };
});
const nodeFlags = new Map<string, string[]>();
for (const spec of values["node-flag"] ?? []) {
  const at = spec.indexOf("=");
  nodeFlags.set(spec.slice(0, at), [...(nodeFlags.get(spec.slice(0, at)) ?? []), spec.slice(at + 1)]);
}
if (builds.length < 1) builds.push({ name: "this", dir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..") });
if (values.shape !== "studio" && values.shape !== "flat") {
  console.error(`--shape is studio or flat, not ${values.shape}`);
  process.exit(2);
}
const PAIRS = Number(values.pairs);
const BREAKDOWN = values.breakdown === true || values["breakdown-gc"] === true;
const BREAKDOWN_GC = values["breakdown-gc"] === true;
/** How the second reading is named in the figures. */
const AFTER = `${Number(values["after-ms"]) / 1000} s after ${values.idle === true ? "ready (no call)" : "a search"}`;
const PROBE = fileURLToPath(new URL("./lib/memory-probe.mjs", import.meta.url));

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "0");
  return Math.round(kb / 1024);
}

/** CPU time (user + system) the process has used, in ms: steadier than wall time on a shared machine. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** CPU time of the main thread alone (its task's stat), in ms: the thread that serves requests, and the critical path of a start (parse workers run beside it). */
function mainCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Pages of the process by kind (/proc/<pid>/status), MB: anonymous (heaps, buffers) and file-backed (code, mapped files). */
function rssKinds(pid: number): { anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? "0");
  return { anon: Math.round(kb("RssAnon") / 1024), file: Math.round((kb("RssFile") + kb("RssShmem")) / 1024) };
}

interface Probe {
  readonly rss: number;
  readonly heapTotal: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly arrayBuffers: number;
  readonly spaces: Readonly<Record<string, { readonly size: number; readonly used: number }>>;
  /** With --breakdown-gc: the same after a full collection. */
  readonly afterGc?: Omit<Probe, "afterGc">;
}

/** One reading of the preloaded probe: SIGUSR2, then its line in the probe file. */
async function probe(pid: number, file: string): Promise<Probe> {
  const before = (await fs.readFile(file, "utf8").catch(() => "")).split("\n").filter(Boolean).length;
  process.kill(pid, "SIGUSR2");
  for (let waited = 0; waited < 5000; waited += 10) {
    const lines = (await fs.readFile(file, "utf8").catch(() => "")).split("\n").filter(Boolean);
    if (lines.length > before) return JSON.parse(lines[before]!) as Probe;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("memory probe did not answer");
}

function describe(p: Probe, pid: number): string {
  const kinds = rssKinds(pid);
  const space = (name: string): string => `${p.spaces[name]?.used ?? 0}/${p.spaces[name]?.size ?? 0}`;
  const gc = p.afterGc === undefined ? "" : `; after a full GC: rss ${p.afterGc.rss} heap ${p.afterGc.heapUsed}/${p.afterGc.heapTotal} external ${p.afterGc.external} (arrayBuffers ${p.afterGc.arrayBuffers})`;
  return `rss ${p.rss} (anon ${kinds.anon}, file ${kinds.file}) heap ${p.heapUsed}/${p.heapTotal} [new ${space("new")} old ${space("old")} code ${space("code")} lo ${space("large_object")}] external ${p.external} (arrayBuffers ${p.arrayBuffers})${gc}`;
}

async function start(dir: string, flags: readonly string[], tree: string, home: string): Promise<{ child: ChildProcess; base: string; ms: number; probeFile: string }> {
  const started = performance.now();
  const probeFile = path.join(home, "memory-probe.jsonl");
  await fs.mkdir(home, { recursive: true });
  const child = spawn(
    process.execPath,
    [
      ...(BREAKDOWN ? ["--import", PROBE] : []),
      ...(BREAKDOWN_GC ? ["--expose-gc"] : []),
      ...flags,
      path.join(dir, "dist/cli.js"),
      ...["--dcc", "maya", "--port", "0", "--skills-path", tree, "--embeddings", "none", "--no-watch", "--log-level", "info"],
    ],
    {
      env: { PATH: process.env.PATH ?? "", HOME: home, XDG_DATA_HOME: home, DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1", ...(BREAKDOWN ? { BENCH_MEMORY_PROBE: probeFile } : {}) },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const url = await servingUrl(child, "child");
  const base = url.replace(/\/mcp$/, "");
  for (;;) {
    if ((await fetch(`${base}/readyz`).catch(() => null))?.status === 200) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  return { child, base, ms: performance.now() - started, probeFile };
}

async function oneSearch(base: string): Promise<void> {
  const client = new Client({ name: "bench-starts", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  await client.callTool({ name: "recipes__search", arguments: { query: "bevel mesh" } });
  await client.close();
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.on("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

interface Start {
  readonly ms: number;
  readonly cpu: number;
  /** The main thread's CPU to ready. */
  readonly mainCpu: number;
  /** CPU by the second reading: the cache write and the search included. */
  readonly cpuAfter: number;
  readonly rssReady: number;
  readonly rssAfter: number;
  /** --breakdown: at ready, and at the second reading (1 s after the search by default). */
  readonly breakdown?: readonly [string, string];
}

async function measure(dir: string, flags: readonly string[], tree: string, home: string): Promise<Start> {
  const s = await start(dir, flags, tree, home);
  const cpu = cpuMs(s.child.pid!);
  const mainCpu = mainCpuMs(s.child.pid!);
  const rssReady = rssMb(s.child.pid!);
  const atReady = BREAKDOWN ? describe(await probe(s.child.pid!, s.probeFile), s.child.pid!) : "";
  if (values.idle !== true) await oneSearch(s.base);
  await new Promise((r) => setTimeout(r, Number(values["after-ms"])));
  const rssAfter = rssMb(s.child.pid!);
  const cpuAfter = cpuMs(s.child.pid!);
  const after = BREAKDOWN ? describe(await probe(s.child.pid!, s.probeFile), s.child.pid!) : "";
  await stop(s.child);
  return { ms: s.ms, cpu, mainCpu, cpuAfter, rssReady, rssAfter, ...(BREAKDOWN ? { breakdown: [atReady, after] as const } : {}) };
}

/** One restart under callgrind: the instructions of the main thread (callgrind's thread 1) and of the others, to ready. */
async function restartInstructions(dir: string, flags: readonly string[], tree: string, home: string, out: string): Promise<{ main: number; others: number }> {
  const child = spawn(
    "valgrind",
    ["--tool=callgrind", "--separate-threads=yes", "--dump-instr=no", `--callgrind-out-file=${out}`, process.execPath, ...flags, path.join(dir, "dist/cli.js"),
      ...["--dcc", "maya", "--port", "0", "--skills-path", tree, "--embeddings", "none", "--no-watch", "--log-level", "info"]],
    { env: { PATH: process.env.PATH ?? "", HOME: home, XDG_DATA_HOME: home, DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" }, stdio: ["ignore", "pipe", "ignore"] },
  );
  const base = (await servingUrl(child, "child")).replace(/\/mcp$/, "");
  // Polled every 100 ms of wall time (~2 ms of the daemon's own time under callgrind): the polls are a few % of the count, alike for every build.
  for (;;) {
    if ((await fetch(`${base}/readyz`).catch(() => null))?.status === 200) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  // Dumped at once: the search index fills after ready and is not part of the figure.
  await new Promise<void>((resolve, reject) => execFile("callgrind_control", ["-d", String(child.pid)], (error) => (error === null ? resolve() : reject(error))));
  const exited = new Promise((resolve) => child.on("exit", resolve));
  child.kill("SIGKILL");
  await exited;
  let main = 0;
  let others = 0;
  for (const file of readdirSync(path.dirname(out)).filter((f) => f.startsWith(`${path.basename(out)}.`))) {
    const total = Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(path.join(path.dirname(out), file), "utf8"))?.[1] ?? 0);
    if (/-01$/.test(file)) main += total;
    else others += total;
  }
  return { main, others };
}

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const work = await fs.mkdtemp(path.join(os.tmpdir(), "bench-starts-"));
try {
  const generate = values.shape === "flat" ? generateTree : generateStudioTree;
  const tree = await generate(path.join(work, "skills"), Number(values.skills), Number(values["recipes-per-skill"] ?? (values.shape === "flat" ? "20" : "10")));
  console.log(`tree (${values.shape}): ${tree.skills} skills, ${tree.recipes} recipes, ${(tree.bytes / 1e6).toFixed(1)} MB; ${values.callgrind === true ? "a restart under callgrind of each of" : `${PAIRS} alternating pairs of`} ${builds.map((b) => b.name).join(" / ")}`);
  if (values.callgrind === true) {
    const counts: Array<{ name: string; main: number; others: number }> = [];
    for (const build of builds) {
      const home = path.join(work, `home-${build.name}-callgrind`);
      const flags = nodeFlags.get(build.name) ?? [];
      // The cold start writes this build's parse cache (on its way out at the latest).
      await stop((await start(build.dir, flags, tree.root, home)).child);
      counts.push({ name: build.name, ...(await restartInstructions(build.dir, flags, tree.root, home, path.join(work, `callgrind-${build.name}.out`))) });
    }
    for (const c of counts) {
      console.log(`restart under callgrind ${c.name.padEnd(12)} main thread ${(c.main / 1e9).toFixed(3)} G instructions to ready (${(c.main / counts[0]!.main).toFixed(3)}× ${counts[0]!.name}), other threads ${(c.others / 1e9).toFixed(3)} G`);
    }
  } else {
    const results = new Map(builds.map((b) => [b.name, { cold: [] as Start[], restart: [] as Start[] }]));
    for (let pair = 0; pair < PAIRS; pair++) {
      const order = pair % 2 === 0 ? builds : [...builds].reverse();
      for (const build of order) {
        // A fresh state directory: the cold start parses every pack, its restart reads the parse cache.
        const home = path.join(work, `home-${build.name}-${pair}`);
        const flags = nodeFlags.get(build.name) ?? [];
        const cold = await measure(build.dir, flags, tree.root, home);
        const restart = await measure(build.dir, flags, tree.root, home);
        results.get(build.name)!.cold.push(cold);
        results.get(build.name)!.restart.push(restart);
        console.log(`pair ${pair + 1} ${build.name.padEnd(12)} cold ${cold.ms.toFixed(0)} ms, CPU ${cold.cpu.toFixed(0)} (main ${cold.mainCpu.toFixed(0)})/${cold.cpuAfter.toFixed(0)} ms (${cold.rssReady}/${cold.rssAfter} MB)  restart ${restart.ms.toFixed(0)} ms, CPU ${restart.cpu.toFixed(0)} (main ${restart.mainCpu.toFixed(0)})/${restart.cpuAfter.toFixed(0)} ms (${restart.rssReady}/${restart.rssAfter} MB)`);
        for (const [kind, s] of [["cold", cold], ["restart", restart]] as const) {
          if (s.breakdown === undefined) continue;
          console.log(`    ${kind.padEnd(7)} at ready:     ${s.breakdown[0]}`);
          console.log(`    ${kind.padEnd(7)} ${AFTER}: ${s.breakdown[1]}`);
        }
      }
    }
    const first = builds[0]!.name;
    for (const kind of ["cold", "restart"] as const) {
      const peer = median(results.get(first)![kind].map((s) => s.ms));
      for (const build of builds) {
        const runs = results.get(build.name)![kind];
        const ms = median(runs.map((s) => s.ms));
        const cpu = median(runs.map((s) => s.cpu));
        const peerCpu = median(results.get(first)![kind].map((s) => s.cpu));
        const mainCpu = median(runs.map((s) => s.mainCpu));
        const peerMainCpu = median(results.get(first)![kind].map((s) => s.mainCpu));
        const cpuAfter = median(runs.map((s) => s.cpuAfter));
        const peerCpuAfter = median(results.get(first)![kind].map((s) => s.cpuAfter));
        console.log(
          `${kind.padEnd(7)} ${build.name.padEnd(12)} median ${ms.toFixed(0)} ms (${(ms / peer).toFixed(2)}× ${first}), CPU to ready ${cpu.toFixed(0)} ms (${(cpu / peerCpu).toFixed(2)}×), main thread ${mainCpu.toFixed(0)} ms (${(mainCpu / peerMainCpu).toFixed(2)}×), by the second reading ${cpuAfter.toFixed(0)} ms (${(cpuAfter / peerCpuAfter).toFixed(2)}×), RSS at ready ${median(runs.map((s) => s.rssReady))} MB, ${AFTER} ${median(runs.map((s) => s.rssAfter))} MB`,
        );
      }
    }
  }
} finally {
  await fs.rm(work, { recursive: true, force: true });
}
