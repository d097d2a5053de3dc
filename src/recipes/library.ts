/**
 * The live recipe library of one DCC: discovery → loaders → immutable catalog
 * snapshot → search index. Tool handlers call `current()` once per request
 * and work on that snapshot; every change publishes a new one.
 */
import type { Logger } from "pino";
import { discoverSkills } from "../skills/discover.js";
import type { Diagnostic } from "../skills/diagnostics.js";
import { loadSkillRecipes } from "./loader.js";
import { buildSnapshot, skillServesDcc, withPlaybook, type CatalogSnapshot, type LoadedSkill } from "./catalog.js";
import { openPrivateStore, toPrivateRecipe, type PlaybookDraft, type PlaybookPatch, type PrivateStore, type StoreResult } from "./private/store.js";
import { openUsageStore, type UsageStore } from "./private/usage.js";
import type { SearchEngine } from "./search/engine.js";
import path from "node:path";

export interface LibrarySettings {
  readonly dcc: string;
  readonly skillRoots: readonly string[];
  readonly privateDir: string;
  readonly stateDir: string;
}

export interface RecipeLibraryOptions {
  readonly settings: LibrarySettings;
  readonly search: SearchEngine;
  readonly logger: Logger;
}

export class RecipeLibrary {
  readonly dcc: string;
  readonly settings: LibrarySettings;
  readonly search: SearchEngine;
  readonly store: PrivateStore;
  readonly usage: UsageStore;
  private readonly logger: Logger;
  private snapshot: CatalogSnapshot | null = null;
  private revision = 0;
  private loadedSkills: readonly LoadedSkill[] = [];
  private discoveryDiagnostics: readonly Diagnostic[] = [];
  private listeners = new Set<(snapshot: CatalogSnapshot, previous: CatalogSnapshot | null) => void>();

  constructor(options: RecipeLibraryOptions) {
    this.settings = options.settings;
    this.dcc = options.settings.dcc;
    this.search = options.search;
    this.logger = options.logger.child({ dcc: this.dcc });
    this.store = openPrivateStore({ dir: options.settings.privateDir, logger: this.logger });
    this.usage = openUsageStore({ file: path.join(options.settings.stateDir, "usage.json") });
  }

  /** The snapshot a request should use, or null before the first load. */
  current(): CatalogSnapshot | null {
    return this.snapshot;
  }

  /** Called with each new snapshot after it is published. */
  onChange(listener: (snapshot: CatalogSnapshot, previous: CatalogSnapshot | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Full load from disk: discovery, every skill, every private playbook. */
  async load(): Promise<CatalogSnapshot> {
    const started = performance.now();
    await this.usage.load();
    const discovered = await discoverSkills(this.settings.skillRoots, { logger: this.logger });
    const served = discovered.skills.filter((skill) => {
      const keep = skillServesDcc(skill.dcc, this.dcc);
      if (!keep) this.logger.debug({ skill: skill.name, skillDcc: skill.dcc }, "skill is for another DCC");
      return keep;
    });
    const loaded = await Promise.all(
      served.map(async (info): Promise<LoadedSkill> => ({ info, ...(await loadSkillRecipes(info)) })),
    );
    const privateLoad = await this.store.loadAll();
    this.loadedSkills = loaded;
    this.discoveryDiagnostics = discovered.diagnostics;
    const snapshot = buildSnapshot({
      dcc: this.dcc,
      revision: ++this.revision,
      skills: loaded,
      discoveryDiagnostics: discovered.diagnostics,
      privateRecipes: privateLoad.playbooks.map(toPrivateRecipe),
      privateDiagnostics: privateLoad.diagnostics,
    });
    this.publish(snapshot);
    for (const d of snapshot.diagnostics) {
      this.logger[d.severity === "error" ? "warn" : "info"]({ diagnostic: d }, "skill diagnostic");
    }
    this.logger.info(
      { skills: snapshot.skills.size, recipes: snapshot.recipes.size, diagnostics: snapshot.diagnostics.length, ms: Math.round(performance.now() - started) },
      "catalog loaded",
    );
    return snapshot;
  }

  /** Skills and diagnostics of the last full load (hot reload starts from these). */
  loadedState(): { skills: readonly LoadedSkill[]; discoveryDiagnostics: readonly Diagnostic[] } {
    return { skills: this.loadedSkills, discoveryDiagnostics: this.discoveryDiagnostics };
  }

  /** Publish a snapshot built elsewhere (hot reload); assigns the next revision. */
  replace(build: (revision: number) => CatalogSnapshot): CatalogSnapshot {
    const snapshot = build(++this.revision);
    this.publish(snapshot);
    return snapshot;
  }

  nextRevision(): number {
    return ++this.revision;
  }

  async createPlaybook(draft: PlaybookDraft): Promise<StoreResult> {
    const result = await this.store.create(draft);
    if (result.ok) this.showPlaybook(result.playbook.slug, result);
    return result;
  }

  async updatePlaybook(slug: string, patch: PlaybookPatch, expectedRevision?: number): Promise<StoreResult> {
    const result = await this.store.update(slug, patch, expectedRevision);
    if (result.ok) this.showPlaybook(slug, result);
    return result;
  }

  /** Flush pending writes (usage counts, queued playbook writes). */
  async flush(): Promise<void> {
    await Promise.all([this.store.flush(), this.usage.flush()]);
  }

  private showPlaybook(slug: string, result: StoreResult & { ok: true }): void {
    const base = this.snapshot;
    if (base === null) return;
    const recipe = toPrivateRecipe(result.playbook);
    this.logger.debug({ slug }, "playbook written");
    this.publish(withPlaybook(base, recipe, ++this.revision));
  }

  private publish(snapshot: CatalogSnapshot): void {
    const previous = this.snapshot;
    // Index first, then expose: a search that sees revision N finds N's recipes.
    this.search.update([...snapshot.recipes.values()], snapshot.revision);
    this.snapshot = snapshot;
    for (const listener of this.listeners) listener(snapshot, previous);
  }
}
