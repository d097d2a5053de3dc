/**
 * Search engine speed: p50/p99 search latency at 1,000 and 20,000
 * generated recipes, lexical and hybrid (query embedding by the real model
 * included), next to the substring scan of dcc-mcp-core's recipes__search
 * as the named peer; warm-up time and RSS with and without the model;
 * restart to hybrid-ready with a warm vector cache.
 *
 *   npm run bench:search            (add --quick for 1,000 only)
 *   npm run bench:search -- --lexical   (only the lexical index against MiniSearch)
 *   npm run bench:search -- --restart   (only the warm-cache restart at 20,000, five times, with its parts)
 *
 * First, the lexical index on its own against MiniSearch 7.2 (the index it
 * replaced, driven exactly as lexical.ts drove it, as the named peer): build
 * time for every document (tokenizing included, through the first query that
 * compacts), heap held by the index after a full GC, query p50/p99 at limit
 * 100 (what fusion asks for), a 10-recipe hot reload, and how often both
 * return the same top 10. Two corpora: this file's Zipf prose and the YAML
 * shape bench:server generates (bench/lib/generate.ts).
 *
 * The first 200 recipes of the 1,000 set are embedded for real (cold warm-up
 * figure); all other recipes get random unit vectors written into the cache under the
 * real model's id: ranking cost does not depend on the values, and embedding
 * 20,000 texts with USE-Lite takes many minutes (the measured per-text cost
 * gives the projection). Queries are always embedded by the real model.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import yaml from "js-yaml";
import { SEARCH_FIELDS, embeddingText, embeddingViews, textHash, toDocument, type SearchDocument } from "../src/recipes/search/document.js";
import { LexicalIndex } from "../src/recipes/search/lexical/engine.js";
import { tokenize } from "../src/recipes/search/tokenize.js";
import { packYaml, skillMarkdown } from "./lib/generate.js";
import { MiniSearchLexical } from "./lib/minisearch-lexical.js";
import { createSearchEngine, type SearchEngine } from "../src/recipes/search/engine.js";
import { createLocalProvider } from "../src/recipes/search/embeddings/local.js";
import { VectorCache } from "../src/recipes/search/vector-cache.js";
import { VectorStore } from "../src/recipes/search/vector-store.js";
import type { MarkdownRecipe, Recipe, YamlRecipe } from "../src/recipes/types.js";

const quick = process.argv.includes("--quick");
const lexicalOnly = process.argv.includes("--lexical");
const restartOnly = process.argv.includes("--restart");
const SIZES = quick ? [1_000] : [1_000, 20_000];
const QUERIES = 300;
/** Recipes embedded for real to time a cold warm-up. */
const COLD = 200;

/** Small deterministic PRNG (mulberry32) so every run indexes the same corpus. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VERBS = "bevel extrude inset merge mirror scatter bake export import freeze cache render light rig skin weld split smooth relax reduce unwrap project assign fracture simulate publish validate check clean".split(" ");
const NOUNS = "edges faces vertices mesh uvs material texture camera light cache frames scene skeleton joints curves volume particles fluid smoke hull shader layer pass asset shot namespace reference pivot transform".split(" ");
const WORDS = "the a selected all every hard soft bounded world local axis before after then keep verify report studio pipeline artist game engine render farm lod version path file node group attribute value range default threshold distance angle count".split(" ");
const DCCS = ["maya", "houdini", "blender", "3dsmax", "any"];

/**
 * Prose vocabulary: the DCC words above as the common head, then 6,000
 * pronounceable pseudo-words as the long tail, drawn with a Zipf(1) law as
 * natural text is; every query word is therefore known to the index, and
 * the head words sit in thousands of recipes (the expensive case).
 */
const VOCABULARY = (() => {
  const r = rng(11);
  const syllables = "ka lo mi re tu sa ne vo pi da ger fen tor lix mar quo bel sin ruk dez".split(" ");
  const tail = new Set<string>();
  while (tail.size < 6_000) tail.add(Array.from({ length: 2 + Math.floor(r() * 3) }, () => syllables[Math.floor(r() * syllables.length)]).join(""));
  return [...new Set([...WORDS, ...VERBS, ...NOUNS]), ...tail];
})();
const ZIPF = (() => {
  const cumulative: number[] = [];
  let sum = 0;
  for (let i = 0; i < VOCABULARY.length; i++) cumulative.push((sum += 1 / (i + 1)));
  return cumulative.map((c) => c / sum);
})();
function zipfWord(r: () => number): string {
  const x = r();
  let lo = 0;
  let hi = ZIPF.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ZIPF[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCABULARY[lo]!;
}

export function generate(n: number): Recipe[] {
  const r = rng(42);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const sentence = (len: number): string => Array.from({ length: len }, () => zipfWord(r)).join(" ");
  const recipes: Recipe[] = [];
  for (let i = 0; i < n; i++) {
    const skill = `skill-${i % 97}`;
    const verb = pick(VERBS);
    const noun = pick(NOUNS);
    const name = `${verb}_${noun}_${i}`;
    const base = { recipeId: `${skill}/${name}`, skill, name, dcc: pick(DCCS), description: `${verb} ${noun}: ${sentence(14)}`, tags: [pick(NOUNS), pick(VERBS)], file: "RECIPES.yaml", visibility: "public" as const };
    if (i % 3 === 0) {
      recipes.push({ ...base, format: "markdown", content: `## ${name}\n\n${sentence(60)}\n\n\`\`\`python\ncmds.${verb}("${noun}")\n\`\`\`\n${sentence(40)}` } satisfies MarkdownRecipe);
    } else {
      const steps = [{ tool: `mesh_ops__${verb}_${noun}`, arguments: { object_name: "${object}", [pick(WORDS)]: "${value}" } }];
      recipes.push({
        ...base,
        format: "yaml",
        entry: { name, description: base.description, steps },
        inputsSchema: { type: "object", properties: { object: { type: "string" } } },
        steps,
        outputContract: undefined,
        toolsetProfiles: [],
        pack: {},
        inputValidator: { ok: true, validator: { validate: () => ({ valid: true, errors: [] }) } },
        outputValidator: null,
      } satisfies YamlRecipe);
    }
  }
  return recipes;
}

/** Distinct queries (a numbered token keeps the query-vector cache from answering) of 2–6 words. */
export function queries(count: number): string[] {
  const r = rng(7);
  return Array.from({ length: count }, (_, i) => {
    // One name-like word (verb or noun) plus prose words from the same law as the corpus.
    const head = r() < 0.5 ? VERBS[Math.floor(r() * VERBS.length)]! : NOUNS[Math.floor(r() * NOUNS.length)]!;
    const words = Array.from({ length: 1 + Math.floor(r() * 5) }, () => zipfWord(r));
    return `${head} ${words.join(" ")} q${i}`;
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function latency(run: (q: string) => Promise<unknown> | unknown, qs: readonly string[]): Promise<{ p50: number; p99: number }> {
  for (const q of qs.slice(0, 20)) await run(`${q} warm`);
  const times: number[] = [];
  for (const q of qs) {
    const t = performance.now();
    await run(q);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

function substringScan(recipes: readonly Recipe[]): (q: string) => Recipe[] {
  return (q) => {
    const needle = q.toLowerCase();
    return recipes.filter((r) => r.name.toLowerCase().includes(needle) || r.description.toLowerCase().includes(needle)).slice(0, 10);
  };
}

const mb = (): number => Math.round(process.memoryUsage().rss / 1e6);
const ms = (x: number): string => `${x.toFixed(1)} ms`;

async function randomCache(dir: string, recipes: readonly Recipe[], providerId: string, dim: number, merge: boolean): Promise<void> {
  const r = rng(3);
  const cache = new VectorCache(dir, providerId, () => dim);
  const loaded = merge ? await cache.load() : null;
  const vectors = loaded?.ok ? loaded.store : new VectorStore();
  // Every view the engine embeds (embeddingViews), or a restart would embed the missing ones for real.
  for (const recipe of recipes) {
    for (const text of embeddingViews(toDocument(recipe))) {
      const v = Float32Array.from({ length: dim }, () => r() - 0.5);
      const n = Math.hypot(...v);
      for (let i = 0; i < dim; i++) v[i]! /= n;
      vectors.add(textHash(text), v);
    }
  }
  await cache.save(vectors);
}

/**
 * Restart to hybrid-ready over a warm cache, repeated, split into its parts:
 * lexical ready (update() returned), vector cache merged, model ready (the
 * worker's load and first inference), semantic ready; CPU of the process
 * (all threads) next to wall time, since the machine is shared.
 */
async function restartOnlyBench(n: number, runs: number): Promise<void> {
  const recipes = generate(n);
  const dir = await mkdtemp(path.join(os.tmpdir(), "bench-restart-"));
  try {
    await randomCache(dir, recipes, "energetic-ai/use-lite@0.2.0", 512, false);
    console.log(`restart at ${n.toLocaleString("en")} recipes, warm cache; ms from the provider's creation (process CPU ms in brackets)`);
    console.log("| run | lexical ready | cache merged | model ready | hybrid ready | first query |");
    console.log("|---|---|---|---|---|---|");
    for (let run = 1; run <= runs; run++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const mark = (): string => {
        const c = process.cpuUsage(c0);
        return `${(performance.now() - t0).toFixed(0)} (${((c.user + c.system) / 1000).toFixed(0)})`;
      };
      let merged = "-";
      const logger = { info: () => undefined, warn: () => undefined, debug: (_o: object, msg?: string) => void (msg === "vector cache loaded" && (merged = mark())) };
      const fresh = createLocalProvider();
      let model = "-";
      void fresh.ready.then(() => (model = mark()));
      const engine = createSearchEngine({ provider: fresh, cacheDir: dir, logger });
      engine.update(recipes, 1);
      const lexical = mark();
      await engine.whenSemanticReady();
      await fresh.ready;
      const hybrid = mark();
      const q = performance.now();
      const answer = await engine.search({ text: "round off corners", limit: 10 });
      if (answer.mode !== "hybrid" || engine.status().embedded !== n) throw new Error("restart did not reach hybrid from the cache");
      console.log(`| ${run} | ${lexical} | ${merged} | ${model} | ${hybrid} | ${ms(performance.now() - q)} |`);
      await engine.close();
      await fresh.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(`node ${process.version}, ${os.cpus().length} cpus, load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}\n`);
  if (restartOnly) {
    await restartOnlyBench(SIZES[SIZES.length - 1]!, Number(process.env.RUNS ?? 5));
    console.log(`\nload average after: ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
    return;
  }
  lexicalVersusMiniSearch();
  browseWithEmptyQuery();
  if (lexicalOnly) return;
  const rssStart = mb();
  const qs = queries(QUERIES);

  // Model load and per-text cost.
  let t = performance.now();
  const provider = createLocalProvider();
  const loadMs = await provider.ready;
  const firstReady = performance.now() - t;
  const rssModel = mb();
  const sample = generate(64).map((r) => embeddingText(toDocument(r)));
  t = performance.now();
  await provider.embed(sample);
  const perText = (performance.now() - t) / sample.length;
  t = performance.now();
  for (const q of qs.slice(0, 20)) await provider.embed([q]);
  const perQuery = (performance.now() - t) / 20;
  console.log(`model: worker start to ready ${ms(firstReady)} (load ${loadMs} ms in worker); RSS ${rssStart} MB -> ${rssModel} MB with the model (+${rssModel - rssStart} MB)`);
  console.log(`model: ${ms(perText)} per recipe text (batch of 64, ~${Math.round(sample.reduce((s, x) => s + x.length, 0) / sample.length)} chars), ${ms(perQuery)} per single query`);
  console.log(`model: projected cold warm-up at 20,000 recipes ${((perText * 20_000) / 1000).toFixed(0)} s (background, worker thread)\n`);

  const rows: string[] = [];
  for (const n of SIZES) {
    const recipes = generate(n);
    const dir = await mkdtemp(path.join(os.tmpdir(), "bench-search-"));
    try {
      // Lexical only.
      const rssBefore = mb();
      t = performance.now();
      const lexical = createSearchEngine({ provider: null });
      lexical.update(recipes, 1);
      const indexMs = performance.now() - t;
      const rssLexical = mb();
      t = performance.now();
      lexical.update(recipes.map((r, i) => (i === 0 ? { ...r, description: `${r.description} changed` } : r)), 2);
      const reindexOneMs = performance.now() - t;
      const lex = await latency((q) => lexical.search({ text: q, limit: 10 }), qs);
      const scan = substringScan(recipes);
      const sub = await latency((q) => scan(q), qs);
      const filtered = await latency((q) => lexical.search({ text: q, dcc: "maya", limit: 10 }), qs);
      await lexical.close();

      // Hybrid: real embedding at 1,000; synthetic document vectors at 20,000.
      let warmup = "";
      // Real cold warm-up on the first COLD recipes of the first set; the rest get synthetic vectors.
      let cold = 0;
      if (n === SIZES[0]) {
        cold = COLD;
        t = performance.now();
        const coldEngine = createSearchEngine({ provider, cacheDir: dir });
        coldEngine.update(recipes.slice(0, cold), 1);
        await coldEngine.whenSemanticReady();
        warmup = `cold warm-up, real embedding of ${cold} recipes: ${(performance.now() - t).toFixed(0)} ms; `;
        await coldEngine.close();
      }
      await randomCache(dir, recipes.slice(cold), provider.id, provider.dimension, cold > 0);
      const hybridEngine: SearchEngine = createSearchEngine({ provider, cacheDir: dir });
      hybridEngine.update(recipes, 1);
      await hybridEngine.whenSemanticReady();
      const status = hybridEngine.status();
      if (status.semantic !== "ready" || status.embedded !== n) throw new Error(`hybrid not ready: ${JSON.stringify(status)}`);
      const hyb = await latency(async (q) => {
        const a = await hybridEngine.search({ text: q, limit: 10 });
        if (a.mode !== "hybrid") throw new Error("expected a hybrid answer");
      }, qs);
      const rssHybrid = mb();
      await hybridEngine.close();

      // Restart: a fresh worker + model + engine over the warm cache.
      t = performance.now();
      const fresh = createLocalProvider();
      const restarted = createSearchEngine({ provider: fresh, cacheDir: dir });
      restarted.update(recipes, 1);
      const restartLexical = performance.now() - t;
      await restarted.whenSemanticReady();
      await fresh.ready;
      const restartReady = performance.now() - t;
      const first = performance.now();
      const answer = await restarted.search({ text: "round off corners", limit: 10 });
      const firstQuery = performance.now() - first;
      if (answer.mode !== "hybrid") throw new Error("restart did not reach hybrid");
      await restarted.close();
      await fresh.close();

      rows.push(
        `| ${n.toLocaleString("en")} | ${ms(sub.p50)} / ${ms(sub.p99)} | ${ms(lex.p50)} / ${ms(lex.p99)} | ${ms(filtered.p50)} / ${ms(filtered.p99)} | ${ms(hyb.p50)} / ${ms(hyb.p99)} | ${indexMs.toFixed(0)} ms (+${rssLexical - rssBefore} MB) | ${ms(reindexOneMs)} | ${(restartReady / 1000).toFixed(2)} s (lexical ready ${(restartLexical / 1000).toFixed(2)} s; first query ${ms(firstQuery)}) | ${rssHybrid} MB |`,
      );
      console.log(`${n}: ${warmup}done`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  await provider.close();
  console.log("\n| recipes | substring scan (peer) p50 / p99 | lexical p50 / p99 | lexical + dcc filter p50 / p99 | hybrid p50 / p99 (query embedding included) | lexical index build (RSS) | re-index after 1 change | restart to hybrid-ready, warm cache | process RSS with model |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const row of rows) console.log(row);
  console.log("\ntargets: hybrid p99 < 50 ms at 20,000; restart with warm cache < 3 s");
}

// ---------------------------------------------------------------------------
// Lexical index against MiniSearch (the named peer)


interface LexicalLike {
  put(doc: SearchDocument): void;
  search(text: string, accept: (id: string) => boolean, limit: number): readonly { id: string }[];
}

/** The recipes bench:server serves: one YAML pack of 20 recipes per generated skill. */
export function serverShape(n: number): Recipe[] {
  const perSkill = 20;
  const recipes: Recipe[] = [];
  for (let skill = 0; recipes.length < n; skill++) {
    const meta = yaml.load(skillMarkdown(skill).split("---")[1]!) as { name: string; metadata: { "dcc-mcp": { tags: string[]; "search-hint": string } } };
    const pack = yaml.load(packYaml(skill, perSkill)) as { recipes: Record<string, unknown>[] };
    for (const entry of pack.recipes) {
      if (recipes.length >= n) break;
      const name = entry["name"] as string;
      const steps = entry["steps"] as unknown[];
      recipes.push({
        format: "yaml",
        recipeId: `${meta.name}/${name}`,
        skill: meta.name,
        name,
        dcc: "maya",
        description: entry["description"] as string,
        tags: meta.metadata["dcc-mcp"].tags,
        searchHint: meta.metadata["dcc-mcp"]["search-hint"],
        file: "RECIPES.yaml",
        visibility: "public",
        entry,
        inputsSchema: entry["inputs_schema"],
        steps,
        outputContract: entry["output_contract"],
        toolsetProfiles: [],
        pack: {},
        inputValidator: { ok: true, validator: { validate: () => ({ valid: true, errors: [] }) } },
        outputValidator: null,
      } satisfies YamlRecipe);
    }
  }
  return recipes;
}

/** 2–6 word queries over bench:server's vocabulary; one in five carries a typo (fuzzy path). */
export function serverQueries(count: number): string[] {
  const r = rng(5);
  const verbs = ["bevel", "extrude", "bake", "retopo", "cache", "export", "light", "shade", "rig", "skin", "simulate", "render", "cleanup", "mirror", "unwrap"];
  const nouns = ["mesh", "normals", "uvs", "smoke", "cloth", "hair", "camera", "lights", "textures", "joints", "curves", "volumes", "particles", "scene", "assets"];
  const prose = ["shot", "asset", "variant", "target", "amount", "quality", "verify", "scene", "object", "generated", "modeling", "balanced", "fast"];
  const pick = (xs: readonly string[]): string => xs[Math.floor(r() * xs.length)]!;
  return Array.from({ length: count }, () => {
    const words = [pick(verbs), pick(nouns), ...Array.from({ length: Math.floor(r() * 5) }, () => pick(prose))];
    if (r() < 0.2) {
      const i = words.findIndex((w) => w.length >= 5);
      if (i >= 0) words[i] = words[i]!.slice(0, 2) + words[i]!.slice(3);
    }
    return words.join(" ");
  });
}

const collect: () => void = (() => {
  v8.setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
})();

/** JS heap plus ArrayBuffer backing stores (typed arrays live outside the heap). */
function heapMb(): number {
  collect();
  collect();
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 1e6;
}

interface Percentiles {
  p50: number;
  p99: number;
  /** The same from CPU time: on a shared machine wall time also counts waiting for a core. */
  cpu50: number;
  cpu99: number;
}

function timeQueries(ix: LexicalLike, qs: readonly string[], accept: (id: string) => boolean): Percentiles {
  for (const q of qs.slice(0, 20)) ix.search(q, accept, 100);
  const times: number[] = [];
  const cpu: number[] = [];
  for (const q of qs) {
    const c = process.cpuUsage();
    const t = performance.now();
    ix.search(q, accept, 100);
    times.push(performance.now() - t);
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), cpu50: percentile(cpu, 50), cpu99: percentile(cpu, 99) };
}

interface LexicalFigures {
  build: number;
  /** CPU time of the puts alone and of the first query (which compacts). */
  putCpu: number;
  firstCpu: number;
  heap: number;
  plain: Percentiles;
  filtered: Percentiles;
  reload: number;
  top: string[][];
}

function measureLexical(make: () => LexicalLike, docs: readonly SearchDocument[], qs: readonly string[]): LexicalFigures {
  const before = heapMb();
  const t = performance.now();
  const c = process.cpuUsage();
  let ix: LexicalLike | null = make();
  for (const doc of docs) ix.put(doc);
  const put = process.cpuUsage(c);
  // The first query pays whatever the index defers (compaction).
  ix.search("bevel", () => true, 10);
  const build = performance.now() - t;
  const first = process.cpuUsage(c);
  const putCpu = (put.user + put.system) / 1000;
  const firstCpu = (first.user + first.system) / 1000 - putCpu;
  const heap = heapMb() - before;
  const all = (): boolean => true;
  const plain = timeQueries(ix, qs, all);
  // One DCC in five, as an agent's dcc filter would leave.
  const filtered = timeQueries(ix, qs, (id) => id.charCodeAt(id.length - 1) % 5 === 0);
  const top = qs.map((q) => ix!.search(q, all, 10).map((m) => m.id));
  const r = performance.now();
  for (let round = 0; round < 10; round++) {
    for (let i = 0; i < 10; i++) {
      const doc = docs[(round * 97 + i * 13) % docs.length]!;
      ix.put({ ...doc, description: `${doc.description} revised ${round}` });
    }
    ix.search(qs[round]!, all, 100);
  }
  const reload = (performance.now() - r) / 10;
  ix = null;
  return { build, putCpu, firstCpu, heap, plain, filtered, reload, top };
}

/** Share of queries whose top 10 is the same list in the same order. */
function agreement(a: readonly string[][], b: readonly string[][]): string {
  let same = 0;
  a.forEach((ids, i) => {
    if (ids.join("\n") === b[i]!.join("\n")) same++;
  });
  return `${((100 * same) / a.length).toFixed(1)}%`;
}

/**
 * An empty query lists the served recipes in id order (filtered, limited).
 * Peer: sorting every served id on each call, as the engine did until it
 * kept the order per snapshot.
 */
/** p50 / p99 wall time of `calls` calls to `run`, after 20 untimed ones. */
function timeCalls(run: () => unknown, calls: number): { p50: number; p99: number } {
  for (let i = 0; i < 20; i++) run();
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

function browseWithEmptyQuery(): void {
  console.log("\nempty query (browse), limit 10, 500 calls each: engine p50 / p99 against sorting every id per call (peer);");
  console.log("and a query under a filter naming no served skill, against the same query filtered to a served skill\n");
  console.log("| recipes | filter | peer p50 / p99 | engine p50 / p99 | peer / engine p50 |");
  console.log("|---|---|---|---|---|");
  for (const n of SIZES) {
    const recipes = generate(n);
    const engine = createSearchEngine({ provider: null });
    engine.update(recipes, 1);
    const byId = new Map(recipes.map((r) => [r.recipeId, r]));
    const filters: [string, (r: Recipe) => boolean, { dcc?: string; skill?: string }][] = [
      ["none", () => true, {}],
      ["dcc maya", (r) => r.dcc === "maya" || r.dcc === "any" || r.dcc === "python", { dcc: "maya" }],
      [`skill ${recipes[n - 1]!.skill}`, (r) => r.skill === recipes[n - 1]!.skill, { skill: recipes[n - 1]!.skill }],
      ["skill no-such-skill", (r) => r.skill === "no-such-skill", { skill: "no-such-skill" }],
    ];
    for (const [label, accept, filter] of filters) {
      const peerIds = [...byId.keys()].filter((id) => accept(byId.get(id)!)).sort().slice(0, 10);
      const engineIds = (engine.search({ text: "", limit: 10, ...filter }) as Awaited<ReturnType<SearchEngine["search"]>>).hits.map((h) => h.recipe.recipeId);
      if (peerIds.join("\n") !== engineIds.join("\n")) throw new Error(`browse differs from the peer for filter ${label}`);
      const peer = timeCalls(() => [...byId.keys()].filter((id) => accept(byId.get(id)!)).sort().slice(0, 10), 500);
      const ours = timeCalls(() => engine.search({ text: "", limit: 10, ...filter }), 500);
      console.log(`| ${n.toLocaleString("en")} | ${label} | ${ms(peer.p50)} / ${ms(peer.p99)} | ${ms(ours.p50)} / ${ms(ours.p99)} | ${(peer.p50 / ours.p50).toFixed(0)}x |`);
    }
    // A ranked query under a filter that names nothing served.
    // The word most descriptions hold: the query that ranks the most matches.
    const counts = new Map<string, number>();
    for (const r of recipes) for (const w of new Set(r.description.toLowerCase().split(/[^a-z]+/))) if (w.length > 3) counts.set(w, (counts.get(w) ?? 0) + 1);
    const word = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
    // Peer: the same query filtered to a served skill, which ranks every match to keep that skill's.
    const servedSkill = timeCalls(() => engine.search({ text: word, limit: 10, skill: recipes[n - 1]!.skill }), 200).p50;
    const nothing = timeCalls(() => engine.search({ text: word, limit: 10, skill: "no-such-skill" }), 200).p50;
    const us = (x: number): string => `${(x * 1000).toFixed(0)} µs`;
    console.log(`| ${n.toLocaleString("en")} | query "${word}" (${counts.get(word)} matches), skill no-such-skill | filtered to skill ${recipes[n - 1]!.skill} (peer) ${us(servedSkill)} | ${us(nothing)} | ${(servedSkill / nothing).toFixed(0)}x |`);
    void engine.close();
  }
}

function lexicalVersusMiniSearch(): void {
  console.log("lexical index vs MiniSearch 7.2 (peer), same documents and queries, limit 100; heap = JS heap + ArrayBuffers held after GC;");
  console.log("build = every put plus the first query, wall (CPU: puts + first query); query times wall (CPU)\n");
  console.log("| corpus | recipes | index | build | heap | query p50 / p99 | p50 / p99, 1-in-5 filter | reload 10 recipes + query | same top 10 as peer |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  // One untimed round so neither index is measured with a cold JIT.
  const warmDocs = generate(1_000).map(toDocument);
  for (const make of [() => new LexicalIndex(), () => new MiniSearchLexical()]) measureLexical(make, warmDocs, queries(50));
  const corpora: [string, (n: number) => Recipe[], (n: number) => string[]][] = [
    ["zipf prose", generate, queries],
    ["bench:server yaml", serverShape, serverQueries],
  ];
  for (const [name, make, makeQueries] of corpora) {
    for (const n of SIZES) {
      const docs = make(n).map(toDocument);
      const qs = makeQueries(QUERIES);
      // Ours first: MiniSearch's auto-vacuum keeps its index alive on timers after the reload step.
      const ours = measureLexical(() => new LexicalIndex(), docs, qs);
      const peer = measureLexical(() => new MiniSearchLexical(), docs, qs);
      const q = (x: Percentiles): string => `${ms(x.p50)} / ${ms(x.p99)} (${ms(x.cpu50)} / ${ms(x.cpu99)})`;
      const row = (label: string, x: LexicalFigures, same: string): string =>
        `| ${name} | ${n.toLocaleString("en")} | ${label} | ${x.build.toFixed(0)} ms (${x.putCpu.toFixed(0)} + ${x.firstCpu.toFixed(0)} ms) | ${x.heap.toFixed(1)} MB | ${q(x.plain)} | ${q(x.filtered)} | ${ms(x.reload)} | ${same} |`;
      console.log(row("MiniSearch", peer, "-"));
      console.log(row("LexicalIndex", ours, agreement(peer.top, ours.top)));
      console.log(
        `| | | peer / ours | ${(peer.build / ours.build).toFixed(1)}x | ${(peer.heap / Math.max(0.1, ours.heap)).toFixed(1)}x | ${(peer.plain.p50 / ours.plain.p50).toFixed(0)}x / ${(peer.plain.p99 / ours.plain.p99).toFixed(0)}x | ${(peer.filtered.p50 / ours.filtered.p50).toFixed(0)}x / ${(peer.filtered.p99 / ours.filtered.p99).toFixed(0)}x | ${(peer.reload / ours.reload).toFixed(1)}x | |`,
      );
    }
  }
  // Tokenizer alone: the regex definition against the scanner, over every field of the largest Zipf set.
  const docs = generate(SIZES[SIZES.length - 1]!).map(toDocument);
  const texts = docs.flatMap((d) => SEARCH_FIELDS.map((f) => d[f]));
  const regexDefinition = (text: string): number => {
    let count = 0;
    for (const m of text.matchAll(/[\p{L}\p{N}]+(?:[_\-'.][\p{L}\p{N}]+)*/gu)) {
      for (const piece of m[0].split(/[_\-'.]+/)) count += piece.split(/(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u).length;
    }
    return count;
  };
  const timeIt = (f: (text: string) => unknown): number => {
    for (const x of texts.slice(0, 2000)) f(x);
    const t = performance.now();
    for (const x of texts) f(x);
    return performance.now() - t;
  };
  const regexMs = timeIt(regexDefinition);
  const scanMs = timeIt(tokenize);
  console.log(`load average after: ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
  console.log(`\ntokenize over ${texts.length.toLocaleString("en")} fields (${docs.length.toLocaleString("en")} Zipf recipes): regex definition ${regexMs.toFixed(0)} ms, scanner ${scanMs.toFixed(0)} ms (${(regexMs / scanMs).toFixed(1)}x)\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
