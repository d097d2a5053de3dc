/**
 * Replicas on one PostgreSQL store, on a cluster this bench starts and removes:
 *
 * 1. Propagation: a create (and an update) answered by replica A, until
 *    replica B has published it (B's catalog listener fires with it; B's
 *    search finds it from then on). p50/p99 over --samples writes.
 * 1b. Semantic propagation (bench/lib/semantic-propagation.ts): A lexical
 *    only, B with the local model; per write, when B publishes it and when
 *    B's search answers it for a paraphrase A's lexical index misses. Once
 *    with two single-user libraries, once with one user's libraries as a
 *    users file makes them, alternating per sample (--semantic-samples, ≤ 100).
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
 *   npm run bench:replicas [-- --samples 200 --seconds 5 --ops 300 --semantic-samples 50]
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { RecipeLibrary } from "../src/recipes/catalog/library.js";
import type { PlaybookStore } from "../src/recipes/store/contract.js";
import { openStores } from "../src/recipes/store/open-store.js";
import type { PlaybookDraft } from "../src/recipes/store/playbook-values.js";
import { createSearchEngine } from "../src/recipes/search/engine.js";
import { startPostgres } from "../test/postgres-cluster.js";
import { measureOps, percentile } from "./lib/measure-ops.js";
import { published, semanticPropagation } from "./lib/semantic-propagation.js";
import { createLocalProvider } from "../src/recipes/search/embeddings/local.js";
import type { EmbeddingProvider } from "../src/recipes/search/types.js";
import { UserLibraries } from "../src/recipes/catalog/user-libraries.js";
import { createHashingProvider } from "../src/recipes/search/embeddings/hashing.js";
import { generateTree } from "./lib/generate.js";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const SAMPLES = arg("samples", 200);
const SECONDS = arg("seconds", 5);
const OPS = arg("ops", 300);
const SEMANTIC = arg("semantic-samples", 50);
/** Public recipes on B for the scale section (0: skipped); embedded with the hashing provider, see semanticAtScale. */
const PUBLIC = arg("public", 0);
/** --only-semantic: the semantic sections alone; --only-scale: the scale section alone. */
const ONLY_SCALE = process.argv.includes("--only-scale");
const ONLY_SEMANTIC = ONLY_SCALE || process.argv.includes("--only-semantic");

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

async function replica(url: string, tmp: string, name: string, provider: EmbeddingProvider | null = null, skillRoots: readonly string[] = []): Promise<RecipeLibrary> {
  const dir = path.join(tmp, name);
  await fs.mkdir(dir, { recursive: true });
  const library = new RecipeLibrary({
    settings: { dcc: "maya", skillRoots, privateDir: path.join(dir, "private"), stateDir: dir, storeUrl: url },
    // A vector cache as the daemon keeps one: B rewrites it after embedding a change.
    search: createSearchEngine({ provider, cacheDir: path.join(dir, "vectors") }),
    logger: pino({ level: "silent" }),
  });
  await library.load();
  return library;
}

/** One user's library on a replica, made as a users file makes it (user-libraries.ts). */
async function userReplica(url: string, tmp: string, name: string, provider: EmbeddingProvider | null): Promise<{ library: RecipeLibrary; close: () => Promise<void> }> {
  const dir = path.join(tmp, name);
  const users = new UserLibraries({
    settings: { dcc: "maya", skillRoots: [], privateDir: path.join(dir, "private"), stateDir: dir, storeUrl: url },
    createSearch: () => createSearchEngine({ provider }),
    logger: pino({ level: "silent" }),
  });
  const mine = users.of("artist");
  await mine.loaded;
  return { library: mine.library, close: () => users.close() };
}

/**
 * The semantic leg with a large public catalog beside the playbooks (single
 * user: one engine holds both): what B's engine does per change around the
 * embedding (the live set rebuilt, the missing views found, the rows
 * repacked, the vector cache rewritten) grows with the catalog. Warming
 * USE-Lite over 20,000 recipes takes many minutes here, so this section
 * embeds with the hashing provider (microseconds per text, 512 dimensions as
 * USE-Lite): its figures are that plumbing; add the local model's embedding
 * time of one playbook (the small-catalog section above) for the whole leg.
 */
async function semanticAtScale(url: string, tmp: string): Promise<void> {
  const tree = await generateTree(path.join(tmp, "public"), Math.ceil(PUBLIC / 20), 20);
  const provider = createHashingProvider({ dimension: 512 });
  const a = await replica(url, tmp, "scale-a");
  const b = await replica(url, tmp, "scale-b", provider, [tree.root]);
  try {
    const t0 = performance.now();
    await b.search.whenSemanticReady();
    console.log(`semantic plumbing at scale: B serves ${tree.recipes} public recipes (hashing provider, warm in ${((performance.now() - t0) / 1000).toFixed(1)} s); ${SEMANTIC} creates then updates`);
    const r = await semanticPropagation(a, b, SEMANTIC);
    console.log(`  ${line("create lex", r.create.lexical)}`);
    console.log(`  ${line("create sem", r.create.semantic)}`);
    console.log(`  ${line("update lex", r.update.lexical)}`);
    console.log(`  ${line("update sem", r.update.semantic)}\n`);
  } finally {
    await Promise.all([a.close(), b.close()]);
    await b.search.close();
    await provider.close();
  }
}

const line = (what: string, xs: readonly number[]): string => {
  const s = [...xs].sort((x, y) => x - y);
  return `${what.padEnd(18)} p50 ${percentile(s, 50).toFixed(1).padStart(6)} ms  p99 ${percentile(s, 99).toFixed(1).padStart(6)} ms  max ${s[s.length - 1]!.toFixed(1).padStart(6)} ms`;
};

async function semantic(url: string, tmp: string): Promise<void> {
  const provider = createLocalProvider();
  const closers: Array<() => Promise<void>> = [];
  try {
    const single = { a: await replica(url, tmp, "sem-a"), b: await replica(url, tmp, "sem-b", provider) };
    closers.push(() => single.a.close(), () => single.b.close(), () => single.b.search.close());
    const ua = await userReplica(url, tmp, "user-a", null);
    const ub = await userReplica(url, tmp, "user-b", provider);
    closers.push(ua.close, ub.close);
    console.log(`semantic propagation: A lexical only, B with the local model (USE-Lite); ${SEMANTIC} creates then updates each, alternating single-user / users file per sample`);
    console.log("  lexical = B has published the write; semantic = B's search answers it for a paraphrase A's lexical index misses");
    const rows: Record<string, number[]> = {};
    const add = (key: string, xs: readonly number[]): void => void (rows[key] = [...(rows[key] ?? []), ...xs]);
    for (let i = 0; i < SEMANTIC; i++) {
      for (const [who, pair] of [["single", single], ["users", { a: ua.library, b: ub.library }]] as const) {
        const r = await semanticPropagation(pair.a, pair.b, 1);
        add(`${who} create lex`, r.create.lexical);
        add(`${who} create sem`, r.create.semantic);
        add(`${who} update lex`, r.update.lexical);
        add(`${who} update sem`, r.update.semantic);
      }
    }
    for (const [key, xs] of Object.entries(rows)) console.log(`  ${line(key, xs)}`);
    console.log("");
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await provider.close();
  }
}

async function propagation(a: RecipeLibrary, b: RecipeLibrary): Promise<void> {
  const creates: number[] = [];
  const updates: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t0 = performance.now();
    const made = await a.createPlaybook(draft(i, `Propagation ${i}`));
    if (!made.ok) throw new Error(made.message);
    const id = `private/${made.playbook.slug}`;
    creates.push((await published(b, id, 1)) - t0);
    // B's search finds it once published (index first, then expose).
    const hit = await b.search.search({ text: `Propagation ${i}`, limit: 3, visibility: "private" });
    if (!hit.hits.some((h) => h.recipe.recipeId === id)) throw new Error(`B published ${id} but its search misses it`);
    const t1 = performance.now();
    const changed = await a.updatePlaybook(made.playbook.slug, { summary: `changed ${i}` }, 1);
    if (!changed.ok) throw new Error(changed.message);
    updates.push((await published(b, id, 2)) - t1);
  }
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
  if (!ONLY_SEMANTIC) await propagation(a, b);
  if (SEMANTIC > 0 && !ONLY_SCALE) await semantic(await cluster.createDatabase(), tmp);
  if (SEMANTIC > 0 && PUBLIC > 0) await semanticAtScale(await cluster.createDatabase(), tmp);
  if (!ONLY_SEMANTIC) {
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
  }
} finally {
  for (const close of closers) await close().catch(() => undefined);
  await cluster.destroy();
  await fs.rm(tmp, { recursive: true, force: true });
}
