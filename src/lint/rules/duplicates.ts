/**
 * The same YAML recipe name in two skills served to one DCC. `dcc: any` next
 * to a DCC-specific recipe of the same name is dcc-mcp-core's documented
 * adapter-local override (prefer the specific one), so only equal DCCs clash.
 */
import type { YamlRecipe } from "../../recipes/types.js";

export interface DuplicateHit {
  readonly recipe: YamlRecipe;
  readonly first: YamlRecipe;
  readonly message: string;
}

/** `recipes` in priority order (root order, then skill order); the first of a clash is kept quiet. */
export function crossSkillDuplicates(recipes: readonly YamlRecipe[]): DuplicateHit[] {
  const seen = new Map<string, YamlRecipe>();
  const hits: DuplicateHit[] = [];
  for (const r of recipes) {
    const key = `${r.dcc}\u0000${r.name}`;
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, r);
      continue;
    }
    if (first.skill === r.skill) continue;
    hits.push({
      recipe: r,
      first,
      message: `recipe "${r.name}" (dcc ${r.dcc}) is also published by skill "${first.skill}" (${first.file}:${first.line ?? 1}); agents searching ${r.dcc} see two`,
    });
  }
  return hits;
}
