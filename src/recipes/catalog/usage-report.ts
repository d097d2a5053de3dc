/**
 * Usage of the recipes one caller can see, from wherever each is counted:
 * public recipes in the DCC library's store (totals over every user, and the
 * caller's own uses), private playbooks in the store of their owner's library
 * (single-user: the DCC library's). Nothing here knows of tools or pages:
 * recipes__list and the catalog page both read through `readRecipeUsage`.
 */
import type { RecipeLibrary } from "./library.js";
import type { RecipeUsage } from "../store/usage-counts.js";
import type { UsageReading } from "../store/usage-store.js";

export type { RecipeUsage, UsageFigures } from "../store/usage-counts.js";
export type { UsageReading } from "../store/usage-store.js";

export interface UsageSources {
  /** The DCC's library: its public recipes (and, without a users file, its private playbooks). */
  readonly library: RecipeLibrary;
  /** With a users file: who asks, and the library of the playbooks they own (nobody else's are read). */
  readonly caller?: { readonly user: string; readonly playbooks: RecipeLibrary };
}

/**
 * The usage of `recipeIds` (absent: every recipe in the current catalogs)
 * that `sources` may see: ids not in the current snapshots (a removed
 * recipe, a deleted playbook, another user's playbook) are left out, as are
 * recipes never used. With a caller, a public recipe's answer also has the
 * caller's own uses (`mine`); a private playbook's total is its owner's.
 */
export async function readRecipeUsage(sources: UsageSources, recipeIds?: readonly string[]): Promise<UsageReading> {
  const { library, caller } = sources;
  const own = caller?.playbooks ?? library;
  // Single-user, one store counts both; with users, private ids are read from the caller's own store only.
  const sharedIds = caller === undefined ? recipeIds : recipeIds?.filter((id) => !id.startsWith("private/"));
  const privateIds = recipeIds?.filter((id) => id.startsWith("private/"));
  const [shared, mine] = await Promise.all([
    sharedIds?.length === 0 ? null : library.usage.read({ ...(sharedIds ? { recipeIds: sharedIds } : {}), ...(caller ? { user: caller.user } : {}) }),
    own === library || privateIds?.length === 0 ? null : own.usage.read(privateIds ? { recipeIds: privateIds } : {}),
  ]);
  const recipes = new Map<string, RecipeUsage>();
  const visible = (from: RecipeLibrary, id: string): boolean => from.current()?.recipes.has(id) === true;
  for (const [id, usage] of shared?.recipes ?? []) {
    // Single-user, the DCC library counts its private playbooks too; with users, only its public recipes are read.
    const from = id.startsWith("private/") ? (caller === undefined ? library : null) : library;
    if (from !== null && visible(from, id)) recipes.set(id, usage);
  }
  if (own !== library) {
    for (const [id, usage] of mine?.recipes ?? []) if (id.startsWith("private/") && visible(own, id)) recipes.set(id, usage);
  }
  return {
    recipes,
    asOf: shared?.asOf ?? mine?.asOf ?? new Date().toISOString(),
    complete: (shared?.complete ?? true) && (mine?.complete ?? true),
  };
}
