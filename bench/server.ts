/**
 * bench/server.ts — the daemon at scale (issue 3):
 *   1. time to ready and RSS with 1,000 generated skills / 20,000 recipes
 *      (cold, then a restart on the same tree), --starts times each (3): one
 *      start on this machine varies by ±20% with the time of day, so the
 *      median is printed with every run;
 *   2. tools/call recipes__search and recipes__get throughput and p50/p99 at
 *      1, 8 and 32 concurrent SDK clients, side by side with a bare fastify +
 *      SDK server whose single tool returns a constant (the transport's own
 *      ceiling), measured in the same run. Each level's seconds are cut into
 *      rounds that alternate bare, search and get: this machine's speed
 *      drifts by ±20% over tens of seconds, and one long cell per server
 *      charged that drift to whichever ran in the slow stretch;
 *   3. recipes__list of every skill read a window at a time: each later
 *      window's call against the first's (which builds and renders the list).
 *
 *   npm run bench:server -- [--skills 1000] [--recipes-per-skill 20] [--seconds 10] [--rounds 6] [--starts 3]
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
import { closeClients, combineLoads, connectClients, runLoad, type LoadResult } from "./lib/clients.js";
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
const QUERIES = benchQueries(2000);

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

async function startRecipeServer(tree: string, dataDir: string): Promise<{ child: ChildProcess; url: string; readyMs: number }> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [path.join(ROOT, "dist/cli.js"), "--dcc", "maya", "--port", "0", "--skills-path", tree, "--embeddings", "none", "--no-watch", "--log-level", "info", "--max-concurrent-per-session", "64"],
    { env: { PATH: process.env.PATH ?? "", HOME: dataDir, XDG_DATA_HOME: dataDir, DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" }, stdio: ["ignore", "pipe", "inherit"] },
  );
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

function row(label: string, r: LoadResult): string {
  return `${label.padEnd(34)} ${String(r.clients).padStart(3)}  ${r.callsPerSecond.toFixed(0).padStart(7)}/s  p50 ${r.p50.toFixed(2).padStart(7)} ms  p99 ${r.p99.toFixed(2).padStart(7)} ms  errors ${r.errors}`;
}

const work = await fs.mkdtemp(path.join(os.tmpdir(), "bench-server-"));
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

  const bare = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "bench/lib/bare-server.ts")], { stdio: ["ignore", "pipe", "inherit"], cwd: ROOT });
  const bareUrl = String((await waitForJsonLine(bare, "url")).url);

  console.log(`\nclosed-loop load, ${SECONDS} s per cell in ${ROUNDS} alternating rounds (clients share this process; both servers are child processes)`);
  console.log(`${"tool".padEnd(34)} cli   calls/s   latency`);
  const ratios: string[] = [];
  for (const level of LEVELS) {
    const bareClients = await connectClients(bareUrl, level);
    const clients = await connectClients(server.url, level);
    const slice = SECONDS / ROUNDS;
    const rounds: { bare: LoadResult[]; search: LoadResult[]; get: LoadResult[] } = { bare: [], search: [], get: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // Iterations restart each round: offsets keep the rounds on different queries and recipes.
      const offset = round * 7919;
      const cells: Array<() => Promise<void>> = [
        async () => {
          rounds.bare.push(await runLoad(bareClients, slice, () => ({ name: "constant", arguments: {} })));
        },
        // Distinct queries, clients offset so they do not march in step: repeated words
        // across queries are realistic, repeated whole queries would flatter any cache.
        async () => {
          rounds.search.push(
            await runLoad(clients, slice, (c, i) => ({
              name: "recipes__search",
              arguments: { query: QUERIES[(c * 397 + i + offset) % QUERIES.length]!, limit: 10 },
            })),
          );
        },
        async () => {
          rounds.get.push(
            await runLoad(clients, slice, (c, i) => {
              const skill = (c * 31 + i + offset) % SKILLS;
              return { name: "recipes__get", arguments: { skill: `bench-skill-${skill}`, anchor: recipeName(skill, (i + round) % PER_SKILL) } };
            }),
          );
        },
      ];
      // Each round starts with a different cell: what one cell leaves behind
      // (the daemon's debounced usage write, its garbage) must not always fall on the same next one.
      for (let k = 0; k < cells.length; k++) await cells[(round + k) % cells.length]!();
    }
    await closeClients(bareClients);
    await closeClients(clients);
    const bareResult = combineLoads(rounds.bare);
    const search = combineLoads(rounds.search);
    const get = combineLoads(rounds.get);
    console.log(row("bare fastify+SDK constant", bareResult));
    console.log(row("recipe-server recipes__search", search));
    console.log(row("recipe-server recipes__get", get));
    const perRound = (mine: LoadResult[]): string => {
      const each = mine.map((r, i) => r.callsPerSecond / rounds.bare[i]!.callsPerSecond);
      return `${Math.min(...each).toFixed(2)}–${Math.max(...each).toFixed(2)}`;
    };
    ratios.push(
      `${level} client(s): search ${(search.callsPerSecond / bareResult.callsPerSecond).toFixed(2)}× bare (rounds ${perRound(rounds.search)}), ` +
        `get ${(get.callsPerSecond / bareResult.callsPerSecond).toFixed(2)}× bare (rounds ${perRound(rounds.get)})`,
    );
  }
  console.log(`\nthroughput vs the bare server (target ≥ 0.8×):\n  ${ratios.join("\n  ")}`);
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
  bare.kill("SIGTERM");
} finally {
  await fs.rm(work, { recursive: true, force: true });
}
