import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadSkillRecipes } from "../../src/recipes/packs/loader.js";
import type { Recipe } from "../../src/recipes/types.js";
import { discoverSkills } from "../../src/skills/discover.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const real = path.resolve(repoRoot, "../shared/data/real-skills");

/** Skill roots of the labelled corpus: the example packs and the real packs (current versions). */
export function corpusRoots(): string[] {
  const roots = [
    path.join(repoRoot, "skills-example"),
    path.join(real, "dcc-mcp-maya/src/dcc_mcp_maya/skills"),
    path.join(real, "dcc-mcp-core/skills"),
    path.join(real, "dcc-pipeline-publish/skill"),
    path.join(real, "dcc-mcp-freecad/src/dcc_mcp_freecad/skills"),
  ];
  return roots.filter((r) => existsSync(r));
}

export async function loadCorpus(): Promise<Recipe[]> {
  const { skills } = await discoverSkills(corpusRoots());
  const recipes: Recipe[] = [];
  for (const skill of skills) recipes.push(...(await loadSkillRecipes(skill)).recipes);
  recipes.sort((a, b) => (a.recipeId < b.recipeId ? -1 : 1));
  return recipes;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const recipes = await loadCorpus();
  for (const r of recipes) console.log(`${r.recipeId}\t${r.dcc}\t${r.format}\t${r.description.slice(0, 110)}`);
  console.log(recipes.length, "recipes");
}
