/**
 * What each configured skill root of a DCC gives: whether it exists, and
 * (once a catalog is loaded) how many skills and recipes it contributes.
 * Shared by the start-up banner and `recipe-server paths`.
 */
import { statSync } from "node:fs";
import type { CatalogSnapshot } from "../recipes/catalog/catalog.js";

export interface RootReport {
  /** Position in priority order, 0 = searched first. */
  readonly index: number;
  readonly path: string;
  readonly state: "found" | "missing" | "not-a-directory";
  /** null before a catalog is loaded. */
  readonly skills: number | null;
  readonly recipes: number | null;
}

export function rootState(root: string): RootReport["state"] {
  try {
    return statSync(root).isDirectory() ? "found" : "not-a-directory";
  } catch {
    return "missing";
  }
}

/** Roots in priority order; counts from `snapshot` when given (a skill counts under the root it was served from). */
export function reportRoots(roots: readonly string[], snapshot: CatalogSnapshot | null): RootReport[] {
  const skills = new Array<number>(roots.length).fill(0);
  const recipes = new Array<number>(roots.length).fill(0);
  for (const skill of snapshot?.skills.values() ?? []) {
    const i = skill.info.rootIndex;
    if (i < 0 || i >= roots.length) continue;
    skills[i]! += 1;
    recipes[i]! += skill.recipeIds.length;
  }
  return roots.map((root, index) => ({
    index,
    path: root,
    state: rootState(root),
    skills: snapshot === null ? null : skills[index]!,
    recipes: snapshot === null ? null : recipes[index]!,
  }));
}
