/**
 * Incremental catalog state for hot reload (docs/skill-packs.md). It remembers, per
 * skill directory, the parsed SKILL.md and the recipes of each recipe file,
 * so a change re-reads only the directories and playbooks it names and the
 * rest of the catalog is reused as is.
 *
 * Keep-last-good: a file that turns malformed (YAML that no longer parses, a
 * pack without `recipes:`, a SKILL.md whose frontmatter broke, a file caught
 * empty mid-save) keeps the recipes of its last good read, with a
 * `reload_kept_last_good` warning beside the loader's own error, until it is
 * fixed (keep-last-good.ts). A file that is gone loses its recipes. The
 * private playbooks' part lives in playbook-state.ts.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import type { Diagnostic } from "../../util/diagnostics.js";
import { assembleDiscovery, compareDirNames, hasSkillMd, loadSkill, skillDirsOf, type LoadSkillResult } from "../../skills/discover.js";
import { createPacer, mapLimit } from "../../util/concurrency.js";
import { statQuiet } from "../../util/read-bounded.js";
import type { SkillInfo } from "../../skills/types.js";
import type { ChangeBatch } from "../../skills/pending-changes.js";
import { skillServesDcc, type SnapshotInputs } from "./catalog.js";
import type { ParseCache } from "../packs/parse-cache.js";
import { createPackParser, inlineParser, parseWorkerCount, type PackParser } from "../packs/parse-pool.js";
import { sameJson } from "./keep-last-good.js";
import { loadSkillFiles } from "../packs/loader.js";
import { keepGoodSkillMd, sameSkill, type DirState, type SkillState } from "./skill-state.js";
import { PlaybookState } from "./playbook-state.js";
import type { PlaybookStore as PrivateStore } from "../store/contract.js";
import type { Playbook, PrivateRecipe, Recipe } from "../types.js";

/**
 * What to re-read: roots to re-list, skill directories to re-read (one that
 * is not, or no longer, a skill is fine), playbooks by slug, or the whole
 * private directory.
 */
export interface ChangeSet extends Pick<ChangeBatch, "roots" | "skillDirs" | "privateAll"> {
  readonly privateSlugs: ReadonlySet<string>;
}

export interface ApplyResult {
  /** Anything in the snapshot (skills, recipes, diagnostics) differs. */
  readonly changed: boolean;
  /** Skills or recipes a client can see differ (not only diagnostics). */
  readonly visible: boolean;
  /** Skill directories whose recipe files were re-read (for logs and tests). */
  readonly reloadedSkills: readonly string[];
}

/** A watcher batch as a change set: private files by playbook slug (`slugFromFile`: the store's). */
export function changeSetOf(batch: ChangeBatch, slugFromFile: (fileName: string) => string | null): ChangeSet {
  const privateSlugs = new Set<string>();
  let privateAll = batch.privateAll;
  for (const name of batch.privateFiles) {
    const slug = slugFromFile(name);
    if (slug !== null) privateSlugs.add(slug);
    // A .md file that is not a slug gets (or loses) a diagnostic from a full re-read.
    else if (name.endsWith(".md")) privateAll = true;
  }
  return { roots: batch.roots, skillDirs: batch.skillDirs, privateSlugs, privateAll };
}

/** Two change sets as one: everything either names, each directory once. */
export function mergeChanges(a: ChangeSet, b: ChangeSet): ChangeSet {
  const dirs = new Map<string, { readonly rootIndex: number; readonly dir: string }>();
  for (const d of [...a.skillDirs, ...b.skillDirs]) dirs.set(dirKey(d.rootIndex, d.dir), d);
  return {
    roots: new Set([...a.roots, ...b.roots]),
    skillDirs: [...dirs.values()],
    privateSlugs: new Set([...a.privateSlugs, ...b.privateSlugs]),
    privateAll: a.privateAll || b.privateAll,
  };
}

/** Skills read at once during a (re)load: enough to overlap file I/O, few enough to bound peak memory. */
const LOAD_CONCURRENCY = 8;
/**
 * Skills in flight when their packs parse on workers: enough that a worker
 * always has packs queued while this thread builds and indexes recipes.
 */
const POOL_LOAD_CONCURRENCY = 32;
/** Skills to (re)load at once from which parse workers are started. */
const POOL_MIN_SKILLS = 64;
/** Longest stretch of loading between two turns of the event loop. */
const PACE_MS = 10;

export interface IncrementalCatalogOptions {
  readonly dcc: string;
  readonly roots: readonly string[];
  readonly store: PrivateStore;
  /** Parsed packs across restarts; absent = parse every pack. */
  readonly parseCache?: ParseCache;
  /** Worker threads for large loads; default parseWorkerCount(), 0 = the calling thread only. */
  readonly parseWorkers?: number;
  /**
   * Each skill's recipes as soon as its files are read, before the load
   * publishes (a search index can take them while the rest still parses).
   */
  readonly onSkillLoaded?: (recipes: readonly Recipe[]) => void;
}

function dirKey(rootIndex: number, dir: string): string {
  return `${rootIndex}\u0000${dir}`;
}

export class IncrementalCatalog {
  private readonly dcc: string;
  private readonly roots: readonly string[];
  private readonly parseCache: ParseCache | undefined;
  private readonly parseWorkers: number;
  private readonly onSkillLoaded: ((recipes: readonly Recipe[]) => void) | undefined;
  /** Skill directories per root, in discovery order. */
  private dirsByRoot = new Map<number, string[]>();
  private dirs = new Map<string, DirState>();
  /** Served skills by directory key. */
  private skills = new Map<string, SkillState>();
  private order: string[] = [];
  private discoveryDiagnostics: readonly Diagnostic[] = [];
  private readonly playbooks: PlaybookState;
  /** Parse workers the last change set ran (a load's log reports them). */
  private workersOfLastApply = 0;

  constructor(options: IncrementalCatalogOptions) {
    this.dcc = options.dcc;
    this.roots = options.roots.map((r) => path.resolve(r));
    this.playbooks = new PlaybookState(options.store);
    this.parseCache = options.parseCache;
    this.parseWorkers = options.parseWorkers ?? parseWorkerCount();
    this.onSkillLoaded = options.onSkillLoaded;
  }

  /** Full load from disk. */
  async loadAll(): Promise<void> {
    const all = new Set<number>(this.roots.map((_, i) => i));
    this.dirsByRoot.clear();
    this.dirs.clear();
    this.skills.clear();
    this.playbooks.clear();
    await this.apply({ roots: all, skillDirs: [], privateSlugs: new Set(), privateAll: true });
  }

  /** Re-reads what `changes` names and re-merges; the caller serializes calls. */
  async apply(changes: ChangeSet): Promise<ApplyResult> {
    const dirty = new Set<string>();
    let rootsChanged = false;
    for (const rootIndex of changes.roots) {
      const root = this.roots[rootIndex];
      if (root === undefined) continue;
      const isDir = (await stat(root).catch(() => null))?.isDirectory() ?? false;
      const next = isDir ? await skillDirsOf(root) : [];
      const before = this.dirsByRoot.get(rootIndex) ?? [];
      if (next.length === 0) this.dirsByRoot.delete(rootIndex);
      else this.dirsByRoot.set(rootIndex, next);
      const nextSet = new Set(next);
      for (const dir of before) {
        if (!nextSet.has(dir)) {
          this.dirs.delete(dirKey(rootIndex, dir));
          rootsChanged = true;
        }
      }
      // A rescan re-reads every directory: it also serves as the catch-up after
      // a root (re)appears, when individual events may have been missed.
      for (const dir of next) dirty.add(dirKey(rootIndex, dir));
      if (before.length !== next.length) rootsChanged = true;
    }
    for (const { rootIndex, dir } of changes.skillDirs) {
      const root = this.roots[rootIndex];
      if (root === undefined) continue;
      const abs = path.resolve(dir);
      if (await this.updateMembership(rootIndex, root, abs)) rootsChanged = true;
      if ((this.dirsByRoot.get(rootIndex) ?? []).includes(abs)) dirty.add(dirKey(rootIndex, abs));
    }

    // A large load with nothing cached will parse every pack: its workers
    // start now, while the SKILL.md files are read, not at the first pack,
    // and they read the packs too.
    let parser: PackParser | null = null;
    if (dirty.size >= POOL_MIN_SKILLS && (this.parseCache?.isEmpty() ?? true)) {
      parser = createPackParser(this.parseWorkers);
      parser.prestart();
    }
    this.workersOfLastApply = 0;
    try {
      return await this.applyWith(changes, dirty, rootsChanged, parser);
    } finally {
      if (parser !== null) await this.closeParser(parser);
    }
  }

  /** Parse workers the last full load or change set started. */
  lastParseWorkers(): number {
    return this.workersOfLastApply;
  }

  private async closeParser(parser: PackParser): Promise<void> {
    this.workersOfLastApply += parser.workers();
    await parser.close();
  }

  private async applyWith(changes: ChangeSet, dirty: Set<string>, rootsChanged: boolean, early: PackParser | null): Promise<ApplyResult> {
    let discoveryChanged = rootsChanged;
    // File reads are synchronous (see read-bounded.ts) and parsing is CPU:
    // give queued requests a turn every few milliseconds of a large load.
    const pace = createPacer(PACE_MS);
    const note = (key: string, fresh: LoadSkillResult): void => {
      const previous = this.dirs.get(key);
      const result = keepGoodSkillMd(fresh, previous);
      if (previous === undefined || JSON.stringify(previous.result) !== JSON.stringify(result)) discoveryChanged = true;
      this.dirs.set(key, { result });
    };
    await mapLimit([...dirty], LOAD_CONCURRENCY, async (key) => {
      await pace();
      const [indexText, dir] = key.split("\u0000") as [string, string];
      const rootIndex = Number(indexText);
      note(key, await loadSkill(dir, this.roots[rootIndex]!, rootIndex));
    });

    const reloadedSkills: string[] = [];
    let visible = false;
    let changed = false;
    if (discoveryChanged || dirty.size > 0) {
      const scans = [...this.dirsByRoot.keys()].sort((a, b) => a - b).map((rootIndex) => {
        const dirs = this.dirsByRoot.get(rootIndex) ?? [];
        return { rootIndex, dirs, results: dirs.map((dir) => this.dirs.get(dirKey(rootIndex, dir))?.result ?? { skill: null, diagnostics: [] }) };
      });
      const discovered = assembleDiscovery(scans);
      if (!sameJson(discovered.diagnostics, this.discoveryDiagnostics)) changed = true;
      this.discoveryDiagnostics = Object.freeze(discovered.diagnostics);
      const served = discovered.skills.filter((s) => skillServesDcc(s.dcc, this.dcc));
      const nextSkills = new Map<string, SkillState>();
      const toLoad: SkillInfo[] = [];
      for (const info of served) {
        const key = dirKey(info.rootIndex, info.dir);
        const previous = this.skills.get(key);
        if (previous !== undefined && !dirty.has(key) && previous.info === info) nextSkills.set(key, previous);
        else toLoad.push(info);
      }
      // Worker threads pay off for a full load, not for a reload of a few skills.
      const parser = early ?? (toLoad.length >= POOL_MIN_SKILLS ? createPackParser(this.parseWorkers) : inlineParser);
      let loaded: SkillState[];
      try {
        loaded = await mapLimit(toLoad, parser === inlineParser ? LOAD_CONCURRENCY : POOL_LOAD_CONCURRENCY, async (info) => {
          await pace();
          const sources = { ...(this.parseCache ? { cache: this.parseCache } : {}), parser, readWhereParsed: early !== null };
          const state = await loadSkillFiles(info, sources, this.skills.get(dirKey(info.rootIndex, info.dir)));
          this.onSkillLoaded?.(state.loaded.recipes);
          return state;
        });
      } finally {
        if (parser !== early) await this.closeParser(parser);
      }
      for (const state of loaded) {
        const key = dirKey(state.info.rootIndex, state.info.dir);
        nextSkills.set(key, state);
        reloadedSkills.push(state.info.name);
        const previous = this.skills.get(key);
        if (previous === undefined || !sameSkill(previous.loaded, state.loaded)) visible = true;
        if (previous === undefined || !sameJson(previous.loaded.diagnostics, state.loaded.diagnostics)) changed = true;
      }
      for (const key of this.skills.keys()) if (!nextSkills.has(key)) visible = true;
      const order = served.map((s) => dirKey(s.rootIndex, s.dir));
      if (order.join("\n") !== this.order.join("\n")) visible = true;
      this.skills = nextSkills;
      this.order = order;
    }

    const privateOutcome = await this.playbooks.apply(changes);
    visible ||= privateOutcome.visible;
    changed ||= privateOutcome.changed || visible;
    return { changed, visible, reloadedSkills };
  }

  /** Parse cache entries behind the recipes served now (what a persisted cache keeps). */
  cacheKeys(): Set<string> {
    const keys = new Set<string>();
    for (const skill of this.skills.values()) for (const f of skill.files.values()) if (f.cacheKey !== undefined) keys.add(f.cacheKey);
    return keys;
  }

  /** The parts buildSnapshot needs, in discovery order. */
  parts(): SnapshotInputs {
    return {
      skills: this.order.map((key) => this.skills.get(key)!.loaded),
      discoveryDiagnostics: this.discoveryDiagnostics,
      ...this.playbooks.parts(),
    };
  }

  /** A playbook the daemon itself wrote: already current, so its file event must be a no-op. */
  notePlaybookWritten(playbook: Playbook): PrivateRecipe {
    return this.playbooks.noteWritten(playbook);
  }

  /** Adds or removes `dir` from its root's skill list; true when the list changed. */
  private async updateMembership(rootIndex: number, root: string, dir: string): Promise<boolean> {
    const list = this.dirsByRoot.get(rootIndex) ?? [];
    const rootIsSkill = list.length === 1 && list[0] === root;
    const inRoot = path.dirname(dir) === root;
    let member: boolean;
    if (dir === root) member = hasSkillMd(root);
    else member = inRoot && !rootIsSkill && (statQuiet(dir)?.isDirectory() ?? false) && hasSkillMd(dir);
    if (dir === root && member !== rootIsSkill) {
      // The root turned into a skill or stopped being one: re-list it whole.
      const next = member ? [root] : await skillDirsOf(root);
      for (const d of list) if (!next.includes(d)) this.dirs.delete(dirKey(rootIndex, d));
      if (next.length === 0) this.dirsByRoot.delete(rootIndex);
      else this.dirsByRoot.set(rootIndex, next);
      return true;
    }
    if (dir === root) return false;
    const has = list.includes(dir);
    if (member === has) return false;
    const next = member ? [...list, dir].sort(compareDirNames) : list.filter((d) => d !== dir);
    if (!member) this.dirs.delete(dirKey(rootIndex, dir));
    if (next.length === 0) this.dirsByRoot.delete(rootIndex);
    else this.dirsByRoot.set(rootIndex, next);
    return true;
  }
}

