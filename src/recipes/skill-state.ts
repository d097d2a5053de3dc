/**
 * One skill directory's part of the incremental catalog (reload.ts): its
 * recipe files read and merged, each file keeping its last good recipes
 * while it is malformed or caught empty mid-save, a broken SKILL.md keeping
 * the skill as it was (keep-last-good.ts), and the comparison that tells a
 * reload whether a client would see the difference.
 */
import { capDiagnostics, diagnostic, type Diagnostic } from "../skills/diagnostics.js";
import type { LoadSkillResult } from "../skills/discover.js";
import { resolveRecipePaths, skillRelative } from "../skills/recipe-paths.js";
import type { SkillInfo } from "../skills/types.js";
import type { LoadedSkill } from "./catalog.js";
import { caughtEmpty, isMalformed, kept, sameJson } from "./keep-last-good.js";
import { dedupeRecipes, loadRecipeFile } from "./loader.js";
import type { ParseCache } from "./parse-cache.js";
import type { PackParser } from "./parse-pool.js";
import type { Recipe } from "./types.js";

export interface FileState {
  readonly rel: string;
  /** Parse cache entry of the recipes served (see ParseCache.persist). */
  readonly cacheKey?: string;
  /** Recipes served for this file (the last good ones while it is malformed). */
  readonly recipes: readonly Recipe[];
  readonly diagnostics: readonly Diagnostic[];
}

export interface SkillState {
  readonly info: SkillInfo;
  readonly files: ReadonlyMap<string, FileState>;
  readonly loaded: LoadedSkill;
}

export interface DirState {
  /** What discovery sees: the last good SKILL.md while the current one is malformed. */
  readonly result: LoadSkillResult;
}

/** A SKILL.md that broke keeps the skill as it was, with a warning. */
export function keepGoodSkillMd(fresh: LoadSkillResult, previous: DirState | undefined): LoadSkillResult {
  const good = previous?.result.skill ?? null;
  if (fresh.skill !== null || good === null) return fresh;
  const bad = isMalformed(fresh.diagnostics);
  if (bad === undefined) return fresh;
  const withSkill = fresh.diagnostics.map((d) => (d.skill === undefined ? d : diagnostic(d.severity, d.code, d.message, { ...d, skill: good.name })));
  return { skill: good, diagnostics: [...withSkill, kept({ ...bad, skill: good.name, file: "SKILL.md" }, "SKILL.md")] };
}

export async function loadSkillFiles(
  info: SkillInfo,
  parseCache: ParseCache | undefined,
  previous: SkillState | undefined,
  parser: PackParser,
  readWhereParsed: boolean,
): Promise<SkillState> {
  const resolved = await resolveRecipePaths(info.dir, info.recipePatterns, info.name);
  // Last good recipes only carry over while they would get the same identity.
  const reusable = previous !== undefined && previous.info.name === info.name ? previous.files : new Map<string, FileState>();
  const files = new Map<string, FileState>();
  const states = await Promise.all(
    resolved.files.map(async (abs): Promise<FileState> => {
      const rel = skillRelative(info.dir, abs);
      const result = await loadRecipeFile(info, abs, { ...(parseCache ? { cache: parseCache } : {}), parser, readWhereParsed });
      const fresh: FileState = { rel, recipes: result.recipes, diagnostics: result.diagnostics, ...(result.cacheKey !== undefined ? { cacheKey: result.cacheKey } : {}) };
      const last = reusable.get(rel);
      if (result.recipes.length > 0 || last === undefined || last.recipes.length === 0) return fresh;
      const bad = isMalformed(result.diagnostics) ?? (await caughtEmpty(abs, info.name, rel));
      if (bad === undefined) return fresh;
      const reported = result.diagnostics.includes(bad) ? result.diagnostics : [...result.diagnostics, bad];
      return { ...last, diagnostics: [...reported, kept(bad, rel)] };
    }),
  );
  for (const s of states) files.set(s.rel, s);
  const all = states.flatMap((s) => s.recipes);
  const merged = dedupeRecipes(all);
  const loaded: LoadedSkill = Object.freeze({
    info,
    recipes: Object.freeze(merged.recipes),
    diagnostics: Object.freeze(capDiagnostics([...resolved.diagnostics, ...states.flatMap((s) => s.diagnostics), ...merged.diagnostics])),
    // Absolute, as the loader gives them; the snapshot shows them skill-relative.
    files: Object.freeze([...resolved.files]),
  });
  return { info, files, loaded };
}

/** What a client can see of a recipe; compiled validators are derived from the schemas. */
function recipeView(recipe: Recipe): string {
  return JSON.stringify(recipe, (key, value: unknown) => (key === "inputValidator" || key === "outputValidator" ? undefined : value));
}

export function sameSkill(a: LoadedSkill, b: LoadedSkill): boolean {
  if (a.recipes.length !== b.recipes.length || !sameJson(a.info, b.info) || !sameJson(a.files, b.files)) return false;
  for (let i = 0; i < a.recipes.length; i++) if (recipeView(a.recipes[i]!) !== recipeView(b.recipes[i]!)) return false;
  return true;
}
