/**
 * Cost of the prompts and skills providers on a generated catalog (1,000
 * skills / 20,000 YAML recipes by default), each against a named peer in the
 * same run, alternating A/B so a shared machine's noise hits both sides:
 *
 *  - prompts/list, first page, fresh provider (builds the snapshot's index)
 *    vs resources/list's first page (listRecipeResources sorts every id per call);
 *  - prompts/list, a page with the index built, vs the same peer;
 *  - prompts/get of a YAML recipe (coerce + validate + render) vs the
 *    recipes__apply tool handler on the same inputs (validate + answer);
 *  - skills/list, a page of 50 skills (walk, read and hash every file) vs the
 *    same peer.
 *
 *   npm run bench:prompts-skills [-- --skills 1000 --recipes 20 --rounds 30]
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { RecipeLibrary } from "../src/recipes/catalog/library.js";
import { createSearchEngine } from "../src/recipes/search/engine.js";
import { listRecipeResources } from "../src/server/protocol/catalog-resources.js";
import { createPromptsProvider } from "../src/server/protocol/prompts/provider.js";
import { createSkillsProvider } from "../src/server/protocol/skills-extension/provider.js";
import { recipesApply } from "../src/server/tools/recipes-apply.js";
import { generateTree, recipeName } from "./lib/generate.js";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const SKILLS = arg("skills", 1000);
const RECIPES = arg("recipes", 20);
const ROUNDS = arg("rounds", 30);

async function time(body: () => unknown): Promise<number> {
  const started = performance.now();
  await body();
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "bench-prompts-skills-"));
  try {
    const root = path.join(tmp, "skills");
    await generateTree(root, SKILLS, RECIPES);
    const logger = pino({ level: "silent" });
    const search = createSearchEngine({ provider: null });
    const library = new RecipeLibrary({
      settings: { dcc: "maya", skillRoots: [root], privateDir: path.join(tmp, "private"), stateDir: path.join(tmp, "state") },
      search,
      logger,
    });
    await library.load();
    const catalog = { dcc: "maya", current: () => library.current() };
    const context = { library, logger };
    const warmPrompts = createPromptsProvider({ source: library });
    const skills = createSkillsProvider({ source: library });
    warmPrompts.list({});
    const promptName = `bench-skill-7.${recipeName(7, 3)}`;
    const applyArgs = { skill: "bench-skill-7", recipe: recipeName(7, 3), inputs: { target: "pCube1", amount: 2 } };

    const pairs: Array<[string, () => unknown, () => unknown]> = [
      ["prompts/list first page, cold index", () => createPromptsProvider({ source: library }).list({}), () => listRecipeResources(catalog, undefined)],
      ["prompts/list first page, warm index", () => warmPrompts.list({}), () => listRecipeResources(catalog, undefined)],
      ["prompts/get (YAML, 2 arguments)", () => warmPrompts.get({ name: promptName, arguments: { target: "pCube1", amount: "2" } }), () => recipesApply.handler(applyArgs, context)],
      ["skills/list page of 50", () => skills.list({}), () => listRecipeResources(catalog, undefined)],
    ];
    console.log(`catalog: ${SKILLS} skills, ${SKILLS * RECIPES} recipes; ${ROUNDS} rounds, A/B alternating (shared machine: ratios, not absolute ms, are the figure)`);
    console.log("operation | ours ms (median) | peer ms (median) | ours/peer");
    for (const [label, ours, peer] of pairs) {
      const a: number[] = [];
      const b: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        a.push(await time(ours));
        b.push(await time(peer));
      }
      const [ma, mb] = [median(a), median(b)];
      console.log(`${label} | ${ma.toFixed(3)} | ${mb.toFixed(3)} | ${(ma / mb).toFixed(2)}x`);
    }
    await library.flush();
    await search.close();
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

await main();
