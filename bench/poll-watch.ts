/**
 * What `--watch poll[:ms]` costs at 20,000 recipes (#24 item 6), against
 * inotify watching and no watching, in one run:
 *
 * 1. Idle CPU: the built daemon (`--embeddings none`) started once per mode
 *    on one generated tree (default 1,000 skills × 20 recipes, as
 *    bench/starts.ts), all modes running side by side so every window sees
 *    the same machine; after ready and a settle period, each process's CPU
 *    (/proc/<pid>/stat utime + stime, threads included) over --rounds
 *    windows of --idle seconds, printed as % of one core per window.
 * 2. Edit → visible: --edits times, one recipe's description gets a fresh
 *    word; each watching daemon is asked `recipes__search` for it every
 *    POLL_MS until it answers; p50 / p99 per mode.
 *
 * --filler N adds N small text files under each skill's references/ (files
 * the watcher sees but no recipe reads: bench:reload's 10,000-file layout is
 * 1,000 skills with --filler 8).
 *
 *   npx tsx bench/poll-watch.ts [-- --skills 1000 --recipes 20 --idle 20 --rounds 3 --edits 20 --settle 5 --filler 0]
 *   (needs `npm run build`: it runs dist/cli.js)
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { generateTree } from "./lib/generate.js";
import { percentile } from "./lib/measure-ops.js";
import { servingUrl } from "./lib/serving-url.js";

const { values } = parseArgs({
  options: {
    skills: { type: "string", default: "1000" },
    recipes: { type: "string", default: "20" },
    idle: { type: "string", default: "20" },
    rounds: { type: "string", default: "3" },
    edits: { type: "string", default: "20" },
    settle: { type: "string", default: "5" },
    filler: { type: "string", default: "0" },
  },
});
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** How often each daemon is searched for an edit: the latency's resolution. */
const POLL_MS = 20;
const CLOCK_TICKS = 100; // getconf CLK_TCK on Linux

interface Mode {
  readonly name: string;
  readonly flags: readonly string[];
  readonly watches: boolean;
}
const MODES: readonly Mode[] = [
  { name: "no watching", flags: ["--no-watch"], watches: false },
  { name: "inotify", flags: [], watches: true },
  { name: "poll:1000", flags: ["--watch", "poll:1000"], watches: true },
  { name: "poll:2000", flags: ["--watch", "poll:2000"], watches: true },
];

interface Daemon {
  readonly mode: Mode;
  readonly child: ChildProcess;
  readonly base: string;
  client: Client | null;
}

/** CPU time (user + system) the process has used, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

async function start(mode: Mode, tree: string, home: string): Promise<Daemon> {
  await fs.mkdir(home, { recursive: true });
  const child = spawn(
    process.execPath,
    [path.join(ROOT, "dist/cli.js"), "--dcc", "maya", "--port", "0", "--skills-path", tree, "--embeddings", "none", "--log-level", "info", ...mode.flags],
    { env: { PATH: process.env.PATH ?? "", HOME: home, XDG_DATA_HOME: home, DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const url = await servingUrl(child, mode.name);
  const base = url.replace(/\/mcp$/, "");
  for (;;) {
    if ((await fetch(`${base}/readyz`).catch(() => null))?.status === 200) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { mode, child, base, client: null };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A word no generated recipe contains. */
function freshWord(): string {
  let s = "zq";
  for (let i = 0; i < 8; i += 1) s += String.fromCharCode(97 + Math.floor(Math.random() * 26));
  return s;
}

async function shows(client: Client, word: string, skill: string): Promise<boolean> {
  const result = (await client.callTool({ name: "recipes__search", arguments: { query: word, limit: 3 } })) as { content: Array<{ text: string }> };
  const body = JSON.parse(result.content[0]!.text) as { context: { recipes: Array<{ skill: string; description: string }> } };
  return body.context.recipes.some((r) => r.skill === skill && r.description.includes(word));
}

async function visibleAfter(d: Daemon, word: string, skill: string, started: number): Promise<number> {
  while (!(await shows(d.client!, word, skill))) {
    if (performance.now() - started > 30_000) throw new Error(`${d.mode.name}: edit not visible after 30 s`);
    await sleep(POLL_MS);
  }
  return performance.now() - started;
}

const work = await fs.mkdtemp(path.join(os.tmpdir(), "bench-poll-watch-"));
const daemons: Daemon[] = [];
try {
  const skills = Number(values.skills);
  const tree = await generateTree(path.join(work, "skills"), skills, Number(values.recipes));
  const filler = Number(values.filler);
  for (let skill = 0; skill < skills && filler > 0; skill++) {
    const dir = path.join(tree.root, `bench-skill-${skill}`, "references");
    await fs.mkdir(dir, { recursive: true });
    await Promise.all(Array.from({ length: filler }, (_, f) => fs.writeFile(path.join(dir, `notes-${f}.txt`), `notes ${f}\n`)));
  }
  const files = skills * (2 + filler);
  console.log(`bench:poll-watch: ${tree.skills} skills / ${tree.recipes} recipes (${files} files in ${tree.skills * (filler > 0 ? 2 : 1) + 1} directories), node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)} (shared machine: CPU % of one core is steadier than latencies)`);
  // Started one after another so their cold starts do not fight; sampled side by side.
  for (const [i, mode] of MODES.entries()) daemons.push(await start(mode, tree.root, path.join(work, `home-${i}`)));
  await sleep(Number(values.settle) * 1000);

  const rounds = Number(values.rounds);
  const idle = Number(values.idle);
  const pct: number[][] = MODES.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const before = daemons.map((d) => cpuMs(d.child.pid!));
    const wall0 = performance.now();
    await sleep(idle * 1000);
    const wall = performance.now() - wall0;
    daemons.forEach((d, i) => pct[i]!.push(((cpuMs(d.child.pid!) - before[i]!) / wall) * 100));
  }
  console.log(`\nidle CPU, % of one core, ${rounds} windows of ${idle} s, all modes side by side:`);
  const offMedian = percentile([...pct[0]!].sort((a, b) => a - b), 50);
  MODES.forEach((mode, i) => {
    const sorted = [...pct[i]!].sort((a, b) => a - b);
    const median = percentile(sorted, 50);
    console.log(`  ${mode.name.padEnd(12)} ${pct[i]!.map((p) => p.toFixed(2).padStart(6)).join(" ")}   median ${median.toFixed(2)} %  (${(median - offMedian).toFixed(2).replace(/^(?!-)/, "+").replace("-0.00", "+0.00")} points over no watching)`);
  });

  const watching = daemons.filter((d) => d.mode.watches);
  for (const d of watching) {
    d.client = new Client({ name: "bench-poll-watch", version: "0" });
    await d.client.connect(new StreamableHTTPClientTransport(new URL(`${d.base}/mcp`)));
  }
  const latencies: number[][] = watching.map(() => []);
  const edits = Number(values.edits);
  for (let k = 0; k < edits; k++) {
    const skill = Math.floor(Math.random() * skills);
    const file = path.join(tree.root, `bench-skill-${skill}`, "RECIPES.yaml");
    const word = freshWord();
    const text = await fs.readFile(file, "utf8");
    const edited = text.replace(/(description: )[^\n]*/, `$1${word} edit ${k} of the first recipe.`);
    const started = performance.now();
    await fs.writeFile(file, edited);
    const seen = await Promise.all(watching.map((d) => visibleAfter(d, word, `bench-skill-${skill}`, started)));
    seen.forEach((ms, i) => latencies[i]!.push(ms));
  }
  console.log(`\nedit → visible via recipes__search (${edits} edits, searched every ${POLL_MS} ms on each daemon):`);
  watching.forEach((d, i) => {
    const sorted = [...latencies[i]!].sort((a, b) => a - b);
    console.log(`  ${d.mode.name.padEnd(12)} p50 ${percentile(sorted, 50).toFixed(0).padStart(5)} ms   p99 ${percentile(sorted, 99).toFixed(0).padStart(5)} ms   max ${sorted.at(-1)!.toFixed(0).padStart(5)} ms`);
  });
} finally {
  for (const d of daemons) await d.client?.close().catch(() => undefined);
  await Promise.all(daemons.map((d) => stop(d.child)));
  await fs.rm(work, { recursive: true, force: true });
}
