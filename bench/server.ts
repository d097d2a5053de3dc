/**
 * bench/server.ts — the daemon at scale (issue 3):
 *   1. time to ready and RSS with 1,000 generated skills / 20,000 recipes
 *      (cold, then a restart on the same tree), --starts times each (3): one
 *      start on this machine varies by ±20% with the time of day, so the
 *      median is printed with every run;
 *   2. tools/call recipes__search and recipes__get throughput, p50/p99 and
 *      server CPU per call (from /proc, the figure clients sharing a machine
 *      cannot distort) at 1, 8 and 32 concurrent clients, for each protocol
 *      era: 1.32.2 clients on a 2025 session and v2 clients pinned to
 *      2026-07-28, each side by side with a bare fastify server of the same
 *      SDK leg (bench/lib/bare-server.ts, bundled and run under plain node)
 *      answering, as constants, the bytes recipe-server answered for the
 *      first search and get. Each level's seconds are cut into rounds that
 *      alternate bare, search and get: this machine's speed drifts by ±20%
 *      over tens of seconds, and one long cell per server charged that drift
 *      to whichever ran in the slow stretch;
 *   3. recipes__list of every skill read a window at a time: each later
 *      window's call against the first's (which builds and renders the list).
 *
 *   npm run bench:server -- [--skills 1000] [--recipes-per-skill 20] [--seconds 10] [--rounds 6] [--starts 3]
 *                           [--concurrency 1,8,32] [--eras legacy,modern] [--legacy-transports] [--cpu-prof DIR]
 *                           [--baseline path/to/cli.js]
 *
 *   --baseline starts a second recipe-server from another build (a copy of
 *   dist/ from before a change, kept under node_modules/.cache so that its
 *   imports resolve) and adds its search and get cells to each round's
 *   rotation: an alternating A/B of two builds in one run.
 *
 *   --cpu-prof DIR starts recipe-server and the bare servers under
 *   `node --cpu-prof` writing into DIR, and writes DIR/windows.json: each
 *   load cell's span on the monotonic clock the profiles use, so that
 *   bench/profile-layers.ts can charge each cell's samples to layers.
 *
 *   --legacy-transports also sets the two ways of serving 2025 sessions side
 *   by side, bare: the 1.32.2 transport and the v2 SDK's session transport.
 *
 * Both servers run as child processes from the built dist/ (run `npm run build`
 * first); the clients run here. Prints figures, asserts nothing.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { closeClients, combineLoads, connectClients, connectModernClients, runLoad, type LoadResult } from "./lib/clients.js";
import { benchQueries, generateTree, recipeName } from "./lib/generate.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    skills: { type: "string", default: "1000" },
    "recipes-per-skill": { type: "string", default: "20" },
    seconds: { type: "string", default: "10" },
    rounds: { type: "string", default: "6" },
    starts: { type: "string", default: "3" },
    concurrency: { type: "string", default: "1,8,32" },
    eras: { type: "string", default: "legacy,modern" },
    "legacy-transports": { type: "boolean", default: false },
    "cpu-prof": { type: "string" },
    baseline: { type: "string" },
  },
});
const SKILLS = Number(values.skills);
const PER_SKILL = Number(values["recipes-per-skill"]);
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) {
  console.error(`--rounds must be a whole number ≥ 1, not ${values.rounds}`);
  process.exit(2);
}
const STARTS = Number(values.starts);
if (!Number.isInteger(STARTS) || STARTS < 1) {
  console.error(`--starts must be a whole number ≥ 1, not ${values.starts}`);
  process.exit(2);
}
const LEVELS = String(values.concurrency).split(",").map(Number);
const ERAS = String(values.eras).split(",").filter((era): era is "legacy" | "modern" => era === "legacy" || era === "modern");
/** Linux reports /proc CPU times in USER_HZ ticks, 100 a second on every mainstream build. */
const CLOCK_TICKS = 100;
const QUERIES = benchQueries(2000);
const PROFILE_DIR = values["cpu-prof"] === undefined ? undefined : path.resolve(values["cpu-prof"]);
/** node flags of every server child: a CPU profile each, written at exit. */
const PROFILE_FLAGS = PROFILE_DIR === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`];
/** Each load cell's span in µs of the monotonic clock (what V8 stamps profile samples with). */
const cellSpans: Array<{ era: string; clients: number; cell: string; pid: number; startUs: number; endUs: number; calls: number; cpuMs: number }> = [];
const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? "0");
  return Math.round(kb / 1024);
}

/** Resolves with the first JSON line holding `key`, then drains stdout without keeping it. */
function waitForJsonLine(child: ChildProcess, key: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    const onData = (chunk: Buffer): void => {
      buffer += chunk.toString();
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      for (const line of lines) {
        try {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          if (key in parsed) {
            // The daemon logs a line per request: reading them here would
            // charge the server's log volume to the clients' CPU.
            child.stdout?.off("data", onData);
            child.stdout?.resume();
            return resolve(parsed);
          }
        } catch {
          /* not a JSON line */
        }
      }
    };
    child.stdout?.on("data", onData);
    child.on("exit", (code) => reject(new Error(`child exited ${code}`)));
  });
}

async function startRecipeServer(tree: string, dataDir: string, cli = path.join(ROOT, "dist/cli.js")): Promise<{ child: ChildProcess; url: string; readyMs: number }> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...PROFILE_FLAGS, cli, "--dcc", "maya", "--port", "0", "--skills-path", tree, "--embeddings", "none", "--no-watch", "--log-level", "info", "--max-concurrent-per-session", "64"],
    { env: { PATH: process.env.PATH ?? "", HOME: dataDir, XDG_DATA_HOME: dataDir, DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" }, stdio: ["ignore", "pipe", "inherit"] },
  );
  children.add(child);
  const line = await waitForJsonLine(child, "url");
  const url = String(line.url);
  const base = url.replace(/\/mcp$/, "");
  for (;;) {
    const response = await fetch(`${base}/readyz`).catch(() => null);
    if (response?.status === 200) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { child, url, readyMs: performance.now() - started };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.on("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

function row(label: string, r: LoadResult, cpuPerCall: number): string {
  return (
    `${label.padEnd(34)} ${String(r.clients).padStart(3)}  ${r.callsPerSecond.toFixed(0).padStart(7)}/s  p50 ${r.p50.toFixed(2).padStart(7)} ms  ` +
    `p99 ${r.p99.toFixed(2).padStart(7)} ms  errors ${r.errors}  ${cpuPerCall.toFixed(3).padStart(7)} ms`
  );
}

interface Cell {
  readonly result: LoadResult;
  readonly cpuMs: number;
}

function combineCells(cells: readonly Cell[]): { result: LoadResult; perCall: number } {
  const result = combineLoads(cells.map((c) => c.result));
  return { result, perCall: cells.reduce((sum, c) => sum + c.cpuMs, 0) / Math.max(1, result.calls) };
}

/** User + system CPU of a process so far (ms), from /proc: what the server spent, whatever the clients did. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at field 3.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** The bare server compiled once, so it runs under plain node as the daemon does (not under tsx). */
async function bundleBare(outfile: string): Promise<void> {
  const child = spawn(path.join(ROOT, "node_modules/.bin/esbuild"), [path.join(ROOT, "bench/lib/bare-server.ts"), "--bundle", "--platform=node", "--format=esm", "--packages=external", `--outfile=${outfile}`, "--log-level=warning"], { stdio: "inherit", cwd: ROOT });
  const code = await new Promise((resolve) => child.on("exit", resolve));
  if (code !== 0) throw new Error(`esbuild exited ${String(code)}`);
}

const work = await fs.mkdtemp(path.join(os.tmpdir(), "bench-server-"));
/** Every child started, so that a failed run leaves no server behind. */
const children = new Set<ChildProcess>();
try {
  const tree = await generateTree(path.join(work, "skills"), SKILLS, PER_SKILL);
  console.log(`tree: ${tree.skills} skills, ${tree.recipes} recipes, ${(tree.bytes / 1e6).toFixed(1)} MB of SKILL.md + YAML`);
  // Each cold start gets a state directory of its own (no parse cache); its restart reuses it.
  const starts: { cold: number; coldRss: number; restart: number; restartRss: number }[] = [];
  let server: Awaited<ReturnType<typeof startRecipeServer>> | undefined;
  for (let i = 0; i < STARTS; i++) {
    const dataDir = path.join(work, `data-${i}`);
    const cold = await startRecipeServer(tree.root, dataDir);
    const coldRss = rssMb(cold.child.pid!);
    await stop(cold.child);
    const warm = await startRecipeServer(tree.root, dataDir);
    starts.push({ cold: cold.readyMs, coldRss, restart: warm.readyMs, restartRss: rssMb(warm.child.pid!) });
    // The last restart serves the load below.
    if (i === STARTS - 1) server = warm;
    else await stop(warm.child);
  }
  const median = (xs: number[]): number => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  const each = (pick: (s: (typeof starts)[number]) => number, unit: string): string => starts.map((s) => `${pick(s).toFixed(0)}${unit}`).join(", ");
  console.log(`recipe-server cold start → ready: median ${median(starts.map((s) => s.cold)).toFixed(0)} ms (${each((s) => s.cold, " ms")}), RSS ${each((s) => s.coldRss, " MB")}`);
  console.log(`recipe-server restart    → ready: median ${median(starts.map((s) => s.restart)).toFixed(0)} ms (${each((s) => s.restart, " ms")}), RSS ${each((s) => s.restartRss, " MB")}`);
  if (server === undefined) throw new Error("no start was measured");
  const baseline = values.baseline === undefined ? undefined : await startRecipeServer(tree.root, path.join(work, "data-baseline"), path.resolve(values.baseline));

  // Both eras, each against a bare server of its own SDK leg answering, as
  // constants, the bytes recipe-server answered for the first search and get.
  // Inside the repo, so that its imports resolve against node_modules.
  const bareBundle = path.join(ROOT, "node_modules/.cache/recipe-server-bench/bare-server.mjs");
  await bundleBare(bareBundle);
  const searchCall = (c: number, i: number, offset: number) => ({
    name: "recipes__search",
    arguments: { query: QUERIES[(c * 397 + i + offset) % QUERIES.length]!, limit: 10 },
  });
  const getCall = (c: number, i: number, offset: number, round: number) => {
    const skill = (c * 31 + i + offset) % SKILLS;
    return { name: "recipes__get", arguments: { skill: `bench-skill-${skill}`, anchor: recipeName(skill, (i + round) % PER_SKILL) } };
  };
  const ratios: string[] = [];
  for (const era of ERAS) {
    const connect = (url: string, count: number) => (era === "modern" ? connectModernClients(url, count) : connectClients(url, count));
    const [probe] = await connect(server.url, 1);
    const constants = { recipes__search: await probe!.callTool(searchCall(0, 0, 0)), recipes__get: await probe!.callTool(getCall(0, 0, 0, 0)) };
    await closeClients([probe!]);
    const constantsFile = path.join(work, `constants-${era}.json`);
    await fs.writeFile(constantsFile, JSON.stringify(constants));
    const bare = spawn(process.execPath, [...PROFILE_FLAGS, bareBundle, era, constantsFile], { stdio: ["ignore", "pipe", "inherit"], cwd: ROOT });
    children.add(bare);
    const bareUrl = String((await waitForJsonLine(bare, "url")).url);
    console.log(`\n${era === "modern" ? "2026-07-28 (v2 client pinned, v2 SDK leg)" : "2025-11-25 (1.32.2 client, stateful 1.32.2 leg)"}: ` +
      `closed-loop load, ${SECONDS} s per cell in ${ROUNDS} alternating rounds; server CPU from /proc per call`);
    console.log(`${"tool".padEnd(34)} cli   calls/s   latency                                   server CPU/call`);
    for (const level of LEVELS) {
      const bareClients = await connect(bareUrl, level);
      const clients = await connect(server.url, level);
      const baseClients = baseline === undefined ? [] : await connect(baseline.url, level);
      const slice = SECONDS / ROUNDS;
      const cells = { bare: [] as Cell[], search: [] as Cell[], get: [] as Cell[], baseSearch: [] as Cell[], baseGet: [] as Cell[] };
      const measure = async (pid: number, load: () => Promise<LoadResult>, cell: string): Promise<Cell> => {
        const before = cpuMs(pid);
        const startUs = nowUs();
        const result = await load();
        const endUs = nowUs();
        const spent = cpuMs(pid) - before;
        cellSpans.push({ era, clients: level, cell, pid, startUs, endUs, calls: result.calls, cpuMs: spent });
        return { result, cpuMs: spent };
      };
      for (let round = 0; round < ROUNDS; round++) {
        const offset = round * 7919;
        const order: Array<() => Promise<void>> = [
          async () => void cells.bare.push(await measure(bare.pid!, () => runLoad(bareClients, slice, (c) => (c % 2 === 0 ? searchCall(0, 0, 0) : getCall(0, 0, 0, 0))), "bare")),
          async () => void cells.search.push(await measure(server.child.pid!, () => runLoad(clients, slice, (c, i) => searchCall(c, i, offset)), "search")),
          async () => void cells.get.push(await measure(server.child.pid!, () => runLoad(clients, slice, (c, i) => getCall(c, i, offset, round)), "get")),
        ];
        if (baseline !== undefined) {
          order.push(
            async () => void cells.baseSearch.push(await measure(baseline.child.pid!, () => runLoad(baseClients, slice, (c, i) => searchCall(c, i, offset)), "base-search")),
            async () => void cells.baseGet.push(await measure(baseline.child.pid!, () => runLoad(baseClients, slice, (c, i) => getCall(c, i, offset, round)), "base-get")),
          );
        }
        // Each round starts with a different cell: what one cell leaves behind must not always fall on the same next one.
        for (let k = 0; k < order.length; k++) await order[(round + k) % order.length]!();
      }
      await closeClients(bareClients);
      await closeClients(clients);
      await closeClients(baseClients);
      const bareCell = combineCells(cells.bare);
      const search = combineCells(cells.search);
      const get = combineCells(cells.get);
      console.log(row(`bare ${era} leg, constant`, bareCell.result, bareCell.perCall));
      console.log(row("recipe-server recipes__search", search.result, search.perCall));
      console.log(row("recipe-server recipes__get", get.result, get.perCall));
      if (baseline !== undefined) {
        const baseSearch = combineCells(cells.baseSearch);
        const baseGet = combineCells(cells.baseGet);
        console.log(row("baseline recipes__search", baseSearch.result, baseSearch.perCall));
        console.log(row("baseline recipes__get", baseGet.result, baseGet.perCall));
        const pairs = (a: readonly Cell[], b: readonly Cell[]): string => a.map((cell, k) => (cell.cpuMs / Math.max(1, cell.result.calls) / (b[k]!.cpuMs / Math.max(1, b[k]!.result.calls))).toFixed(2)).join(" ");
        ratios.push(
          `${era} ${level} client(s), this build vs baseline: CPU/call search ${(search.perCall / baseSearch.perCall).toFixed(3)}× (rounds ${pairs(cells.search, cells.baseSearch)}), ` +
            `get ${(get.perCall / baseGet.perCall).toFixed(3)}× (rounds ${pairs(cells.get, cells.baseGet)}); calls/s search ${(search.result.callsPerSecond / baseSearch.result.callsPerSecond).toFixed(2)}×, get ${(get.result.callsPerSecond / baseGet.result.callsPerSecond).toFixed(2)}×`,
        );
      }
      ratios.push(
        `${era} ${level} client(s): calls/s search ${(search.result.callsPerSecond / bareCell.result.callsPerSecond).toFixed(2)}×, ` +
          `get ${(get.result.callsPerSecond / bareCell.result.callsPerSecond).toFixed(2)}× bare; CPU/call search ` +
          `${(search.perCall / bareCell.perCall).toFixed(2)}×, get ${(get.perCall / bareCell.perCall).toFixed(2)}× bare`,
      );
    }
    await stop(bare);
  }
  console.log(`\nagainst the bare server of the same leg (targets: calls/s ≥ 0.8×, CPU/call ≤ 2×):\n  ${ratios.join("\n  ")}`);

  // Which stack to serve 2025 sessions on: the 1.32.2 transport (what the
  // daemon uses) or the v2 SDK's own session transport, both bare, both
  // answering the same constants to the same 1.32.2 clients.
  if (values["legacy-transports"] === true) {
    const constantsFile = path.join(work, "constants-legacy.json");
    const legs = ["legacy", "legacy-v2"] as const;
    const servers = await Promise.all(
      legs.map(async (leg) => {
        const child = spawn(process.execPath, [bareBundle, leg, constantsFile], { stdio: ["ignore", "pipe", "inherit"], cwd: ROOT });
        children.add(child);
        return { leg, child, url: String((await waitForJsonLine(child, "url")).url) };
      }),
    );
    for (const level of LEVELS) {
      const connected = await Promise.all(servers.map((s) => connectClients(s.url, level)));
      const cells: Cell[][] = servers.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < servers.length; k++) {
          const at = (round + k) % servers.length;
          const before = cpuMs(servers[at]!.child.pid!);
          const result = await runLoad(connected[at]!, SECONDS / ROUNDS, (c) => ({ name: c % 2 === 0 ? "recipes__search" : "recipes__get", arguments: {} }));
          cells[at]!.push({ result, cpuMs: cpuMs(servers[at]!.child.pid!) - before });
        }
      }
      for (const clients of connected) await closeClients(clients);
      const [old, v2] = cells.map(combineCells);
      console.log(row("bare 2025 leg on 1.32.2", old!.result, old!.perCall));
      console.log(row("bare 2025 leg on v2 session transport", v2!.result, v2!.perCall));
      console.log(`  v2 session transport vs 1.32.2, ${level} client(s): calls/s ${(v2!.result.callsPerSecond / old!.result.callsPerSecond).toFixed(2)}×, CPU/call ${(v2!.perCall / old!.perCall).toFixed(2)}×`);
    }
    for (const s of servers) await stop(s.child);
  }
  console.log(`RSS after load: ${rssMb(server.child.pid!)} MB`);

  // A long answer read a window at a time (SPEC §5.3): the first window's
  // call builds and renders the whole list, the later ones only cut it.
  const [reader] = await connectClients(server.url, 1);
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
    `recipes__list of ${SKILLS} skills (${(total / 1000).toFixed(0)} k chars) in ${windows.length} windows: first ${windows[0]!.toFixed(1)} ms, ` +
      `later ${laterMean.toFixed(1)} ms per window (mean, ${(laterMean / windows[0]!).toFixed(2)}× the first)`,
  );
  await stop(server.child);
  if (baseline !== undefined) await stop(baseline.child);
  if (PROFILE_DIR !== undefined) {
    await fs.writeFile(path.join(PROFILE_DIR, "windows.json"), JSON.stringify(cellSpans));
    console.log(`profiles and windows.json in ${PROFILE_DIR}: npx tsx bench/profile-layers.ts ${PROFILE_DIR}`);
  }
} finally {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  await fs.rm(work, { recursive: true, force: true });
}
