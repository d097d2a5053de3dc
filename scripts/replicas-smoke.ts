/**
 * The replicas smoke run (scripts/replicas-smoke.sh): a real PostgreSQL and
 * two real recipe-server processes on loopback, driven by the SDK client.
 * Proves, printing one line per check:
 *   - a create on A is searchable on B (p50/p99 of the delay) and B's session hears list_changed;
 *   - 2 replicas × 16 clients updating one playbook lose nothing; losers get conflict;
 *   - PostgreSQL stopped: private writes answer not_ready naming the store, /status says so;
 *     restarted: the replicas recover by themselves;
 *   - replica B kill -9'd during keyed creates: every acknowledged create is there, and
 *     retries with the same idempotencyKey on A make no duplicate.
 * Exits 1 on the first failed check; removes the cluster and the processes either way.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startPostgres, type PostgresCluster } from "../test/postgres-cluster.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const TOKEN = "smoke-token";
const children = new Set<ChildProcess>();

interface Replica {
  readonly url: string;
  readonly child: ChildProcess;
}

function check(ok: boolean, what: string): void {
  console.log(`${ok ? "PASS" : "FAIL"}  ${what}`);
  if (!ok) throw new Error(`check failed: ${what}`);
}

async function startReplica(cluster: PostgresCluster, store: string): Promise<Replica> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "src/cli.ts"), "--dcc", "maya", "--port", "0", "--embeddings", "none", "--no-watch", "--token", TOKEN, "--skills-path", path.join(ROOT, "skills-example"), "--store", store], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1", XDG_DATA_HOME: path.join(cluster.dir, `replica-${children.size}`) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.add(child);
  child.on("exit", () => children.delete(child));
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)\/mcp"/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on("exit", (code) => reject(new Error(`replica exited ${code}: ${out}`)));
  });
  await until(async () => (await fetch(`${url}/readyz`)).ok);
  return { url, child };
}

const auth = (): Record<string, string> => ({ authorization: `Bearer ${TOKEN}` });

async function client(url: string): Promise<Client> {
  const c = new Client({ name: "replicas-smoke", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: auth() } }));
  return c;
}

// Deep, loosely typed envelopes.
async function recipe(c: Client, args: Record<string, unknown>): Promise<any> {
  const result = (await c.callTool({ name: "recipe", arguments: args })) as { content: Array<{ text: string }> };
  return JSON.parse(result.content[0]!.text);
}

function create(title: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { action: "create", title, summary: `${title}, summarised.`, whenToUse: "In the smoke run.", steps: [{ title: "Do", detail: "it" }], acceptanceCriteria: ["done"], tags: [], document: `# ${title}\n`, ...extra };
}

async function until(probe: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

const cluster = await startPostgres();
if (typeof cluster === "string") {
  console.log(`replicas smoke skipped: ${cluster}`);
  process.exit(0);
}
let failed = false;
try {
  const store = await cluster.createDatabase();
  const a = await startReplica(cluster, store);
  const b = await startReplica(cluster, store);
  console.log(`PostgreSQL on 127.0.0.1:${cluster.port}; replica A ${a.url}, replica B ${b.url}`);
  const [ca, cb] = [await client(a.url), await client(b.url)];
  let heard = 0;
  cb.setNotificationHandler(ResourceListChangedNotificationSchema, () => void (heard += 1));

  const delays: number[] = [];
  for (let i = 0; i < 40; i++) {
    const made = await recipe(ca, create(`Smoke propagation ${i} quokka`));
    const t0 = performance.now();
    await until(async () => (await recipe(cb, { action: "search", query: `Smoke propagation ${i} quokka`, visibility: "private", limit: 3 })).context.recipes.some((r: { recipeId: string }) => r.recipeId === made.context.recipeId));
    delays.push(performance.now() - t0);
  }
  delays.sort((x, y) => x - y);
  const p = (q: number): number => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))]!;
  check(p(0.99) < 1000, `create on A searchable on B: p50 ${p(0.5).toFixed(0)} ms, p99 ${p(0.99).toFixed(0)} ms over ${delays.length} creates (SDK polling, so an upper bound)`);
  check(heard > 0, `B's session heard resources/list_changed ${heard} time(s)`);

  const hot = await recipe(ca, create("Smoke contended"));
  const id = hot.context.recipeId as string;
  await until(async () => (await recipe(cb, { action: "get", recipeId: id })).success);
  const many = await Promise.all(Array.from({ length: 32 }, (_, i) => client(i % 2 ? a.url : b.url)));
  let conflicts = 0;
  await Promise.all(
    many.map(async (c, i) => {
      for (;;) {
        const got = await recipe(c, { action: "get", recipeId: id });
        const answer = await recipe(c, { action: "update", recipeId: id, tags: [...got.context.tags, `c${i}`], expectedRevision: got.context.revision });
        if (answer.success) return;
        if (answer.error !== "conflict" || typeof answer.context.currentRevision !== "number") throw new Error(JSON.stringify(answer));
        conflicts += 1;
      }
    }),
  );
  await Promise.all(many.map((c) => c.close()));
  const final = await recipe(ca, { action: "get", recipeId: id });
  check(final.context.revision === 33 && final.context.tags.length === 32, `2 replicas × 16 clients on one playbook: revision ${final.context.revision}, ${final.context.tags.length}/32 updates kept, ${conflicts} conflicts answered with the current revision`);

  await cluster.stop();
  const refused = await recipe(ca, create("Smoke while down"));
  const ready = (await (await fetch(`${a.url}/status`, { headers: auth() })).json()) as { dccs: Array<{ store: { ready: boolean } }> };
  check(refused.error === "not_ready" && /postgres:\/\/postgres@127\.0\.0\.1/.test(refused.message) && ready.dccs[0]!.store.ready === false, `PostgreSQL stopped: create answers not_ready ("${refused.message}"), /status store.ready=false`);
  await cluster.start();
  await until(async () => (await recipe(ca, create("Smoke after restart"))).success && (await recipe(cb, create("Smoke after restart B"))).success);
  check(true, "PostgreSQL restarted: both replicas write again without a restart of their own");

  const acknowledged = new Map<string, string>();
  const sent: string[] = [];
  const dead = new Promise<"dead">((resolve) => b.child.once("exit", () => resolve("dead")));
  const writers = [0, 1, 2, 3].map(async (w) => {
    for (let i = 0; ; i++) {
      const key = `smoke-kill-${w}-${i}`;
      sent.push(key);
      const answer = await Promise.race([recipe(cb, create(`Smoke kill ${w}`, { idempotencyKey: key })), dead]).catch(() => "dead" as const);
      if (answer === "dead") return;
      if (answer.success) acknowledged.set(key, answer.context.recipeId);
    }
  });
  await until(async () => acknowledged.size >= 50);
  b.child.kill("SIGKILL");
  await Promise.all(writers);
  let same = 0;
  for (const key of sent) {
    const retry = await recipe(ca, create(`Smoke kill ${key.split("-")[2]}`, { idempotencyKey: key }));
    if (acknowledged.get(key) === undefined || retry.context.recipeId === acknowledged.get(key)) same += 1;
  }
  check(same === sent.length, `replica B kill -9'd after ${acknowledged.size} acknowledged keyed creates: all there, and ${sent.length} retries on A made no duplicate`);
  await ca.close();
} catch (error) {
  failed = true;
  console.error(String(error));
} finally {
  for (const child of children) child.kill("SIGKILL");
  await cluster.destroy();
}
process.exit(failed ? 1 : 0);
