/**
 * YAML parse speed: the plain-subset parser (src/skills/yaml-subset.ts)
 * against js-yaml (CORE_SCHEMA) and the `yaml` package (as the exact path
 * calls it), in one run, on
 *  1. the packs of the bench generator's 1,000-skill / 20,000-recipe tree
 *     (bench/lib/generate.ts, the start-up bench's tree), as flat strings like
 *     text read from disk; the `yaml` package, ~50x slower, reads its first
 *     50 packs (same shape) so a round stays short,
 *  2. the real packs in ../shared/data/real-skills (skipped when absent),
 *  3. SKILL.md frontmatter (generated and real).
 * Rounds interleave the subset, the wired fast path and js-yaml (the `yaml`
 * package gets its rounds afterwards, see run()); each sample is this
 * process's CPU time for enough passes to last ~150 ms. Prints MB/s (median
 * and range over rounds) and the subset's ratio to each peer.
 * Target: >= 3x js-yaml on the generated packs.
 *
 *   npx tsx bench/yaml.ts
 */
import fs from "node:fs";
import path from "node:path";
import jsyaml from "js-yaml";
import fg from "fast-glob";
import { parseDocument } from "yaml";
import { parsePackFast } from "../src/skills/yaml-fast.js";
import { parseYamlSubset } from "../src/skills/yaml-subset.js";
import { packYaml, skillMarkdown } from "./lib/generate.js";

const repoRoot = path.resolve(import.meta.dirname, "..");
const realSkills = path.resolve(repoRoot, "../shared/data/real-skills");
const ROUNDS = Number(process.env["ROUNDS"] ?? 15);
const SAMPLE_MS = 150;

interface Parser {
  readonly name: string;
  parse(text: string): unknown;
  /** How many of a corpus's documents a pass reads (all when absent). */
  readonly docs?: number;
}

const parsers: Parser[] = [
  {
    name: "subset",
    parse(text) {
      const r = parseYamlSubset(text);
      if (r === null) throw new Error("the subset stepped aside on a bench document");
      return r;
    },
  },
  { name: "yaml-fast (wired)", parse: (text) => parsePackFast(text) },
  { name: "js-yaml", parse: (text) => jsyaml.load(text, { schema: jsyaml.CORE_SCHEMA }) },
  { name: "yaml", parse: (text) => parseDocument(text, { uniqueKeys: true }).toJS(), docs: 50 },
];

function frontmatterOf(text: string): string {
  const lines = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").split("\n");
  const end = lines.findIndex((l, i) => i > 0 && l.trimEnd() === "---");
  return lines[0]?.trimEnd() === "---" && end > 0 ? lines.slice(1, end).join("\n") : "";
}

interface Corpus {
  readonly name: string;
  readonly docs: string[];
}

function corpus(name: string, docs: string[]): Corpus {
  // Flat strings, as decoded from a file (generated text is a rope of concatenations).
  return { name, docs: docs.map((d) => Buffer.from(d, "utf8").toString("utf8")) };
}

function bytesOf(docs: readonly string[]): number {
  return docs.reduce((n, d) => n + Buffer.byteLength(d), 0);
}

const haveReal = fs.existsSync(realSkills);

function generatedCorpus(): Corpus {
  return corpus("generated tree packs (1,000 x 20 recipes)", Array.from({ length: 1000 }, (_, s) => packYaml(s, 20)));
}

function realCorpus(): Corpus {
  const packs = fg.sync(["**/*.yaml", "**/*.yml"], { cwd: realSkills, absolute: true }).sort();
  return corpus(`real packs (${packs.length} files)`, packs.map((p) => fs.readFileSync(p, "utf8")));
}

/** Generated frontmatter, and the real blocks the subset covers (one real block needs js-yaml). */
function frontmatterCorpus(): Corpus {
  const fronts = Array.from({ length: 200 }, (_, s) => frontmatterOf(skillMarkdown(s)));
  if (haveReal) {
    for (const f of fg.sync(["**/SKILL.md"], { cwd: realSkills, absolute: true }).sort()) {
      const yaml = frontmatterOf(fs.readFileSync(f, "utf8"));
      if (yaml !== "" && parseYamlSubset(yaml) !== null) fronts.push(yaml);
    }
  }
  return corpus(`frontmatter (${fronts.length} blocks)`, fronts);
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

let sink = 0;

function docsFor(parser: Parser, c: Corpus): string[] {
  return parser.docs === undefined ? c.docs : c.docs.slice(0, parser.docs);
}

/** CPU ms for `passes` passes over the parser's share of the corpus. */
function sample(parser: Parser, docs: readonly string[], passes: number): number {
  const start = cpuMs();
  for (let p = 0; p < passes; p++) for (const d of docs) if (parser.parse(d) !== undefined) sink++;
  return cpuMs() - start;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function fmt(n: number): string {
  return n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

/** Median CPU-time MB/s of each parser over ROUNDS interleaved rounds, and every round's rate. */
function measure(group: readonly Parser[], c: Corpus): number[][] {
  const shares = group.map((p) => docsFor(p, c));
  const mbs = shares.map((d) => bytesOf(d) / 1e6);
  // Warm up and size each sample to ~SAMPLE_MS.
  const passes = group.map((p, i) => {
    sample(p, shares[i]!, 1);
    const once = Math.max(sample(p, shares[i]!, 1), 0.05);
    return Math.max(1, Math.round(SAMPLE_MS / once));
  });
  const rates: number[][] = group.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    group.forEach((p, i) => {
      const ms = sample(p, shares[i]!, passes[i]!);
      rates[i]!.push((mbs[i]! * passes[i]!) / (ms / 1000));
    });
  }
  return rates;
}

function run(c: Corpus): void {
  // The `yaml` package runs after the others: the garbage of its documents
  // keeps the collector marking (and every store behind a write barrier) for
  // whatever runs next, which would charge the fast parsers for its heap.
  const fast = parsers.filter((p) => p.docs === undefined);
  const slow = parsers.filter((p) => p.docs !== undefined);
  const rates = [...measure(fast, c), ...measure(slow, c)];
  const ordered = [...fast, ...slow];
  console.log(`\n${c.name}: ${fmt(bytesOf(c.docs) / 1e6)} MB, ${ROUNDS} rounds`);
  const med = rates.map(median);
  const best = rates.map((rs) => Math.max(...rs));
  ordered.forEach((p, i) => {
    const rs = rates[i]!;
    const share = p.docs !== undefined && p.docs < c.docs.length ? `  [first ${p.docs} documents]` : "";
    console.log(`  ${p.name.padEnd(18)} ${fmt(med[i]!).padStart(7)} MB/s median, ${fmt(best[i]!).padStart(7)} best  (min ${fmt(Math.min(...rs))})${share}`);
  });
  const subset = rates[0]!;
  const jsIndex = ordered.findIndex((p) => p.name === "js-yaml");
  // Against js-yaml: each round's ratio (interleaved, so load spikes hit both) and the ratio of
  // best rounds (the closest to an idle machine); against `yaml`, ratios of medians and of bests.
  const ratios = subset.map((s, r) => s / rates[jsIndex]![r]!);
  console.log(
    `  subset / js-yaml   ${fmt(median(ratios)).padStart(7)}x same-round median (${fmt(Math.min(...ratios))}–${fmt(Math.max(...ratios))}), ${fmt(best[0]! / best[jsIndex]!)}x of bests`,
  );
  const yamlIndex = ordered.findIndex((p) => p.name === "yaml");
  console.log(`  subset / yaml      ${fmt(med[0]! / med[yamlIndex]!).padStart(7)}x of medians, ${fmt(best[0]! / best[yamlIndex]!)}x of bests`);
}

console.log(`node ${process.version}; CPU-time MB/s (UTF-8 bytes) per parser over rounds (the machine is shared: best rounds are the least disturbed)`);
// Each corpus is built just before its run, and runs from its own call site:
// with all corpora built up front and a loop here, the subset's figures on
// the generated tree dropped by a third (64 vs 88 MB/s, js-yaml unchanged),
// an effect of how V8 optimized this script (not pinned down), not of the parsers.
run(generatedCorpus());
if (haveReal) run(realCorpus());
else console.warn(`${realSkills} is absent: real packs skipped`);
run(frontmatterCorpus());
if (sink < 0) console.log(sink);
