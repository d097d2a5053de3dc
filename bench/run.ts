/**
 * bench/run.ts — what recipes__run costs and saves.
 *
 *   npx tsx bench/run.ts [--rounds 40] [--tools 200]
 *
 * 1. End to end: a 5-step recipe through recipes__run on the daemon (a child
 *    process, `--dcc-endpoint` pointing at a DCC double built with the SDK's
 *    own server) against the peer: the same 5 tools/call made by an SDK client
 *    directly on the DCC double, as an agent following recipes__apply would
 *    (the agent's own thinking between calls not counted). Rounds alternate
 *    the two, the order flipping each round, so drift on this shared machine
 *    falls on both. Prints medians and the ratio run / direct, and the
 *    daemon's CPU per step (utime + stime from /proc/<pid>/stat over the run
 *    rounds, divided by the steps run).
 * 2. Preflight at N tools: a dry run (connect, tools/list, compile the
 *    step tools' input schemas, validate) against a double listing the bridge's tools
 *    and one listing those + N fillers, cold (a fresh connection each time) and warm
 *    (tools/list cached: a ping and the checks). Prints medians and ratios.
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

const { values } = parseArgs({ options: { rounds: { type: "string", default: "40" }, tools: { type: "string", default: "200" } } });
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

async function endToEnd(): Promise<void> {
  const dcc = await startDccDouble({ era: "2025" });
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "bench-run-"));
  await fs.mkdir(path.join(tmp, "skills/run-pack"), { recursive: true });
  await fs.writeFile(path.join(tmp, "skills/run-pack/SKILL.md"), "---\nname: run-pack\ndescription: bench pack\nmetadata:\n  dcc-mcp:\n    dcc: any\n    recipes: RECIPES.yaml\n---\n# run-pack\n");
  await fs.writeFile(path.join(tmp, "skills/run-pack/RECIPES.yaml"), RUN_PACK);
  const daemon = spawn(
    process.execPath,
    ["--import", "tsx", path.join(ROOT, "src/cli.ts"), "--dcc", "blender", "--port", "0", "--embeddings", "none", "--no-watch", "--log-level", "info",
      "--log-format", "json", "--skills-path", path.join(tmp, "skills"), "--private-dir", path.join(tmp, "private"), "--dcc-endpoint", `blender=${dcc.url}`],
    { cwd: ROOT, env: { ...process.env, DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1", XDG_DATA_HOME: path.join(tmp, "data"), LOG_LEVEL: "info" }, stdio: ["ignore", "pipe", "inherit"] },
  );
  try {
    const url = await servingUrl(daemon, "daemon");
    const viaDaemon = await client(`${url}/blender`);
    const direct = await client(dcc.url);
    const pid = daemon.pid!;
    const plan = ["create_primitive", "bevel_edges", "bevel_edges", "bevel_edges", "get_poly_count"];
    let n = 0;
    const runOnce = async (): Promise<number> => {
      const name = `r${n++}`;
      const t = performance.now();
      const result = (await viaDaemon.callTool({ name: "recipes__run", arguments: { skill: "run-pack", recipe: "five_steps", inputs: { name } } })) as { isError?: boolean; content: Array<{ text: string }> };
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
    for (let i = 0; i < 5; i++) {
      await runOnce();
      await directOnce();
    }
    const runs: number[] = [];
    const directs: number[] = [];
    let runCpu = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ["run", "direct"] : ["direct", "run"];
      for (const which of order) {
        if (which === "run") {
          const before = cpuMs(pid);
          runs.push(await runOnce());
          runCpu += cpuMs(pid) - before;
        } else directs.push(await directOnce());
      }
    }
    const run = median(runs);
    const dir = median(directs);
    console.log(`end to end, ${ROUNDS} rounds, 5-step recipe (the DCC double answers in-process, no DCC work):`);
    console.log(`  recipes__run (one call to the daemon):      median ${fmt(run)}`);
    console.log(`  5 tools/call directly on the DCC (peer):    median ${fmt(dir)}`);
    console.log(`  ratio run / direct: ${(run / dir).toFixed(2)}`);
    console.log(`  daemon CPU per step: ${(runCpu / (ROUNDS * 5)).toFixed(2)} ms (${runCpu.toFixed(0)} ms over ${ROUNDS * 5} steps, /proc/${pid}/stat at 10 ms ticks)`);
    await viaDaemon.close();
    await direct.close();
  } finally {
    daemon.kill("SIGTERM");
    await new Promise((r) => daemon.once("exit", r));
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
    let runner = new DccRunner(new McpDccConnection("blender", { url, headers: {} }, { name: "bench", version: "1" }), DEFAULT_RUN_LIMITS);
    await runner.run({ plan: planned.plan, contract: null, dryRun: true });
    for (let i = 0; i < ROUNDS; i++) {
      if (cold) {
        await runner.close();
        runner = new DccRunner(new McpDccConnection("blender", { url, headers: {} }, { name: "bench", version: "1" }), DEFAULT_RUN_LIMITS);
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
      rows.push([cold ? "cold (connect + tools/list + compile + check)" : "warm (ping + cached list + check)", median(s), median(l)]);
    }
    console.log(`preflight (dry run of the 5-step recipe), ${ROUNDS * 2} runs each:`);
    for (const [label, s, l] of rows) console.log(`  ${label}: ${smallCount} tools ${fmt(s)}, ${smallCount + EXTRA_TOOLS} tools ${fmt(l)}, ratio ${(l / s).toFixed(2)}`);
  } finally {
    await small.stop();
    await large.stop();
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

await endToEnd();
await preflightCost();
