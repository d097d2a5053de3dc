/**
 * Load and durability bench against the real `recipe-server` process.
 *
 * Phase 1 (load): N SDK clients (one session each) loop over a mix of
 * search / get / validate / apply / create (+ update once a client has made
 * its playbooks, so the catalog stays bounded and RSS is comparable) for
 * --duration seconds. Prints errors, throughput, p50/p95/p99 per operation,
 * and the server's RSS sampled every --sample seconds (first vs last minute).
 *
 * Phase 2 (durability): clients create and update private playbooks while the
 * server is SIGKILLed mid-load; the server is restarted on the same private
 * dir and every acknowledged write must be there (revision ≥ acknowledged,
 * and the acknowledged content when the revision matches).
 *
 * Abusive clients run beside the well-behaved ones in phase 1 (--abuse, a
 * comma list; "none" for the old mix):
 *  - flood: initialize POSTs never followed by a request or DELETE (what the
 *    Inspector CLI leaves behind), --flood-rate per second, from the same
 *    address as the well-behaved clients (the harder case: one identity);
 *  - rewrite: a --big-recipes pack rewritten in place every --rewrite-every
 *    seconds in 4 writes 30 ms apart, while the well-behaved clients also
 *    poll recipes__get for its last recipe (a torn read answers not_found).
 * Errors are counted for the well-behaved clients only; the abusers' answers
 * are tallied by status. --alternate S turns the abusers off and on in S-second
 * windows (off first) and prints the well-behaved throughput in each, the
 * same run's A/B on a machine whose speed drifts.
 *
 *   npx tsx bench/load.ts [--duration 300] [--clients 32] [--sample 10]
 *                         [--abuse flood,rewrite] [--flood-rate 20]
 *                         [--rewrite-every 2] [--big-recipes 2000] [--alternate 0]
 *                         [--kill-after 20] [--skip-load] [--skip-kill]
 * Exit code 1 when phase 1 saw an error or phase 2 lost a write.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.join(ROOT, "src/cli.ts");

const { values: flags } = parseArgs({
  options: {
    duration: { type: "string", default: "300" },
    clients: { type: "string", default: "32" },
    sample: { type: "string", default: "10" },
    "kill-after": { type: "string", default: "20" },
    "kill-clients": { type: "string", default: "8" },
    "skip-load": { type: "boolean", default: false },
    "skip-kill": { type: "boolean", default: false },
    abuse: { type: "string", default: "flood,rewrite" },
    "flood-rate": { type: "string", default: "20" },
    "rewrite-every": { type: "string", default: "2" },
    "big-recipes": { type: "string", default: "2000" },
    alternate: { type: "string", default: "0" },
  },
});
const ABUSE = new Set(flags.abuse === "none" ? [] : flags.abuse.split(","));
const FLOOD_RATE = Number(flags["flood-rate"]);
const REWRITE_EVERY_S = Number(flags["rewrite-every"]);
const BIG_RECIPES = Number(flags["big-recipes"]);
/** Window length (s) for an in-run A/B: abusers off in even windows, on in odd ones; 0 = always on. */
const ALTERNATE_S = Number(flags.alternate);
const DURATION_S = Number(flags.duration);
const CLIENTS = Number(flags.clients);
const SAMPLE_S = Number(flags.sample);
const KILL_AFTER_S = Number(flags["kill-after"]);
const KILL_CLIENTS = Number(flags["kill-clients"]);
/** Playbooks each client creates before its create slot turns into updates. */
const CREATES_PER_CLIENT = 3;

const BENCH_SKILL = `---
name: bench-ops
description: Structured recipes for the load bench.
metadata:
  dcc-mcp:
    dcc: maya
    recipes: ops.yaml
---
# bench-ops
`;
const BENCH_PACK = `pack:
  name: bench-ops
recipes:
  - name: make_box
    description: Make a polygon box of a given size.
    inputs_schema:
      type: object
      required: [name]
      properties:
        name: { type: string, minLength: 1, maxLength: 64 }
        size: { type: number, exclusiveMinimum: 0, default: 1 }
        tags: { type: array, items: { type: string }, maxItems: 8 }
      additionalProperties: false
    steps:
      - tool: maya_scripting__execute_python
        arguments: { code: "cmds.polyCube(name='\${name}', w=\${size})" }
    output_contract:
      type: object
      required: [changed]
      properties: { changed: { const: true } }
  - name: rename_nodes
    description: Rename nodes with a prefix.
    inputs_schema:
      type: object
      required: [prefix, nodes]
      properties:
        prefix: { type: string, pattern: "^[a-z]+_$" }
        nodes: { type: array, minItems: 1, items: { type: string } }
    steps:
      - tool: maya_scene__rename
        arguments: { prefix: "\${prefix}", nodes: "\${nodes}" }
`;
const QUERIES = ["smooth a mesh", "mirror geometry", "reset transforms", "decimate for games", "box", "rename nodes prefix", "fix lamina faces", "level of detail", "pivot", "symmetry"];

interface Daemon {
  readonly child: ChildProcess;
  readonly url: string;
  readonly exited: Promise<number | null>;
}

async function startDaemon(dataDir: string, skillsDir: string, privateDir: string, watch = false): Promise<Daemon> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", CLI, "--dcc", "maya", "--port", "0", "--embeddings", "none", ...(watch ? [] : ["--no-watch"]), "--log-level", "warn",
      "--private-dir", privateDir, "--skills-path", skillsDir, "--skills-path", path.join(ROOT, "skills-example")],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: dataDir, XDG_DATA_HOME: dataDir, DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  // Warn level hides the "serving" line; find the port from the listening socket via /proc instead of logs.
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = "";
    child.stdout?.on("data", (d: Buffer) => {
      buffer += d.toString();
    });
    const deadline = Date.now() + 60_000;
    const poll = async (): Promise<void> => {
      const port = await listeningPort(child.pid ?? 0);
      if (port !== null) {
        resolve(`http://127.0.0.1:${port}`);
        return;
      }
      if (child.exitCode !== null || Date.now() > deadline) reject(new Error(`daemon did not start: ${buffer}`));
      else setTimeout(() => void poll(), 100);
    };
    void poll();
  });
  for (;;) {
    const ready = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (ready) break;
    await sleep(100);
  }
  return { child, url, exited };
}

/** The TCP port a process listens on (Linux /proc), or null. */
async function listeningPort(pid: number): Promise<number | null> {
  try {
    const fds = await fs.readdir(`/proc/${pid}/fd`);
    const inodes = new Set<string>();
    for (const fd of fds) {
      const link = await fs.readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m) inodes.add(m[1]!);
    }
    const table = await fs.readFile("/proc/net/tcp", "utf8");
    for (const line of table.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === "0A" && inodes.has(cols[9] ?? "")) return parseInt(cols[1]!.split(":")[1]!, 16);
    }
  } catch {
    return null;
  }
  return null;
}

async function rssBytes(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, "utf8");
  const kb = /VmRSS:\s+(\d+) kB/.exec(status);
  return kb ? Number(kb[1]) * 1024 : NaN;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "load", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

interface Envelope {
  success: boolean;
  error?: string;
  message: string;
  context?: Record<string, unknown>;
}

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<Envelope> {
  const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ text: string }> };
  return JSON.parse(result.content[0]?.text ?? "{}") as Envelope;
}

function playbookArgs(tag: string, n: number): Record<string, unknown> {
  return {
    title: `Load playbook ${tag} ${n}`,
    summary: `Bench playbook ${tag} number ${n}.`,
    whenToUse: "When the load bench runs.",
    steps: [{ title: "Do it", detail: `Step for ${tag}/${n}` }],
    acceptanceCriteria: ["It is done"],
    tags: ["bench"],
    document: `# ${tag} ${n}\n\nmarker:${tag}:${n}\n`,
  };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const BIG_SKILL = `---
name: bench-big
description: A large pack rewritten in place by the load bench.
metadata:
  dcc-mcp:
    dcc: maya
    recipes: big.yaml
---
# bench-big
`;
const lastBigRecipe = (): string => `r${String(BIG_RECIPES - 1).padStart(5, "0")}`;

function bigPack(revision: number): string {
  const recipes = Array.from(
    { length: BIG_RECIPES },
    (_, i) => `  - name: r${String(i).padStart(5, "0")}
    description: Recipe ${i} of the big pack, revision ${revision}.
    inputs_schema: { type: object, properties: { name: { type: string } } }
    steps:
      - tool: maya_scripting__execute_python
        arguments: { code: "pass" }
`,
  );
  return `pack:\n  name: bench-big\nrecipes:\n${recipes.join("")}`;
}

/** Rewrites the big pack in place (truncate, then 4 writes 30 ms apart) every REWRITE_EVERY_S until `until`. */
async function rewriter(file: string, until: number, active: () => boolean): Promise<{ rewrites: number; gaps: number[] }> {
  let revision = 0;
  /** Time between consecutive writes of one rewrite: 30 ms asked, more when the machine is loaded. */
  const gaps: number[] = [];
  while (Date.now() + REWRITE_EVERY_S * 1000 < until) {
    await sleep(REWRITE_EVERY_S * 1000);
    if (!active()) continue;
    const text = Buffer.from(bigPack(++revision));
    const quarter = Math.ceil(text.length / 4);
    const handle = await fs.open(file, "w");
    try {
      let last = 0;
      for (let part = 0; part < 4; part++) {
        if (part > 0) await sleep(30);
        const now = performance.now();
        if (part > 0) gaps.push(now - last);
        last = now;
        await handle.write(text.subarray(part * quarter, (part + 1) * quarter));
      }
    } finally {
      await handle.close();
    }
  }
  return { rewrites: revision, gaps };
}

/** Initialize POSTs never followed by anything, FLOOD_RATE per second (at most 16 in flight) until `until`. */
async function flooder(url: string, until: number, active: () => boolean): Promise<Map<string, number>> {
  const statuses = new Map<string, number>();
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "flood", version: "1" } },
  });
  const tally = (key: string): void => {
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  };
  const inFlight = new Set<Promise<void>>();
  while (Date.now() < until) {
    if (!active()) {
      // Nothing sent in an "off" window.
    } else if (inFlight.size < 16) {
      const sent: Promise<void> = fetch(`${url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body,
      })
        .then(async (r) => {
          await r.arrayBuffer();
          tally(String(r.status));
        }, (error: unknown) => tally(`error ${String(error)}`))
        .finally(() => inFlight.delete(sent));
      inFlight.add(sent);
    } else {
      tally("skipped (16 in flight)");
    }
    await sleep(1000 / FLOOD_RATE);
  }
  await Promise.all(inFlight);
  return statuses;
}

async function loadPhase(tmp: string, skillsDir: string): Promise<boolean> {
  const privateDir = path.join(tmp, "load-private");
  const daemon = await startDaemon(path.join(tmp, "load-data"), skillsDir, privateDir, ABUSE.has("rewrite"));
  const pid = daemon.child.pid!;
  console.log(`load: ${CLIENTS} clients for ${DURATION_S} s against ${daemon.url} (pid ${pid}); abusers: ${[...ABUSE].join(", ") || "none"}`);
  if (ABUSE.has("flood")) console.log(`  flood: ${FLOOD_RATE} initialize/s, never used, never deleted`);
  if (ABUSE.has("rewrite")) console.log(`  rewrite: a ${BIG_RECIPES}-recipe pack every ${REWRITE_EVERY_S} s in 4 writes 30 ms apart; clients poll recipes__get ${lastBigRecipe()}`);
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => connect(daemon.url)));
  const latencies = new Map<string, number[]>();
  const errors: string[] = [];
  const revisionsSeen = new Set<number>();
  const samples: Array<{ t: number; rss: number }> = [];
  const started = Date.now();
  const deadline = started + DURATION_S * 1000;
  const sampler = setInterval(() => {
    void rssBytes(pid).then((rss) => samples.push({ t: (Date.now() - started) / 1000, rss }));
  }, SAMPLE_S * 1000);
  samples.push({ t: 0, rss: await rssBytes(pid) });

  const ops: Array<[string, number]> = [["search", 35], ["get", 20], ["validate", 15], ["apply", 15], ["write", 15]];
  if (ABUSE.has("rewrite")) ops.push(["poll-big", 20]);
  const abusing = (at = Date.now()): boolean => ALTERNATE_S <= 0 || Math.floor((at - started) / (ALTERNATE_S * 1000)) % 2 === 1;
  const perWindow = { on: { ops: 0, errors: 0 }, off: { ops: 0, errors: 0 } };
  const abusers = {
    flood: ABUSE.has("flood") ? flooder(daemon.url, deadline, abusing) : null,
    rewrite: ABUSE.has("rewrite") ? rewriter(path.join(skillsDir, "bench-big", "big.yaml"), deadline, abusing) : null,
  };
  const totalWeight = ops.reduce((s, [, w]) => s + w, 0);
  const pick = (): string => {
    let r = Math.random() * totalWeight;
    for (const [op, w] of ops) if ((r -= w) < 0) return op;
    return "search";
  };
  const GETS = [["maya-modeling", "Subdivide and relax"], ["bench-ops", "make_box"]];

  await Promise.all(
    clients.map(async (client, index) => {
      const mine: string[] = [];
      let n = 0;
      while (Date.now() < deadline) {
        let op = pick();
        let args: Record<string, unknown>;
        let tool = "recipes__search";
        switch (op) {
          case "search":
            tool = Math.random() < 0.5 ? "recipes__search" : "recipe";
            args = tool === "recipe"
              ? { action: "search", query: QUERIES[n % QUERIES.length] }
              : { query: QUERIES[n % QUERIES.length] };
            break;
          case "get": {
            const [skill, anchor] = GETS[n % GETS.length]!;
            tool = "recipes__get";
            args = { skill, anchor };
            break;
          }
          case "poll-big":
            tool = "recipes__get";
            args = { skill: "bench-big", anchor: lastBigRecipe() };
            break;
          case "validate":
            tool = "recipes__validate";
            args = { skill: "bench-ops", recipe: "make_box", inputs: { name: `box${n}`, size: 2 }, output: { changed: true } };
            break;
          case "apply":
            tool = "recipes__apply";
            args = { skill: "bench-ops", recipe: "make_box", inputs: { name: `box${n}` }, materialize: true };
            break;
          default:
            tool = "recipe";
            if (mine.length < CREATES_PER_CLIENT) {
              op = "create";
              args = { action: "create", ...playbookArgs(`c${index}`, mine.length) };
            } else {
              op = "update";
              args = { action: "update", recipeId: mine[n % mine.length], summary: `Updated summary ${n}` };
            }
        }
        n += 1;
        const t0 = performance.now();
        try {
          const envelope = await callTool(client, tool, args);
          const ms = performance.now() - t0;
          const window = perWindow[abusing() ? "on" : "off"];
          window.ops += 1;
          if (!envelope.success) window.errors += 1;
          if (!envelope.success) errors.push(`${op}: ${envelope.error}: ${envelope.message}`);
          else if (op === "poll-big") {
            // Which rewrite the answer came from: proof the reloads reach the clients.
            const revision = Number(/revision (\d+)/.exec(JSON.stringify(envelope))?.[1] ?? -1);
            revisionsSeen.add(revision);
          }
          else if (op === "create") mine.push(String(envelope.context?.recipeId));
          const list = latencies.get(op) ?? [];
          list.push(ms);
          latencies.set(op, list);
        } catch (error) {
          perWindow[abusing() ? "on" : "off"].errors += 1;
          errors.push(`${op}: ${String(error)}`);
        }
      }
    }),
  );
  clearInterval(sampler);
  samples.push({ t: (Date.now() - started) / 1000, rss: await rssBytes(pid) });
  const elapsed = (Date.now() - started) / 1000;
  const floodStatuses = await abusers.flood;
  const rewrite = await abusers.rewrite;
  const ready = (await fetch(`${daemon.url}/status`).then((r) => r.json(), () => ({}))) as { sessions?: number };
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  daemon.child.kill("SIGTERM");
  const code = await daemon.exited;

  const all = [...latencies.values()].flat().sort((a, b) => a - b);
  console.log(`\nops: ${all.length} in ${elapsed.toFixed(1)} s = ${(all.length / elapsed).toFixed(0)} ops/s; errors (well-behaved clients): ${errors.length}`);
  const kinds = new Map<string, number>();
  for (const e of errors) {
    const kind = e.replace(/\d+/g, "N").slice(0, 120);
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  for (const [kind, n] of [...kinds].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`  ${String(n).padStart(6)} × ${kind}`);
  if (floodStatuses) {
    const sent = [...floodStatuses.values()].reduce((a, b) => a + b, 0);
    console.log(`flood: ${sent} initializes: ${[...floodStatuses].map(([k, n]) => `${k}: ${n}`).join(", ")}; live sessions at the end: ${ready.sessions ?? "?"}`);
  }
  if (ALTERNATE_S > 0 && ABUSE.size > 0) {
    // Seconds spent in "on" windows: every odd window, the last one cut at `elapsed`.
    let onSeconds = 0;
    for (let start = ALTERNATE_S; start < elapsed; start += 2 * ALTERNATE_S) onSeconds += Math.min(ALTERNATE_S, elapsed - start);
    const on = perWindow.on.ops / onSeconds;
    const off = perWindow.off.ops / (elapsed - onSeconds);
    console.log(
      `A/B in ${ALTERNATE_S} s windows: well-behaved ${on.toFixed(1)} ops/s with the abusers, ${off.toFixed(1)} without = ${(on / off).toFixed(2)}x; ` +
        `errors ${perWindow.on.errors} with, ${perWindow.off.errors} without`,
    );
  }
  if (rewrite !== null) {
    const gaps = [...rewrite.gaps].sort((a, b) => a - b);
    const polls = latencies.get("poll-big")?.length ?? 0;
    const failed = errors.filter((e) => e.startsWith("poll-big:")).length;
    console.log(
      `rewrite: ${rewrite.rewrites} in-place rewrites (gaps between writes p50 ${percentile(gaps, 50).toFixed(0)} ms, max ${(gaps.at(-1) ?? NaN).toFixed(0)} ms); ` +
        `recipes__get ${lastBigRecipe()}: ${polls} answered, ${failed} failed; ` +
        `${revisionsSeen.size} distinct revisions served (latest ${Math.max(-1, ...revisionsSeen)})`,
    );
  }
  const row = (name: string, list: number[]) => {
    const s = [...list].sort((a, b) => a - b);
    console.log(`  ${name.padEnd(9)} n=${String(s.length).padStart(7)}  p50=${percentile(s, 50).toFixed(1)} ms  p95=${percentile(s, 95).toFixed(1)} ms  p99=${percentile(s, 99).toFixed(1)} ms  max=${(s.at(-1) ?? NaN).toFixed(1)} ms`);
  };
  row("all", all);
  for (const [op, list] of latencies) row(op, list);
  console.log("\nRSS samples (s → MiB):");
  console.log("  " + samples.map((s) => `${s.t.toFixed(0)}→${(s.rss / 1048576).toFixed(1)}`).join("  "));
  const window = Math.min(60, elapsed / 3);
  const first = samples.filter((s) => s.t > 0 && s.t <= window);
  const last = samples.filter((s) => s.t >= elapsed - window);
  const avg = (xs: typeof samples) => xs.reduce((a, s) => a + s.rss, 0) / Math.max(1, xs.length);
  const ratio = avg(last) / avg(first);
  console.log(
    `RSS first ${window.toFixed(0)} s avg ${(avg(first) / 1048576).toFixed(1)} MiB (n=${first.length}), ` +
      `last ${window.toFixed(0)} s avg ${(avg(last) / 1048576).toFixed(1)} MiB (n=${last.length}), last/first = ${ratio.toFixed(3)}`,
  );
  console.log(`server exit code after SIGTERM: ${code}`);
  return errors.length === 0 && code === 0;
}

async function killPhase(tmp: string, skillsDir: string): Promise<boolean> {
  const dataDir = path.join(tmp, "kill-data");
  const privateDir = path.join(tmp, "kill-private");
  const daemon = await startDaemon(dataDir, skillsDir, privateDir);
  const clients = await Promise.all(Array.from({ length: KILL_CLIENTS }, () => connect(daemon.url)));
  /** recipeId → last acknowledged { revision, summary marker }. */
  const acked = new Map<string, { revision: number; summary: string }>();
  let unacked = 0;
  let killed = false;
  const killAt = KILL_AFTER_S * (0.5 + Math.random() * 0.5) * 1000;
  console.log(`\nkill: ${KILL_CLIENTS} writers, SIGKILL after ${(killAt / 1000).toFixed(1)} s`);
  const writers = clients.map(async (client, index) => {
    const mine: string[] = [];
    for (let n = 0; !killed; n++) {
      const create = mine.length < 5 || n % 3 === 0;
      const summary = `ack ${index}/${n}`;
      const args = create
        ? { action: "create", ...playbookArgs(`k${index}`, n), summary }
        : { action: "update", recipeId: mine[n % mine.length], summary };
      try {
        const envelope = await callTool(client, "recipe", args);
        if (!envelope.success) throw new Error(`${envelope.error}: ${envelope.message}`);
        const recipeId = String(envelope.context?.recipeId);
        const revision = Number(envelope.context?.revision);
        if (create) mine.push(recipeId);
        acked.set(recipeId, { revision, summary });
      } catch {
        unacked += 1;
      }
    }
  });
  await sleep(killAt);
  daemon.child.kill("SIGKILL");
  killed = true;
  await daemon.exited;
  await Promise.all(writers);
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  console.log(`acknowledged playbooks: ${acked.size}; calls cut by the kill: ${unacked}`);

  const leftovers = (await fs.readdir(privateDir)).filter((f) => !f.endsWith(".md"));
  const restarted = await startDaemon(dataDir, skillsDir, privateDir);
  const reader = await connect(restarted.url);
  const lost: string[] = [];
  for (const [recipeId, ack] of acked) {
    const envelope = await callTool(reader, "recipe", { action: "get", recipeId });
    const revision = Number(envelope.context?.revision);
    if (!envelope.success) lost.push(`${recipeId}: ${envelope.message}`);
    else if (revision < ack.revision) lost.push(`${recipeId}: revision ${revision} < acknowledged ${ack.revision}`);
    else if (revision === ack.revision && envelope.context?.summary !== ack.summary) lost.push(`${recipeId}: content differs at revision ${revision}`);
  }
  // Still writable: a lock or temp file left by the killed writer must not block the next update.
  let blocked = 0;
  for (const recipeId of acked.keys()) {
    const envelope = await callTool(reader, "recipe", { action: "update", recipeId, summary: "after restart" });
    if (!envelope.success) blocked += 1;
  }
  console.log(`updates after restart: ${acked.size - blocked}/${acked.size} succeeded`);
  await reader.close();
  restarted.child.kill("SIGTERM");
  await restarted.exited;
  console.log(`non-.md files left in the private dir after the kill: ${leftovers.length}${leftovers.length ? ` (${leftovers.slice(0, 5).join(", ")})` : ""}`);
  console.log(`after restart: ${acked.size - lost.length}/${acked.size} acknowledged writes present`);
  for (const l of lost.slice(0, 10)) console.log(`  lost: ${l}`);
  return lost.length === 0 && blocked === 0;
}

async function main(): Promise<void> {
  const tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "recipe-load-")));
  const skillsDir = path.join(tmp, "skills");
  await fs.mkdir(path.join(skillsDir, "bench-ops"), { recursive: true });
  await fs.writeFile(path.join(skillsDir, "bench-ops/SKILL.md"), BENCH_SKILL);
  await fs.writeFile(path.join(skillsDir, "bench-ops/ops.yaml"), BENCH_PACK);
  await fs.mkdir(path.join(skillsDir, "bench-big"), { recursive: true });
  await fs.writeFile(path.join(skillsDir, "bench-big/SKILL.md"), BIG_SKILL);
  await fs.writeFile(path.join(skillsDir, "bench-big/big.yaml"), bigPack(0));
  console.log(`node ${process.version}, ${os.cpus().length} cpus, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  let ok = true;
  try {
    if (!flags["skip-load"]) ok = (await loadPhase(tmp, skillsDir)) && ok;
    if (!flags["skip-kill"]) ok = (await killPhase(tmp, skillsDir)) && ok;
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
  console.log(ok ? "\nPASS" : "\nFAIL");
  process.exit(ok ? 0 : 1);
}

void main();
