/**
 * bench/run.ts — what recipes__run costs and saves.
 *
 *   npx tsx bench/run.ts [--rounds 40] [--tools 200] [--baseline <checkout>]
 *
 * 1. End to end: a 5-step recipe through recipes__run on the daemon (a child
 *    process, `--dcc-endpoint` pointing at a DCC double built with the SDK's
 *    own server) against the peer: the same 5 tools/call made by an SDK client
 *    directly on the DCC double, as an agent following recipes__apply would
 *    (the agent's own thinking between calls not counted). Rounds alternate
 *    the two, the order flipping each round, so drift on this shared machine
 *    falls on both. Prints medians and the ratio run / direct, and the
 *    daemon's CPU per step (utime + stime from /proc/<pid>/stat over the run
 *    rounds, divided by the steps run). Beside them, where the time goes: one
 *    round trip to the daemon (recipes__validate of the same recipe) and one
 *    ping of the DCC, each a median in the same rounds. With `--baseline`, a
 *    second daemon started from another checkout's src/cli.ts (e.g. the main
 *    branch) runs the same recipe in the same alternating rounds: the
 *    before/after ratio of the run itself.
 * 2. Preflight at N tools: a dry run (connect, tools/list, compile the
 *    step tools' input schemas, validate) against a double listing the bridge's tools
 *    and one listing those + N fillers, cold (a fresh connection each time) and warm
 *    (tools/list cached: a ping, which `answeredRecentlyMs: 0` keeps, and the
 *    checks). Prints medians and ratios.
 * 3. The ping window alone, in process: a runner that pings before every
 *    run against one that skips the ping when the DCC answered within
 *    `answeredRecentlyMs`, alternating. Prints medians and the ratio.
 * Prints figures, asserts nothing.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { servingUrl } from "./lib/serving-url.js";
import { bridgeTools, fillerTools, runTools, startDccDouble } from "../test/e2e/dcc-double.js";
import { loadPack, RUN_PACK } from "../test/recipes/run/fixtures.js";
import { planRun } from "../src/recipes/run/resolve.js";
import { DccRunner } from "../src/recipes/run/runner.js";
import { McpDccConnection } from "../src/recipes/run/mcp-connection.js";
import { DEFAULT_RUN_LIMITS } from "../src/recipes/run/types.js";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "40" }, tools: { type: "string", default: "200" }, baseline: { type: "string" } } });
const ROUNDS = Number(values.rounds);
const EXTRA_TOOLS = Number(values.tools);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (ms: number): string => `${ms.toFixed(2)} ms`;

async function client(url: string): Promise<Client> {
  const c = new Client({ name: "bench-run", version: "1" });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  return c;
}

/** A daemon from `root`'s src/cli.ts (under tsx) serving `skills` with the DCC endpoint; its URL and process. */
async function startDaemon(root: string, tmp: string, label: string, dccUrl: string): Promise<{ url: string; daemon: ReturnType<typeof spawn> }> {
  const daemon = spawn(
    process.execPath,
    ["--import", "tsx", path.join(root, "src/cli.ts"), "--dcc", "blender", "--port", "0", "--embeddings", "none", "--no-watch", "--log-level", "info",
      "--log-format", "json", "--skills-path", path.join(tmp, "skills"), "--private-dir", path.join(tmp, `private-${label}`), "--dcc-endpoint", `blender=${dccUrl}`],
    { cwd: root, env: { ...process.env, DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1", XDG_DATA_HOME: path.join(tmp, `data-${label}`), LOG_LEVEL: "info" }, stdio: ["ignore", "pipe", "inherit"] },
  );
  return { url: await servingUrl(daemon, label), daemon };
}

async function endToEnd(): Promise<void> {
  const dcc = await startDccDouble({ era: "2025" });
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "bench-run-"));
  await fs.mkdir(path.join(tmp, "skills/run-pack"), { recursive: true });
  await fs.writeFile(path.join(tmp, "skills/run-pack/SKILL.md"), "---\nname: run-pack\ndescription: bench pack\nmetadata:\n  dcc-mcp:\n    dcc: any\n    recipes: RECIPES.yaml\n---\n# run-pack\n");
  await fs.writeFile(path.join(tmp, "skills/run-pack/RECIPES.yaml"), RUN_PACK);
  const daemons: Array<{ url: string; daemon: ReturnType<typeof spawn> }> = [];
  try {
    const now = await startDaemon(ROOT, tmp, "daemon", dcc.url);
    daemons.push(now);
    const before = values.baseline !== undefined ? await startDaemon(path.resolve(values.baseline), tmp, "baseline", dcc.url) : null;
    if (before !== null) daemons.push(before);
    const viaDaemon = await client(`${now.url}/blender`);
    const viaBaseline = before === null ? null : await client(`${before.url}/blender`);
    const direct = await client(dcc.url);
    const pid = now.daemon.pid!;
    const plan = ["create_primitive", "bevel_edges", "bevel_edges", "bevel_edges", "get_poly_count"];
    let n = 0;
    const runOnce = async (via: Client): Promise<number> => {
      const name = `r${n++}`;
      const t = performance.now();
      const result = (await via.callTool({ name: "recipes__run", arguments: { skill: "run-pack", recipe: "five_steps", inputs: { name } } })) as { isError?: boolean; content: Array<{ text: string }> };
      const ms = performance.now() - t;
      if (result.isError === true) throw new Error(`run failed: ${result.content[0]?.text.slice(0, 300)}`);
      return ms;
    };
    const directOnce = async (): Promise<number> => {
      const name = `d${n++}`;
      const t = performance.now();
      for (const [i, verb] of plan.entries()) {
        const args = verb === "create_primitive" ? { primitive_type: "cube", name } : verb === "bevel_edges" ? { object_name: name, edge_indices: [i - 1], width: 0.1 } : { object_name: name };
        await direct.callTool({ name: `blender_mesh_ops__${verb}`, arguments: args });
      }
      return performance.now() - t;
    };
    const hopOnce = async (): Promise<number> => {
      const t = performance.now();
      await viaDaemon.callTool({ name: "recipes__validate", arguments: { skill: "run-pack", recipe: "five_steps", inputs: { name: "v" } } });
      return performance.now() - t;
    };
    const pingOnce = async (): Promise<number> => {
      const t = performance.now();
      await direct.ping();
      return performance.now() - t;
    };
    for (let i = 0; i < 5; i++) {
      await runOnce(viaDaemon);
      if (viaBaseline !== null) await runOnce(viaBaseline);
      await directOnce();
    }
    const times = { run: [] as number[], baseline: [] as number[], direct: [] as number[], hop: [] as number[], ping: [] as number[] };
    let runCpu = 0;
    const cells: Array<[keyof typeof times, () => Promise<number>]> = [
      ["run", async () => {
        const cpu = cpuMs(pid);
        const ms = await runOnce(viaDaemon);
        runCpu += cpuMs(pid) - cpu;
        return ms;
      }],
      ["direct", directOnce],
      ["hop", hopOnce],
      ["ping", pingOnce],
      ...(viaBaseline !== null ? [["baseline", () => runOnce(viaBaseline)] as [keyof typeof times, () => Promise<number>]] : []),
    ];
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order each round so drift on this shared machine falls on every cell.
      for (let i = 0; i < cells.length; i++) {
        const [which, once] = cells[(i + round) % cells.length]!;
        times[which].push(await once());
      }
    }
    const run = median(times.run);
    const dir = median(times.direct);
    console.log(`end to end, ${ROUNDS} rounds, 5-step recipe (the DCC double answers in-process, no DCC work):`);
    console.log(`  recipes__run (one call to the daemon):      median ${fmt(run)}`);
    console.log(`  5 tools/call directly on the DCC (peer):    median ${fmt(dir)}`);
    console.log(`  ratio run / direct: ${(run / dir).toFixed(2)}`);
    console.log(`  where the time goes: one call to the daemon (recipes__validate) ${fmt(median(times.hop))}, one ping of the DCC ${fmt(median(times.ping))}, one direct DCC call ${fmt(dir / 5)}`);
    if (viaBaseline !== null) {
      const base = median(times.baseline);
      console.log(`  baseline (${values.baseline}) recipes__run: median ${fmt(base)}, ratio baseline / direct ${(base / dir).toFixed(2)}; now / baseline ${(run / base).toFixed(2)}`);
    }
    console.log(`  daemon CPU per step: ${(runCpu / (ROUNDS * 5)).toFixed(2)} ms (${runCpu.toFixed(0)} ms over ${ROUNDS * 5} steps, /proc/${pid}/stat at 10 ms ticks)`);
    await viaDaemon.close();
    await viaBaseline?.close();
    await direct.close();
  } finally {
    for (const { daemon } of daemons) {
      daemon.kill("SIGTERM");
      await new Promise((r) => daemon.once("exit", r));
    }
    await dcc.stop();
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

async function preflightCost(): Promise<void> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "bench-run-pack-"));
  await fs.mkdir(path.join(tmp, "run-pack"));
  await fs.writeFile(path.join(tmp, "run-pack/RECIPES.yaml"), RUN_PACK);
  const recipes = await loadPack(path.join(tmp, "run-pack"), "run-pack");
  const planned = planRun(recipes.get("five_steps")!, { name: "P" }, "blender");
  if (!planned.ok) throw new Error(planned.message);
  const small = await startDccDouble({ era: "2025" });
  const large = await startDccDouble({ era: "2025", tools: [...bridgeTools(), ...runTools(), ...fillerTools(EXTRA_TOOLS)] });
  const smallCount = small.listedTools().length;
  const measure = async (url: string, cold: boolean): Promise<number[]> => {
    const times: number[] = [];
    const limits = { ...DEFAULT_RUN_LIMITS, answeredRecentlyMs: 0 };
    let runner = new DccRunner(new McpDccConnection("blender", { url, headers: {} }, { name: "bench", version: "1" }), limits);
    await runner.run({ plan: planned.plan, contract: null, dryRun: true });
    for (let i = 0; i < ROUNDS; i++) {
      if (cold) {
        await runner.close();
        runner = new DccRunner(new McpDccConnection("blender", { url, headers: {} }, { name: "bench", version: "1" }), limits);
      }
      const t = performance.now();
      const outcome = await runner.run({ plan: planned.plan, contract: null, dryRun: true });
      times.push(performance.now() - t);
      if (outcome.report.status !== "dry_run") throw new Error(outcome.message);
    }
    await runner.close();
    return times;
  };
  try {
    const rows: Array<[string, number, number]> = [];
    for (const cold of [true, false]) {
      const s: number[] = [];
      const l: number[] = [];
      // Alternate blocks so drift falls on both.
      for (let block = 0; block < 2; block++) {
        s.push(...(await measure(small.url, cold)));
        l.push(...(await measure(large.url, cold)));
      }
      rows.push([cold ? "cold (connect + tools/list + compile + check)" : "warm (ping + cached list + check; answeredRecentlyMs 0)", median(s), median(l)]);
    }
    console.log(`preflight (dry run of the 5-step recipe), ${ROUNDS * 2} runs each:`);
    for (const [label, s, l] of rows) console.log(`  ${label}: ${smallCount} tools ${fmt(s)}, ${smallCount + EXTRA_TOOLS} tools ${fmt(l)}, ratio ${(l / s).toFixed(2)}`);
  } finally {
    await small.stop();
    await large.stop();
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

/**
 * The ping window alone: the same 5-step run through an in-process runner,
 * pinging before every run (`answeredRecentlyMs: 0`, as before the window)
 * or not when the DCC answered within the window (the default), alternating.
 */
async function pingWindow(): Promise<void> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "bench-run-window-"));
  await fs.mkdir(path.join(tmp, "run-pack"));
  await fs.writeFile(path.join(tmp, "run-pack/RECIPES.yaml"), RUN_PACK);
  const recipe = (await loadPack(path.join(tmp, "run-pack"), "run-pack")).get("five_steps")!;
  const dcc = await startDccDouble({ era: "2025" });
  const runnerWith = (answeredRecentlyMs: number): DccRunner =>
    new DccRunner(new McpDccConnection("blender", { url: dcc.url, headers: {} }, { name: "bench", version: "1" }), { ...DEFAULT_RUN_LIMITS, answeredRecentlyMs });
  const always = runnerWith(0);
  const windowed = runnerWith(DEFAULT_RUN_LIMITS.answeredRecentlyMs);
  let n = 0;
  const once = async (runner: DccRunner): Promise<number> => {
    const planned = planRun(recipe, { name: `w${n++}` }, "blender");
    if (!planned.ok) throw new Error(planned.message);
    const t = performance.now();
    const outcome = await runner.run({ plan: planned.plan, contract: recipe.outputValidator, dryRun: false });
    if (outcome.error !== undefined) throw new Error(outcome.message);
    return performance.now() - t;
  };
  try {
    for (let i = 0; i < 5; i++) {
      await once(always);
      await once(windowed);
    }
    const a: number[] = [];
    const b: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        a.push(await once(always));
        b.push(await once(windowed));
      } else {
        b.push(await once(windowed));
        a.push(await once(always));
      }
    }
    console.log(`ping window, in-process runner, ${ROUNDS} rounds: ping every run ${fmt(median(a))}, skipped within ${DEFAULT_RUN_LIMITS.answeredRecentlyMs} ms ${fmt(median(b))}, ratio ${(median(b) / median(a)).toFixed(2)}`);
  } finally {
    await always.close();
    await windowed.close();
    await dcc.stop();
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

await endToEnd();
await pingWindow();
await preflightCost();
