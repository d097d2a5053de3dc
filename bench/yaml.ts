/**
 * YAML parse speed: the plain-subset parser (src/skills/yaml-subset.ts)
 * against js-yaml (CORE_SCHEMA) and the `yaml` package (as the exact path
 * calls it), in one run, on
 *  1. the bench generator's packs (bench/lib/generate.ts, the shape of every
 *     pack in the 1,000-skill / 20,000-recipe start-up tree),
 *  2. the real packs in ../shared/data/real-skills (skipped when absent),
 *  3. SKILL.md frontmatter (generated and real).
 * Rounds interleave the parsers; each sample is this process's CPU time for
 * enough passes to last ~150 ms. Prints MB/s (median and range over rounds)
 * and the subset's ratio to each peer. Target: >= 3x js-yaml on the generated packs.
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
const ROUNDS = Number(process.env["ROUNDS"] ?? 7);
const SAMPLE_MS = 150;

interface Parser {
  readonly name: string;
  parse(text: string): unknown;
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
  { name: "yaml", parse: (text) => parseDocument(text, { uniqueKeys: true }).toJS() },
];

function frontmatterOf(text: string): string {
  const lines = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").split("\n");
  const end = lines.findIndex((l, i) => i > 0 && l.trimEnd() === "---");
  return lines[0]?.trimEnd() === "---" && end > 0 ? lines.slice(1, end).join("\n") : "";
}

interface Corpus {
  readonly name: string;
  readonly docs: string[];
  readonly bytes: number;
}

function corpus(name: string, docs: string[]): Corpus {
  return { name, docs, bytes: docs.reduce((n, d) => n + Buffer.byteLength(d), 0) };
}

function corpora(): Corpus[] {
  const out = [corpus("generated packs (50 x 20 recipes)", Array.from({ length: 50 }, (_, s) => packYaml(s, 20)))];
  const haveReal = fs.existsSync(realSkills);
  if (haveReal) {
    const packs = fg.sync(["**/*.yaml", "**/*.yml"], { cwd: realSkills, absolute: true }).sort();
    out.push(corpus(`real packs (${packs.length} files)`, packs.map((p) => fs.readFileSync(p, "utf8"))));
  } else {
    console.warn(`${realSkills} is absent: real packs skipped`);
  }
  const fronts = Array.from({ length: 200 }, (_, s) => frontmatterOf(skillMarkdown(s)));
  if (haveReal) {
    for (const f of fg.sync(["**/SKILL.md"], { cwd: realSkills, absolute: true }).sort()) {
      const yaml = frontmatterOf(fs.readFileSync(f, "utf8"));
      if (yaml !== "" && parseYamlSubset(yaml) !== null) fronts.push(yaml);
    }
  }
  out.push(corpus(`frontmatter (${fronts.length} blocks)`, fronts));
  return out;
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

let sink = 0;

/** CPU ms for `passes` passes over the corpus. */
function sample(parser: Parser, c: Corpus, passes: number): number {
  const start = cpuMs();
  for (let p = 0; p < passes; p++) for (const d of c.docs) if (parser.parse(d) !== undefined) sink++;
  return cpuMs() - start;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function fmt(n: number): string {
  return n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

function run(c: Corpus): void {
  const mb = c.bytes / 1e6;
  // Warm up and size each sample to ~SAMPLE_MS.
  const passes = parsers.map((p) => {
    sample(p, c, 1);
    const once = Math.max(sample(p, c, 1), 0.05);
    return Math.max(1, Math.round(SAMPLE_MS / once));
  });
  const rates: number[][] = parsers.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    parsers.forEach((p, i) => {
      const ms = sample(p, c, passes[i]!);
      rates[i]!.push((mb * passes[i]!) / (ms / 1000));
    });
  }
  console.log(`\n${c.name}: ${fmt(mb)} MB, ${ROUNDS} rounds`);
  const med = rates.map(median);
  parsers.forEach((p, i) => {
    const rs = rates[i]!;
    console.log(`  ${p.name.padEnd(18)} ${fmt(med[i]!).padStart(7)} MB/s  (${fmt(Math.min(...rs))}–${fmt(Math.max(...rs))})`);
  });
  const subset = rates[0]!;
  for (const peer of ["js-yaml", "yaml"]) {
    const j = parsers.findIndex((p) => p.name === peer);
    // Same-round ratios: each round's subset rate over that round's peer rate.
    const ratios = subset.map((s, r) => s / rates[j]![r]!);
    console.log(`  subset / ${peer.padEnd(8)} ${fmt(median(ratios)).padStart(7)}x  (${fmt(Math.min(...ratios))}–${fmt(Math.max(...ratios))})`);
  }
}

console.log(`node ${process.version}; CPU-time MB/s (UTF-8 bytes) per parser; median (min–max) over rounds`);
for (const c of corpora()) run(c);
if (sink < 0) console.log(sink);
