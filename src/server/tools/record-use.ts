/**
 * The one place a tool counts a use of a recipe: in the store of the library
 * the recipe came from (public: the DCC's; private: the caller's own), under
 * the caller's user, and in the metrics. Both are in-memory increments; the
 * store writes its counts in batches, off the call's path (usage-store.ts).
 */
import type { RecipeLibrary } from "../../recipes/catalog/library.js";
import type { UsageCounter } from "../../recipes/store/usage-counts.js";
import type { RecipeToolContext } from "./context.js";

export function recordUse(context: RecipeToolContext, library: RecipeLibrary, recipeId: string, counter: UsageCounter): void {
  library.usage.record(recipeId, counter, context.caller?.user ?? "");
  context.observeUse?.(recipeId, counter);
}

/** A later window of the same answer (docs/tools.md) is the same call read on, not another use. */
export function firstWindow(args: { readonly resultStart?: number }): boolean {
  return (args.resultStart ?? 0) === 0;
}
