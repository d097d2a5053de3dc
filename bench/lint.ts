/**
 * `recipe-server lint` speed, for the pre-commit hook budget.
 *
 *  - real packs: ../shared/data/real-skills (6 skills, 43 recipes), as a
 *    fresh CLI process (what a hook pays) and in-process (first run, warm median);
 *  - generated, typical: 1,000 skills × N YAML recipes written here, unique
 *    names, 1 recipe in 20 carrying one defect (a typo, an unresolvable
 *    placeholder, a legacy label, a contract that cannot fail, an unused input);
 *  - generated, worst case: bench/lib/generate.ts's tree, where every recipe has
 *    a finding (an unused input) and names repeat across skills, so every entry
 *    is re-parsed for positions;
 *  - peer, same run: the server's own loading of the same trees
 *    (discoverSkills + loadSkillRecipes), i.e. what lint costs on top of loading.
 *
 *   npx tsx bench/lint.ts [--skills 1000 --recipes 5 --runs 3] [--write-tree DIR]
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { lintRoots } from "../src/lint/engine.js";
import { loadSkillRecipes } from "../src/recipes/packs/loader.js";
import { discoverSkills } from "../src/skills/discover.js";
import { generateTree } from "./lib/generate.js";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const repoRoot = path.resolve(import.meta.dirname, "..");
const realDir = path.resolve(repoRoot, "../shared/data/real-skills");
const REAL_ROOTS = [
  "dcc-mcp-core/skills",
  "dcc-mcp-freecad/src/dcc_mcp_freecad/skills",
  "dcc-mcp-maya/src/dcc_mcp_maya/skills",
  "dcc-mcp-maya@legacy-version/src/dcc_mcp_maya/skills",
  "dcc-pipeline-publish/skill",
].map((r) => path.join(realDir, r));

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number): string => `${x.toFixed(0)} ms`;

async function loadOnly(roots: readonly string[]): Promise<number> {
  const t = performance.now();
  const { skills } = await discoverSkills(roots);
  await Promise.all(skills.map((s) => loadSkillRecipes(s)));
  return performance.now() - t;
}

async function lintOnce(roots: readonly string[]): Promise<{ ms: number; findings: number }> {
  const t = performance.now();
  const r = await lintRoots(roots, { cwd: repoRoot, requireSkills: true });
  return { ms: performance.now() - t, findings: r.findings.length };
}

/** Wall time of a fresh `recipe-server lint` process (run through tsx: no build needed). */
function processWall(roots: readonly string[]): number {
  const code = `import("${path.join(repoRoot, "src/lint/command.ts")}").then(async (m) => { process.exitCode = await m.runLint(${JSON.stringify(
    ["--format", "json", ...roots],
  )}, { stdout: { write() {} }, stderr: process.stderr, env: {}, cwd: process.cwd(), isTTY: false }); })`;
  const t = performance.now();
  const r = spawnSync(process.execPath, ["--import", "tsx", "-e", code], { cwd: repoRoot, stdio: ["ignore", "ignore", "inherit"] });
  if (r.status !== 0 && r.status !== 1) throw new Error(`lint process exited ${r.status}`);
  return performance.now() - t;
}

function nodeBaseline(): number {
  const t = performance.now();
  spawnSync(process.execPath, ["--import", "tsx", "-e", "0"], { cwd: repoRoot });
  return performance.now() - t;
}

async function measure(label: string, roots: readonly string[], runs: number): Promise<void> {
  const wall = median(Array.from({ length: runs }, () => processWall(roots)));
  const first = await lintOnce(roots);
  const warm: number[] = [];
  const peer: number[] = [];
  for (let i = 0; i < runs; i++) {
    peer.push(await loadOnly(roots));
    warm.push((await lintOnce(roots)).ms);
  }
  console.log(`${label}`);
  console.log(`  fresh process (tsx), median of ${runs}: ${ms(wall)}`);
  console.log(`  in-process: first run ${ms(first.ms)}, warm median ${ms(median(warm))}  (${first.findings} findings)`);
  console.log(`  peer, server loading only (warm median): ${ms(median(peer))}  → lint/load = ${(median(warm) / median(peer)).toFixed(2)}×`);
}

const VERBS = ["bevel", "extrude", "bake", "cache", "export", "mirror", "unwrap", "cleanup", "set", "assign"];
const DEFECTS = [
  (y: string) => y.replace("minimum: 0", "minimun: 0"),
  (y: string) => y.replace('mode: "\${mode}"', 'mode: "\${mood}"'),
  (y: string) => y.replace(/ {4}output_contract:[\s\S]*$/, "    output_contract: a receipt\n"),
  (y: string) => y.replace("required: [changed, count]", "required: []"),
  (y: string) => y.replace(', amount: "\${amount}"', ""),
];

function typicalRecipe(skill: number, i: number): string {
  const verb = VERBS[(skill + i) % VERBS.length]!;
  const y = `  - name: ${verb}_s${skill}_r${i}
    dcc: maya
    description: ${verb} step ${i} of generated skill ${skill}.
    inputs_schema:
      type: object
      additionalProperties: false
      required: [target]
      properties:
        target: {type: string, minLength: 1}
        amount: {type: number, minimum: 0, maximum: 10, default: 1}
        mode: {enum: [fast, balanced, quality], default: balanced}
    steps:
      - tool: maya_${verb}__run
        arguments: {target: "\${target}", amount: "\${amount}", mode: "\${mode}"}
    output_contract:
      type: object
      required: [changed, count]
      properties:
        changed: {const: true}
        count: {type: integer, minimum: 1}
`;
  const n = skill * 7 + i;
  return n % 20 === 0 ? DEFECTS[(n / 20) % DEFECTS.length]!(y) : y;
}

async function typicalTree(root: string, skills: number, recipes: number): Promise<{ recipes: number; bytes: number }> {
  let bytes = 0;
  for (let s = 0; s < skills; s++) {
    const dir = path.join(root, `skill-${s}`);
    await fs.mkdir(dir, { recursive: true });
    const md = `---\nname: skill-${s}\ndescription: generated skill ${s}\nmetadata:\n  dcc-mcp:\n    dcc: maya\n    recipes: RECIPES.yaml\n---\n# skill ${s}\n`;
    let pack = "recipes:\n";
    for (let i = 0; i < recipes; i++) pack += typicalRecipe(s, i);
    bytes += md.length + pack.length;
    await fs.writeFile(path.join(dir, "SKILL.md"), md);
    await fs.writeFile(path.join(dir, "RECIPES.yaml"), pack);
  }
  return { recipes: skills * recipes, bytes };
}

async function main(): Promise<void> {
  const skills = arg("skills", 1000);
  const recipes = arg("recipes", 5);
  const runs = arg("runs", 3);
  const only = process.argv.indexOf("--write-tree");
  if (only > 0) {
    // `--write-tree DIR`: write the typical tree and stop (to try `recipe-server lint DIR` by hand).
    await typicalTree(path.resolve(process.argv[only + 1]!), skills, recipes);
    return;
  }
  console.log(`node ${process.version}, ${os.cpus().length} cpus; node+tsx start-up alone: ${ms(nodeBaseline())}`);
  if (existsSync(realDir)) await measure("real packs (6 skills, 43 recipes)", REAL_ROOTS, runs);
  else console.log(`real packs: skipped (${realDir} absent)`);

  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "bench-lint-"));
  try {
    const typical = await typicalTree(path.join(tmp, "typical"), skills, recipes);
    await measure(`generated, typical: ${skills} skills, ${typical.recipes} recipes, ${(typical.bytes / 1e6).toFixed(1)} MB`, [path.join(tmp, "typical")], runs);
    const worst = await generateTree(path.join(tmp, "worst"), skills, recipes);
    await measure(`generated, worst case: ${worst.skills} skills, ${worst.recipes} recipes, ${(worst.bytes / 1e6).toFixed(1)} MB`, [path.join(tmp, "worst")], runs);
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

await main();
