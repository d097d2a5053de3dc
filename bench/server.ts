/**
 * bench/server.ts — server CPU per tool call of the daemon against a bare
 * server of its own SDK line, built so that it cannot flatter the daemon:
 *
 * - The bare servers (bench/lib/bare-server.ts: fastify + SDK 1.32.2's
 *   low-level Server and StreamableHTTPServerTransport; fastify + the v2
 *   SDK's createMcpHandler) are bundled into directories under .bench-tmp/
 *   holding a clean `npm install --prefix` of that line's SDK (its declared
 *   dependencies at their newest matching versions) and fastify, never the
 *   project's node_modules: a slow dependency the project pins cannot slow
 *   the peer too. Each answers, as constants, the bytes the daemon answered
 *   for the same recipes__search / recipes__get call (captured first).
 * - The load comes from several worker threads (--workers × --clients SDK
 *   clients, each on its own session in the 2025 era), after a warm-up
 *   round, so that one client thread's event loop does not set the pace.
 *   Each cell prints which side was the cap: the server's main thread busy
 *   near a full core, or a client thread's event loop near full.
 * - The judged figure is the server process's CPU (user + system of all its
 *   threads, /proc/PID/stat) per call; calls/s is printed beside it.
 * - Both eras (1.32.2 clients on 2025-11-25 sessions; v2 clients pinned to
 *   2026-07-28), the daemon at its default flags (`--embeddings none` and a
 *   port), on generated catalogs of each --recipes size.
 * - Cells alternate in rounds (bare search, daemon search, bare get, daemon
 *   get, the baseline's cells with --baseline), the order rotating each
 *   round: this machine's speed drifts over tens of seconds and is shared.
 *   Per-round ratios are printed beside the pooled one.
 *
 *   npm run bench:server -- [--recipes 2000,20000] [--recipes-per-skill 10] [--eras legacy,modern]
 *                           [--workers 4] [--clients 2] [--seconds 2] [--rounds 6] [--warmup 1]
 *                           [--baseline path/to/cli.js] [--cpu-prof DIR] [--list]
 *
 * --baseline starts a second daemon from another build (a copy of dist/ and
 * package.json beside a node_modules it can resolve, outside the worktree)
 * and adds its cells to each round: an alternating A/B of two builds.
 * --cpu-prof DIR runs the daemons and bare servers under `node --cpu-prof`
 * and writes DIR/windows.json (each cell's span on the profiles' clock) for
 * bench/profile-layers.ts. --list: recipes__list of every skill read a
 * window at a time (each later window against the first).
 *
 * Run `npm run build` first (the daemon runs from dist/). Prints figures, asserts nothing.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { closeClients, connectClients, connectModernClients, percentile } from "./lib/clients.js";
import { benchQueries, generateTree, recipeName } from "./lib/generate.js";
import type { CellReport, LoadCommand, LoadWorkerData } from "./lib/load-worker.js";
import { servingUrl } from "./lib/serving-url.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    recipes: { type: "string", default: "2000,20000" },
    "recipes-per-skill": { type: "string", default: "10" },
    eras: { type: "string", default: "legacy,modern" },
    workers: { type: "string", default: "4" },
    clients: { type: "string", default: "2" },
    seconds: { type: "string", default: "2" },
    rounds: { type: "string", default: "6" },
    warmup: { type: "string", default: "1" },
    baseline: { type: "string" },
    "cpu-prof": { type: "string" },
    list: { type: "boolean", default: false },
  },
});
const wholeNumber = (name: string, min: number): number => {
  const n = Number(values[name as keyof typeof values]);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name} must be a whole number ≥ ${min}`);
    process.exit(2);
  }
  return n;
};
const SIZES = String(values.recipes).split(",").map(Number);
const PER_SKILL = wholeNumber("recipes-per-skill", 1);
const ERAS = String(values.eras).split(",").filter((era): era is "legacy" | "modern" => era === "legacy" || era === "modern");
const WORKERS = wholeNumber("workers", 1);
const CLIENTS = wholeNumber("clients", 1);
const SECONDS = Number(values.seconds);
const ROUNDS = wholeNumber("rounds", 1);
const WARMUP = Number(values.warmup);
const PROFILE_DIR = values["cpu-prof"] === undefined ? undefined : path.resolve(values["cpu-prof"]);
const PROFILE_FLAGS = PROFILE_DIR === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`];
/** Linux reports /proc CPU times in USER_HZ ticks, 100 a second on every mainstream build. */
const CLOCK_TICKS = 100;
/** The bare servers' clean installs: the SDK line's package (its dependencies resolved fresh) and the project's fastify. */
const BARE_DEPS = {
  legacy: ["@modelcontextprotocol/sdk@1.32.2", "fastify@5.12.8"],
  modern: ["@modelcontextprotocol/server@2.4.0", "fastify@5.12.8"],
} as const;
const BARE_DIR = path.join(ROOT, ".bench-tmp/bare-deps");

const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);
const children = new Set<ChildProcess>();

function rssMb(pid: number): number {
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "0") / 1024);
}

/** User + system CPU (ms) of a process, all its threads (`/proc/PID/stat`), or of one thread (`/proc/PID/task/TID/stat`). */
function cpuMs(pid: number, tid?: number): number {
  const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.on("exit", resolve));
  child.kill("SIGTERM");
  await exited;
  children.delete(child);
}

/** A clean install of one line's packages and the bare server bundled beside it, made once and kept in .bench-tmp/. */
async function bareBundle(era: "legacy" | "modern"): Promise<string> {
  const dir = path.join(BARE_DIR, era);
  const bundle = path.join(dir, "bare-server.mjs");
  const stamp = path.join(dir, "installed.json");
  const wanted = JSON.stringify(BARE_DEPS[era]);
  if (!existsSync(stamp) || readFileSync(stamp, "utf8") !== wanted) {
    await fs.rm(dir, { recursive: true, force: true });
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, "package.json"), JSON.stringify({ private: true, type: "module" }));
    console.log(`installing the ${era} bare server's dependencies into ${path.relative(ROOT, dir)}: ${BARE_DEPS[era].join(" ")}`);
    execFileSync("npm", ["install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error", ...BARE_DEPS[era]], { stdio: "inherit" });
    await fs.writeFile(stamp, wanted);
  }
  execFileSync(path.join(ROOT, "node_modules/.bin/esbuild"), [path.join(ROOT, "bench/lib/bare-server.ts"), "--bundle", "--platform=node", "--format=esm", "--packages=external", `--outfile=${bundle}`, "--log-level=warning"], { stdio: "inherit" });
  const zod = JSON.parse(readFileSync(path.join(dir, "node_modules/zod/package.json"), "utf8")) as { version: string };
  console.log(`bare ${era} server: ${path.relative(ROOT, bundle)} (its own install; zod ${zod.version})`);
  return bundle;
}

/** The load threads' module, compiled once so that they run under plain node (worker threads do not inherit tsx's loader). */
function loadWorkerBundle(): string {
  const bundle = path.join(ROOT, ".bench-tmp/load-worker.mjs");
  execFileSync(path.join(ROOT, "node_modules/.bin/esbuild"), [path.join(ROOT, "bench/lib/load-worker.ts"), "--bundle", "--platform=node", "--format=esm", "--packages=external", `--outfile=${bundle}`, "--log-level=warning"], { stdio: "inherit" });
  return bundle;
}

/** The daemon at its default flags: a port, the tree, no embeddings; a fresh HOME. */
async function startDaemon(cli: string, tree: string, home: string): Promise<{ child: ChildProcess; url: string; readyMs: number }> {
  await fs.mkdir(home, { recursive: true });
  const started = performance.now();
  const child = spawn(process.execPath, [...PROFILE_FLAGS, cli, "--dcc", "maya", "--port", "0", "--skills-path", tree, "--embeddings", "none"], {
    env: { PATH: process.env.PATH ?? "", HOME: home, XDG_DATA_HOME: home, DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.add(child);
  const url = await servingUrl(child, "daemon");
  const base = url.replace(/\/mcp$/, "");
  for (;;) {
    if ((await fetch(`${base}/readyz`).catch(() => null))?.status === 200) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { child, url, readyMs: performance.now() - started };
}

async function startBare(bundle: string, era: string, constantsFile: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...PROFILE_FLAGS, bundle, era, constantsFile], { stdio: ["ignore", "pipe", "inherit"], cwd: path.dirname(bundle) });
  children.add(child);
  return { child, url: await servingUrl(child, "bare server") };
}

/** The load threads: each holds its clients to every target and runs a cell when told. */
class LoadThreads {
  readonly #workers: Worker[];

  constructor(bundle: string, era: "legacy" | "modern", skills: number) {
    this.#workers = Array.from({ length: WORKERS }, (_, w) => {
      const data: LoadWorkerData = { era, clients: CLIENTS, firstClient: w * CLIENTS, skills, perSkill: PER_SKILL };
      const worker = new Worker(bundle, { workerData: data });
      worker.on("error", (error) => {
        console.error("load thread failed:", error);
        process.exitCode = 1;
      });
      return worker;
    });
  }

  #all<T>(command: LoadCommand, reply: string): Promise<T[]> {
    return Promise.all(
      this.#workers.map(
        (worker) =>
          new Promise<T>((resolve) => {
            const on = (message: { type: string; report?: T }): void => {
              if (message.type !== reply) return;
              worker.off("message", on);
              resolve(message.report as T);
            };
            worker.on("message", on);
            worker.postMessage(command);
          }),
      ),
    );
  }

  connect(targets: Record<string, string>): Promise<unknown[]> {
    return this.#all({ type: "connect", targets }, "connected");
  }

  run(target: string, tool: "search" | "get", seconds: number, round: number): Promise<CellReport[]> {
    return this.#all({ type: "run", target, tool, seconds, round }, "cell");
  }

  async close(): Promise<void> {
    await this.#all({ type: "close" }, "closed");
    await Promise.all(this.#workers.map((w) => w.terminate()));
  }
}

interface Cell {
  readonly calls: number;
  readonly errors: number;
  readonly seconds: number;
  readonly cpuMs: number;
  /** The server's main thread's CPU over the cell's wall time. */
  readonly serverBusy: number;
  /** The busiest load thread's event-loop utilisation. */
  readonly clientBusy: number;
  readonly latencies: readonly number[];
}

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? Number.NaN : sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function pooled(cells: readonly Cell[]): { perCall: number; callsPerSecond: number; p50: number; p99: number; errors: number; serverBusy: number; clientBusy: number } {
  const calls = cells.reduce((s, c) => s + c.calls, 0);
  const seconds = cells.reduce((s, c) => s + c.seconds, 0);
  const latencies = cells.flatMap((c) => c.latencies).sort((a, b) => a - b);
  return {
    perCall: cells.reduce((s, c) => s + c.cpuMs, 0) / Math.max(1, calls),
    callsPerSecond: calls / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors: cells.reduce((s, c) => s + c.errors, 0),
    serverBusy: median(cells.map((c) => c.serverBusy)),
    clientBusy: median(cells.map((c) => c.clientBusy)),
  };
}

const cellSpans: Array<{ size: number; era: string; cell: string; pid: number; startUs: number; endUs: number; calls: number; cpuMs: number }> = [];
const work = await fs.mkdtemp(path.join(os.tmpdir(), "bench-server-"));
const commit = (() => {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
})();
try {
  console.log(
    `bench:server at ${commit}, ${new Date().toISOString()}: ${WORKERS} load threads × ${CLIENTS} clients, ${ROUNDS} rounds of ${SECONDS} s per cell after a ${WARMUP} s warm-up round; ` +
      `load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`,
  );
  const bundles = Object.fromEntries(await Promise.all(ERAS.map(async (era) => [era, await bareBundle(era)] as const))) as Record<"legacy" | "modern", string>;
  const workerBundle = loadWorkerBundle();
  const queries = benchQueries(2000);
  const summary: string[] = [];
  for (const size of SIZES) {
    const skills = Math.ceil(size / PER_SKILL);
    const tree = await generateTree(path.join(work, `skills-${size}`), skills, PER_SKILL);
    const daemons: Record<string, Awaited<ReturnType<typeof startDaemon>>> = {
      daemon: await startDaemon(path.join(ROOT, "dist/cli.js"), tree.root, path.join(work, `home-${size}`)),
    };
    if (values.baseline !== undefined) daemons.baseline = await startDaemon(path.resolve(values.baseline), tree.root, path.join(work, `home-base-${size}`));
    console.log(
      `\n${tree.skills} skills × ${PER_SKILL} = ${tree.recipes} recipes (${(tree.bytes / 1e6).toFixed(1)} MB): ready in ` +
        Object.entries(daemons).map(([name, d]) => `${name} ${d.readyMs.toFixed(0)} ms`).join(", "),
    );
    for (const era of ERAS) {
      // The bare server's constants: what the daemon answered for the first
      // search and get. Every daemon gets the same probe, so that no slot
      // alone carries its state (a session, an index built at once by the
      // first search instead of in slices, the heap that leaves behind).
      const answers = new Map<string, Record<string, unknown>>();
      for (const [name, d] of Object.entries(daemons)) {
        const [probe] = era === "modern" ? await connectModernClients(d.url, 1) : await connectClients(d.url, 1);
        answers.set(name, {
          recipes__search: await probe!.callTool({ name: "recipes__search", arguments: { query: queries[0]!, limit: 10 } }),
          recipes__get: await probe!.callTool({ name: "recipes__get", arguments: { skill: "bench-skill-0", anchor: recipeName(0, 0) } }),
        });
        await closeClients([probe!]);
      }
      const constants = answers.get("daemon")!;
      const constantsFile = path.join(work, `constants-${size}-${era}.json`);
      await fs.writeFile(constantsFile, JSON.stringify(constants));
      const bare = await startBare(bundles[era], era, constantsFile);
      const targets: Record<string, { url: string; pid: number }> = { bare: { url: bare.url, pid: bare.child.pid! } };
      for (const [name, d] of Object.entries(daemons)) targets[name] = { url: d.url, pid: d.child.pid! };
      const threads = new LoadThreads(workerBundle, era, skills);
      await threads.connect(Object.fromEntries(Object.entries(targets).map(([name, t]) => [name, t.url])));
      const cellNames = Object.keys(targets).flatMap((target) => (["search", "get"] as const).map((tool) => ({ target, tool, key: `${target} ${tool}` })));
      const cells = new Map<string, Cell[]>(cellNames.map((c) => [c.key, []]));
      const runCell = async (target: string, tool: "search" | "get", seconds: number, round: number): Promise<Cell> => {
        const pid = targets[target]!.pid;
        const cpu0 = cpuMs(pid);
        const main0 = cpuMs(pid, pid);
        const startUs = nowUs();
        const reports = await threads.run(target, tool, seconds, round);
        const endUs = nowUs();
        const spent = cpuMs(pid) - cpu0;
        const wallMs = (endUs - startUs) / 1000;
        const cell: Cell = {
          calls: reports.reduce((s, r) => s + r.calls, 0),
          errors: reports.reduce((s, r) => s + r.errors, 0),
          seconds: wallMs / 1000,
          cpuMs: spent,
          serverBusy: (cpuMs(pid, pid) - main0) / wallMs,
          clientBusy: Math.max(...reports.map((r) => r.elu)),
          latencies: reports.flatMap((r) => r.latencies),
        };
        cellSpans.push({ size, era, cell: `${target} ${tool}`, pid, startUs, endUs, calls: cell.calls, cpuMs: spent });
        return cell;
      };
      // Warm-up: every cell once, not counted (JIT, the daemon's lazily built state, the clients' own warm-up).
      for (const c of cellNames) await runCell(c.target, c.tool, WARMUP, ROUNDS);
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < cellNames.length; k++) {
          const c = cellNames[(k + round) % cellNames.length]!;
          cells.get(c.key)!.push(await runCell(c.target, c.tool, SECONDS, round));
        }
      }
      await threads.close();
      const label = era === "modern" ? "2026-07-28 (v2 clients pinned, v2 line)" : "2025-11-25 (1.32.2 clients, one session each, 1.32.2 line)";
      console.log(`\n${tree.recipes} recipes, ${label}: ${WORKERS * CLIENTS} closed-loop clients`);
      console.log(`${"cell".padEnd(16)} ${"calls/s".padStart(8)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} errors  ${"CPU/call ms".padStart(11)}  server main thread / busiest client thread busy`);
      for (const c of cellNames) {
        const p = pooled(cells.get(c.key)!);
        console.log(
          `${c.key.padEnd(16)} ${p.callsPerSecond.toFixed(0).padStart(8)} ${p.p50.toFixed(2).padStart(7)} ${p.p99.toFixed(2).padStart(7)} ${String(p.errors).padStart(6)}  ${p.perCall.toFixed(3).padStart(11)}  ` +
            `${(p.serverBusy * 100).toFixed(0).padStart(3)}% / ${(p.clientBusy * 100).toFixed(0).padStart(3)}% → ${p.clientBusy > 0.9 && p.clientBusy >= p.serverBusy ? "clients capped" : p.serverBusy > 0.85 ? "server capped" : "neither capped (the cores are shared)"}`,
        );
      }
      for (const name of Object.keys(daemons)) {
        const parts = (["search", "get"] as const).map((tool) => {
          const mine = cells.get(`${name} ${tool}`)!;
          const peer = cells.get(`bare ${tool}`)!;
          const perRound = mine.map((cell, r) => cell.cpuMs / Math.max(1, cell.calls) / (peer[r]!.cpuMs / Math.max(1, peer[r]!.calls)));
          const a = pooled(mine);
          const b = pooled(peer);
          return (
            `${tool} CPU/call ${(a.perCall / b.perCall).toFixed(2)}× (rounds ${Math.min(...perRound).toFixed(2)}–${Math.max(...perRound).toFixed(2)}, median ${median(perRound).toFixed(2)}), ` +
            `calls/s ${(a.callsPerSecond / b.callsPerSecond).toFixed(2)}×`
          );
        });
        const line = `${tree.recipes} recipes, ${era}, ${name} vs bare: ${parts.join("; ")}`;
        console.log(line);
        summary.push(line);
      }
      if (values.baseline !== undefined) {
        const parts = (["search", "get"] as const).map((tool) => {
          const mine = cells.get(`daemon ${tool}`)!;
          const peer = cells.get(`baseline ${tool}`)!;
          const perRound = mine.map((cell, r) => cell.cpuMs / Math.max(1, cell.calls) / (peer[r]!.cpuMs / Math.max(1, peer[r]!.calls)));
          return `${tool} CPU/call ${(pooled(mine).perCall / pooled(peer).perCall).toFixed(2)}× (rounds ${Math.min(...perRound).toFixed(2)}–${Math.max(...perRound).toFixed(2)}, lower in ${perRound.filter((x) => x < 1).length} of ${perRound.length})`;
        });
        const line = `${tree.recipes} recipes, ${era}, daemon vs baseline: ${parts.join("; ")}`;
        console.log(line);
        summary.push(line);
      }
      await stop(bare.child);
    }
    console.log(`RSS after load: ${Object.entries(daemons).map(([name, d]) => `${name} ${rssMb(d.child.pid!)} MB`).join(", ")}`);

    if (values.list === true) {
      // A long answer read a window at a time: the first window's
      // call builds and renders the whole list, the later ones only cut it.
      const [reader] = await connectClients(daemons.daemon!.url, 1);
      const windows: number[] = [];
      let total = 0;
      for (let start: number | null = 0; start !== null; ) {
        const t0 = performance.now();
        const result = (await reader!.callTool({ name: "recipes__list", arguments: { resultStart: start, resultEnd: start + 8000 } })) as { content: Array<{ text: string }> };
        windows.push(performance.now() - t0);
        const page = result.content[1] === undefined ? null : (JSON.parse(result.content[1].text) as { totalChars: number; nextResultStart: number | null });
        total = page?.totalChars ?? result.content[0]!.text.length;
        start = page?.nextResultStart ?? null;
      }
      await closeClients([reader!]);
      const later = windows.slice(1);
      const laterMean = later.length > 0 ? later.reduce((a, b) => a + b, 0) / later.length : Number.NaN;
      console.log(
        `recipes__list of ${skills} skills (${(total / 1000).toFixed(0)} k chars) in ${windows.length} windows: first ${windows[0]!.toFixed(1)} ms, ` +
          `later ${laterMean.toFixed(1)} ms per window (mean, ${(laterMean / windows[0]!).toFixed(2)}× the first)`,
      );
    }
    for (const d of Object.values(daemons)) await stop(d.child);
  }
  console.log(`\nsummary (${commit}; target: CPU/call ≤ 1.5× the bare server of the same line):\n  ${summary.join("\n  ")}`);
  if (PROFILE_DIR !== undefined) {
    await fs.writeFile(path.join(PROFILE_DIR, "windows.json"), JSON.stringify(cellSpans));
    console.log(`profiles and windows.json in ${PROFILE_DIR}: npx tsx bench/profile-layers.ts ${PROFILE_DIR}`);
  }
} finally {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  await fs.rm(work, { recursive: true, force: true });
}
