/**
 * The private playbooks' part of the incremental catalog: what the store
 * last read of each slug, kept last good, and the daemon's own writes,
 * which a read that raced them must not undo.
 */
import type { Diagnostic } from "../../util/diagnostics.js";
import { isMalformed, kept, sameJson } from "./keep-last-good.js";
import type { PlaybookStore as PrivateStore } from "../store/contract.js";
import { PRIVATE_SKILL } from "../store/reader.js";
import type { Playbook, PrivateRecipe } from "../types.js";

/** The private part of a change set (reload.ts). */
interface PlaybookChanges {
  readonly privateSlugs: ReadonlySet<string>;
  readonly privateAll: boolean;
}

interface PrivateState {
  readonly recipe: PrivateRecipe | null;
  readonly diagnostics: readonly Diagnostic[];
  /** Bumped by daemon writes, so a read that raced one is discarded. */
  readonly generation: number;
}

export class PlaybookState {
  private privates = new Map<string, PrivateState>();
  private privateDirDiagnostics: readonly Diagnostic[] = [];

  constructor(private readonly store: PrivateStore) {}

  clear(): void {
    this.privates.clear();
  }

  /** Recipes and diagnostics in slug order. */
  parts(): { privateRecipes: PrivateRecipe[]; privateDiagnostics: Diagnostic[] } {
    const privateRecipes: PrivateRecipe[] = [];
    const privateDiagnostics: Diagnostic[] = [...this.privateDirDiagnostics];
    for (const slug of [...this.privates.keys()].sort()) {
      const p = this.privates.get(slug)!;
      if (p.recipe !== null) privateRecipes.push(p.recipe);
      privateDiagnostics.push(...p.diagnostics);
    }
    return { privateRecipes, privateDiagnostics };
  }

  /** A playbook the daemon itself wrote: already current, so its file event must be a no-op. */
  noteWritten(playbook: Playbook): PrivateRecipe {
    const recipe = toPrivateRecipe(playbook);
    const previous = this.privates.get(playbook.slug);
    this.privates.set(playbook.slug, { recipe, diagnostics: [], generation: (previous?.generation ?? 0) + 1 });
    return recipe;
  }

  async apply(changes: PlaybookChanges): Promise<{ changed: boolean; visible: boolean }> {
    if (!changes.privateAll && changes.privateSlugs.size === 0) return { changed: false, visible: false };
    let changed = false;
    let visible = false;
    const set = (slug: string, next: { recipe: PrivateRecipe | null; diagnostics: readonly Diagnostic[] }, generation: number): void => {
      const previous = this.privates.get(slug);
      // A daemon write landed while this read was in flight: the write is newer.
      if ((previous?.generation ?? 0) !== generation) return;
      const prevRecipe = previous?.recipe ?? null;
      if (!samePlaybook(prevRecipe, next.recipe)) visible = true;
      if (!sameJson(previous?.diagnostics ?? [], next.diagnostics)) changed = true;
      if (next.recipe === null && next.diagnostics.length === 0) this.privates.delete(slug);
      else this.privates.set(slug, { ...next, recipe: samePlaybook(prevRecipe, next.recipe) ? prevRecipe : next.recipe, generation });
    };
    if (changes.privateAll) {
      const generations = new Map([...this.privates].map(([slug, p]) => [slug, p.generation]));
      const all = await this.store.loadAll();
      // A store that cannot be read keeps what was loaded; it signals again once it can.
      if (all.unavailable === true && this.privates.size > 0) return { changed: false, visible: false };
      const bySlug = new Map<string, { recipe: PrivateRecipe | null; diagnostics: Diagnostic[] }>();
      for (const playbook of all.playbooks) bySlug.set(playbook.slug, { recipe: toPrivateRecipe(playbook), diagnostics: [] });
      const dirDiagnostics: Diagnostic[] = [];
      for (const d of all.diagnostics) {
        const slug = d.file !== undefined ? this.store.slugFromFile(d.file) : null;
        if (slug === null) dirDiagnostics.push(d);
        else bySlug.set(slug, { recipe: null, diagnostics: [d] });
      }
      if (!sameJson(dirDiagnostics, this.privateDirDiagnostics)) changed = true;
      this.privateDirDiagnostics = Object.freeze(dirDiagnostics);
      for (const slug of new Set([...this.privates.keys(), ...bySlug.keys()])) {
        const next = bySlug.get(slug) ?? { recipe: null, diagnostics: [] };
        set(slug, this.keepGoodPlaybook(slug, next), generations.get(slug) ?? 0);
      }
    } else {
      await Promise.all(
        [...changes.privateSlugs].map(async (slug) => {
          const generation = this.privates.get(slug)?.generation ?? 0;
          const one = await this.store.loadOne(slug);
          const next = {
            recipe: one.playbook === null ? null : toPrivateRecipe(one.playbook),
            diagnostics: one.diagnostic === undefined ? [] : [one.diagnostic],
          };
          set(slug, this.keepGoodPlaybook(slug, next), generation);
        }),
      );
    }
    return { changed: changed || visible, visible };
  }

  private keepGoodPlaybook(
    slug: string,
    next: { recipe: PrivateRecipe | null; diagnostics: readonly Diagnostic[] },
  ): { recipe: PrivateRecipe | null; diagnostics: readonly Diagnostic[] } {
    const last = this.privates.get(slug)?.recipe ?? null;
    const bad = next.recipe === null ? isMalformed(next.diagnostics) : undefined;
    if (last === null || bad === undefined) return next;
    return { recipe: last, diagnostics: [...next.diagnostics, kept(bad, bad.file ?? `${slug}.md`)] };
  }
}

function samePlaybook(a: PrivateRecipe | null, b: PrivateRecipe | null): boolean {
  if (a === null || b === null) return a === b;
  return sameJson(a, b);
}

/** A playbook as the catalog serves it: `private/<slug>`, seen by every DCC. */
export function toPrivateRecipe(playbook: Playbook): PrivateRecipe {
  return Object.freeze({
    recipeId: `${PRIVATE_SKILL}/${playbook.slug}`,
    skill: PRIVATE_SKILL,
    name: playbook.slug,
    dcc: "any",
    description: playbook.summary,
    tags: playbook.tags,
    file: `${playbook.slug}.md`,
    visibility: "private",
    format: "private",
    playbook,
  });
}
