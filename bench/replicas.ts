/**
 * Replicas on one PostgreSQL store, on a cluster this bench starts and removes:
 *
 * 1. Propagation: a create (and an update) answered by replica A, until
 *    replica B has published it (B's catalog listener fires with it; B's
 *    search finds it from then on). p50/p99 over --samples writes.
 * 2. Updates of one playbook under contention: 2 replicas × 16 callers,
 *    each read → update with expectedRevision → retry on conflict, for
 *    --seconds; acknowledged updates/s and conflicts per acknowledged update.
 *    Peer in the same run: the same callers on 32 distinct playbooks.
 * 3. The bench:private-store cells for both stores side by side, alternating
 *    file / postgres per cell: ops/s and p99 with 1 and 16 callers.
 *
 * Two replicas here are two RecipeLibrary instances in one process, each with
 * its own pool and LISTEN connection: the store, NOTIFY and catalog path of a
 * replica, without HTTP.
 *
 *   npm run bench:replicas [-- --samples 200 --seconds 5 --ops 300]
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { RecipeLibrary } from "../src/recipes/library.js";
import type { PlaybookStore } from "../src/recipes/private/contract.js";
import { openStores } from "../src/recipes/private/open-store.js";
import type { PlaybookDraft } from "../src/recipes/private/playbook-values.js";
import { createSearchEngine } from "../src/recipes/search/engine.js";
import { startPostgres } from "../test/postgres-cluster.js";
import { measureOps, percentile } from "./lib/measure-ops.js";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const SAMPLES = arg("samples", 200);
const SECONDS = arg("seconds", 5);
const OPS = arg("ops", 300);

function draft(i: number, title = `Bench playbook ${i}`): PlaybookDraft {
  return {
    title,
    summary: "Bake high-poly normals onto a low-poly cage without seams.",
    whenToUse: "A game asset needs a tangent-space normal map from a sculpt.",
    steps: Array.from({ length: 6 }, (_, k) => ({ title: `Step ${k}`, detail: `Do the ${k}th thing carefully. `.repeat(6) })),
    acceptanceCriteria: ["No seams on UV borders", "16-bit output"],
    tags: ["maya", "baking"],
    document: `# Bench ${i}\n\n${"A paragraph of notes about the bake. ".repeat(60)}\n`,
  };
}

async function replica(url: string, tmp: string, name: string): Promise<RecipeLibrary> {
  const dir = path.join(tmp, name);
  await fs.mkdir(dir, { recursive: true });
  const library = new RecipeLibrary({
    settings: { dcc: "maya", skillRoots: [], privateDir: path.join(dir, "private"), stateDir: dir, storeUrl: url },
    search: createSearchEngine({ provider: null }),
    logger: pino({ level: "silent" }),
  });
  await library.load();
  return library;
}

/** Resolves when `library` publishes a snapshot in which `recipeId` is at `revision`. */
function seen(library: RecipeLibrary, recipeId: string, revision: number): Promise<number> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      const r = library.current()?.recipes.get(recipeId);
      return r?.format === "private" && r.playbook.revision >= revision;
    };
    if (check()) return resolve(performance.now());
    const off = library.onChange(() => {
      if (check()) {
        off();
        resolve(performance.now());
      }
    });
  });
}

async function propagation(a: RecipeLibrary, b: RecipeLibrary): Promise<void> {
  const creates: number[] = [];
  const updates: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t0 = performance.now();
    const made = await a.createPlaybook(draft(i, `Propagation ${i}`));
    if (!made.ok) throw new Error(made.message);
    const id = `private/${made.playbook.slug}`;
    creates.push((await seen(b, id, 1)) - t0);
    // B's search finds it once published (index first, then expose).
    const hit = await b.search.search({ text: `Propagation ${i}`, limit: 3, visibility: "private" });
    if (!hit.hits.some((h) => h.recipe.recipeId === id)) throw new Error(`B published ${id} but its search misses it`);
    const t1 = performance.now();
    const changed = await a.updatePlaybook(made.playbook.slug, { summary: `changed ${i}` }, 1);
    if (!changed.ok) throw new Error(changed.message);
    updates.push((await seen(b, id, 2)) - t1);
  }
  const line = (what: string, xs: number[]): string => {
    const s = [...xs].sort((x, y) => x - y);
    return `${what.padEnd(8)} p50 ${percentile(s, 50).toFixed(1)} ms  p99 ${percentile(s, 99).toFixed(1)} ms  max ${s[s.length - 1]!.toFixed(1)} ms`;
  };
  console.log(`propagation A → B (write answered on A until B publishes it), ${SAMPLES} samples`);
  console.log(`  ${line("create", creates)}`);
  console.log(`  ${line("update", updates)}\n`);
}

async function contention(stores: readonly PlaybookStore[], slugs: (caller: number) => string): Promise<{ acknowledged: number; perSec: number; conflicts: number }> {
  let acknowledged = 0;
  let conflicts = 0;
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: 32 }, async (_, c) => {
      const store = stores[c % 2]!;
      const slug = slugs(c);
      while (performance.now() < until) {
        const current = (await store.loadOne(slug)).playbook!;
        const result = await store.update(slug, { summary: `caller ${c}` }, current.revision);
        if (result.ok) acknowledged += 1;
        else if (result.code === "conflict") conflicts += 1;
        else throw new Error(result.message);
      }
    }),
  );
  return { acknowledged, perSec: acknowledged / SECONDS, conflicts: conflicts / Math.max(1, acknowledged) };
}

const must = async (work: Promise<{ ok: boolean }>): Promise<void> => {
  const r = await work;
  if (!r.ok) throw new Error(JSON.stringify(r));
};

async function sideBySide(openKind: (kind: "file" | "postgres") => Promise<PlaybookStore>): Promise<void> {
  console.log(`bench:private-store cells, both stores, alternating per cell; ${OPS} ops per cell`);
  const header = ["operation", "callers", "file ops/s", "file p99", "pg ops/s", "pg p99", "pg/file"];
  const rows: string[][] = [];
  for (const callers of [1, 16]) {
    const stores = { file: await openKind("file"), postgres: await openKind("postgres") };
    const cells: Array<[string, (s: PlaybookStore) => (i: number) => Promise<void>]> = [
      ["create (distinct titles)", (s) => (i) => must(s.create(draft(i)))],
      ["create (one title)", (s) => () => must(s.create(draft(0, "One title")))],
      ["update (16 playbooks)", (s) => (i) => must(s.update(`bench-playbook-${i % 16}`, { summary: `u${i}` }))],
      ["update (1 playbook)", (s) => (i) => must(s.update("bench-playbook-0", { summary: `u${i}` }))],
    ];
    for (const [what, op] of cells) {
      const file = await measureOps(OPS, callers, op(stores.file));
      const pgCell = await measureOps(OPS, callers, op(stores.postgres));
      rows.push([what, String(callers), file.opsPerSec.toFixed(0), file.p99.toFixed(2), pgCell.opsPerSec.toFixed(0), pgCell.p99.toFixed(2), (pgCell.opsPerSec / file.opsPerSec).toFixed(2)]);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(fmt(header));
  for (const r of rows) console.log(fmt(r));
}

// fsync on: the file store fsyncs every write, so the side-by-side cells compare durable writes with durable writes.
const cluster = await startPostgres(undefined, { fsync: true });
if (typeof cluster === "string") {
  console.log(`bench:replicas skipped: ${cluster}`);
  process.exit(0);
}
const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "bench-replicas-"));
const closers: Array<() => Promise<void>> = [];
try {
  console.log(`bench:replicas: PostgreSQL on 127.0.0.1:${cluster.port} (fsync on), node ${process.version}, ${os.cpus().length} cores (shared machine: figures are noisy)\n`);
  const url = await cluster.createDatabase();
  const [a, b] = [await replica(url, tmp, "a"), await replica(url, tmp, "b")];
  closers.push(() => a.close(), () => b.close());
  await propagation(a, b);

  const hot = await a.createPlaybook(draft(0, "Contended"));
  if (!hot.ok) throw new Error(hot.message);
  const spread: string[] = [];
  for (let i = 0; i < 32; i++) {
    const r = await a.createPlaybook(draft(i, `Spread ${i}`));
    if (r.ok) spread.push(r.playbook.slug);
  }
  const one = await contention([a.store, b.store], () => hot.playbook.slug);
  const many = await contention([a.store, b.store], (c) => spread[c]!);
  console.log(`updates, 2 replicas × 16 callers, read → update(expectedRevision) → retry, ${SECONDS} s each`);
  console.log(`  one playbook:    ${one.perSec.toFixed(0)} acknowledged/s, ${one.conflicts.toFixed(2)} conflicts per acknowledged update`);
  console.log(`  32 playbooks:    ${many.perSec.toFixed(0)} acknowledged/s, ${many.conflicts.toFixed(2)} conflicts per acknowledged update (peer)`);
  const final = (await a.store.loadOne(hot.playbook.slug)).playbook!;
  console.log(`  one playbook ended at revision ${final.revision}; 1 + acknowledged updates = ${1 + one.acknowledged} (equal: nothing lost)\n`);

  let n = 0;
  await sideBySide(async (kind) => {
    const stores = openStores({
      dcc: "maya",
      privateDir: path.join(tmp, `side-${n++}`),
      usageFile: path.join(tmp, `usage-${n}.json`),
      storeUrl: kind === "postgres" ? await cluster.createDatabase() : null,
    });
    closers.push(() => stores.close());
    await stores.store.startupProblem();
    return stores.store;
  });
} finally {
  for (const close of closers) await close().catch(() => undefined);
  await cluster.destroy();
  await fs.rm(tmp, { recursive: true, force: true });
}
