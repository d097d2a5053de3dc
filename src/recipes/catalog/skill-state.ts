/**
 * One skill directory's part of the incremental catalog (reload.ts): its
 * recipe files as last read (loader.ts loadSkillFiles), a broken SKILL.md
 * keeping the skill as it was (keep-last-good.ts), and the comparison that
 * tells a reload whether a client would see the difference.
 */
import { diagnostic, type Diagnostic } from "../../util/diagnostics.js";
import type { LoadSkillResult } from "../../skills/discover.js";
import type { SkillInfo } from "../../skills/types.js";
import type { LoadedSkill } from "./catalog.js";
import { isMalformed, kept, sameJson } from "./keep-last-good.js";
import type { Recipe } from "../types.js";

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

/** What a client can see of a recipe; compiled validators are derived from the schemas. */
function recipeView(recipe: Recipe): string {
  return JSON.stringify(recipe, (key, value: unknown) => (key === "inputValidator" || key === "outputValidator" ? undefined : value));
}

export function sameSkill(a: LoadedSkill, b: LoadedSkill): boolean {
  if (a.recipes.length !== b.recipes.length || !sameJson(a.info, b.info) || !sameJson(a.files, b.files)) return false;
  for (let i = 0; i < a.recipes.length; i++) if (recipeView(a.recipes[i]!) !== recipeView(b.recipes[i]!)) return false;
  return true;
}
