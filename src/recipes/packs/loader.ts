/**
 * Turns one skill's recipe files into frozen Recipe objects (docs/skill-packs.md), for
 * the daemon's loads and reloads, lint and the Recipes API alike. Bad files
 * become diagnostics; nothing here throws for author mistakes.
 */
import { capDiagnostics, diagnostic, type Diagnostic } from "../../util/diagnostics.js";
import { decodeUtf8, QUIET_MS, type BoundedRead } from "../../util/read-bounded.js";
import { OUTSIDE, readInsideSettled, realDirOf } from "../../util/read-inside.js";
import { resolveRecipePaths, skillRelative } from "../../skills/recipe-paths.js";
import type { SkillInfo } from "../../skills/types.js";
import type { LoadedSkill } from "../catalog/catalog.js";
import { caughtEmpty, isMalformed, kept } from "../catalog/keep-last-good.js";
import { parseMarkdownAnchors } from "./markdown.js";
import type { MarkdownRecipe, Recipe } from "../types.js";
import type { ParseCache } from "./parse-cache.js";
import { deepFreeze } from "../../util/stable-json.js";
import { inlineParser, type PackParser } from "./parse-pool.js";
import type { PackRecord } from "./parsed-pack.js";
import type { FileState, SkillState } from "../catalog/skill-state.js";
import { skillSearchFields, yamlRecipes } from "./yaml-recipe.js";
import { MAX_RECIPE_FILE_BYTES } from "./yaml-pack.js";

/** How a load parses packs: a cache across restarts, worker threads for large loads. */
export interface PackSources {
  readonly cache?: ParseCache;
  readonly parser?: PackParser;
  /**
   * Packs are read and keyed where they are parsed (on a worker) rather
   * than here; for a load that starts with an empty cache, where no lookup
   * could hit.
   */
  readonly readWhereParsed?: boolean;
}

/**
 * A pack's parse from the cache when its name and bytes were parsed before
 * (a hit skips decoding too); null when the bytes are not UTF-8.
 */
async function parseCached(
  sources: PackSources,
  file: string,
  bytes: Uint8Array,
  decode: () => string | null,
): Promise<{ parsed: PackRecord; cacheKey?: string } | null> {
  const parser = sources.parser ?? inlineParser;
  const cache = sources.cache;
  const cacheKey = cache?.keyOf(file, bytes);
  const hit = cacheKey === undefined ? undefined : cache!.get(cacheKey);
  if (hit !== undefined) return { parsed: hit, cacheKey: cacheKey! };
  const text = decode();
  if (text === null) return null;
  const parsed = await parser.parse(text, file);
  if (cacheKey === undefined) return { parsed };
  cache!.set(cacheKey, parsed);
  return { parsed, cacheKey };
}

export interface RecipeFileResult {
  readonly recipes: Recipe[];
  readonly diagnostics: Diagnostic[];
  /** The parse cache entry this file's recipes came from (YAML packs read with a cache). */
  readonly cacheKey?: string;
}

const DESCRIPTION_MAX = 200;
const SURROGATE = /[\uD800-\uDFFF]/;

/** All recipes of a skill: files in path order, the first recipe of a name wins. */
export async function loadSkillRecipes(skill: SkillInfo): Promise<LoadedSkill> {
  return (await loadSkillFiles(skill)).loaded;
}

/**
 * loadSkillRecipes with what a reload keeps per file: each file's recipes,
 * and the last good ones (of `previous`) while a file is malformed or caught
 * empty mid-save.
 */
export async function loadSkillFiles(info: SkillInfo, sources: PackSources = {}, previous?: SkillState): Promise<SkillState> {
  const resolved = await resolveRecipePaths(info.dir, info.recipePatterns, info.name, info.realDir);
  // Last good recipes only carry over while they would get the same identity.
  const reusable = previous !== undefined && previous.info.name === info.name ? previous.files : new Map<string, FileState>();
  const states = await Promise.all(
    resolved.files.map(async (abs): Promise<FileState> => {
      const rel = skillRelative(info.dir, abs);
      const result = await loadRecipeFile(info, abs, sources);
      const fresh: FileState = { rel, recipes: result.recipes, diagnostics: result.diagnostics, ...(result.cacheKey !== undefined ? { cacheKey: result.cacheKey } : {}) };
      const last = reusable.get(rel);
      if (result.recipes.length > 0 || last === undefined || last.recipes.length === 0) return fresh;
      const bad = isMalformed(result.diagnostics) ?? (await caughtEmpty(abs, info.name, rel));
      if (bad === undefined) return fresh;
      const reported = result.diagnostics.includes(bad) ? result.diagnostics : [...result.diagnostics, bad];
      return { ...last, diagnostics: [...reported, kept(bad, rel)] };
    }),
  );
  const merged = dedupeRecipes(states.flatMap((s) => s.recipes));
  const loaded: LoadedSkill = Object.freeze({
    info,
    recipes: Object.freeze(merged.recipes),
    diagnostics: Object.freeze(capDiagnostics([...resolved.diagnostics, ...states.flatMap((s) => s.diagnostics), ...merged.diagnostics])),
    // Absolute, as resolved; the snapshot shows them skill-relative.
    files: Object.freeze([...resolved.files]),
  });
  return { info, files: new Map(states.map((s) => [s.rel, s])), loaded };
}

/**
 * First recipe of each name wins; later ones are reported. Exported so a
 * reload of one file can re-merge a skill's per-file results the same way.
 */
export function dedupeRecipes(recipes: readonly Recipe[]): RecipeFileResult {
  const seen = new Map<string, Recipe>();
  const out: Recipe[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const r of recipes) {
    const first = seen.get(r.name);
    if (first === undefined) {
      seen.set(r.name, r);
      out.push(r);
      continue;
    }
    const where = r.line !== undefined ? { skill: r.skill, file: r.file, line: r.line } : { skill: r.skill, file: r.file };
    const firstAt = `${first.file}${first.line !== undefined ? `:${first.line}` : ""}`;
    diagnostics.push(
      r.format === "markdown"
        ? diagnostic("warning", "duplicate_anchor", `anchor "${r.name}" repeats; the one at ${firstAt} wins`, where)
        : diagnostic("warning", "duplicate_recipe", `recipe "${r.name}" repeats; the one at ${firstAt} wins`, where),
    );
  }
  return { recipes: out, diagnostics };
}

/** Reads one recipe file of a skill (YAML pack or Markdown anchors). */
export async function loadRecipeFile(skill: SkillInfo, absPath: string, sources: PackSources = {}): Promise<RecipeFileResult> {
  const file = skillRelative(skill.dir, absPath);
  const where = { skill: skill.name, file };
  const fail = (d: Diagnostic): RecipeFileResult => ({ recipes: [], diagnostics: [d] });
  const within = skill.realDir ?? realDirOf(skill.dir);

  if (sources.readWhereParsed === true && isYamlFile(absPath)) {
    const outcome = await (sources.parser ?? inlineParser).parseFile(within, absPath, file, sources.cache?.keyFingerprint ?? "", QUIET_MS);
    // A file still being written is waited for below, where waiting costs no worker.
    if (outcome.kind === "unreadable" && outcome.read.reason !== "changing") return fail(readFailure(outcome.read, file, where));
    if (outcome.kind === "not_utf8") return fail(notUtf8Diagnostic(file, where));
    if (outcome.kind === "parsed") {
      sources.cache?.setParsed(outcome.key, outcome.record);
      return packResult(skill, file, outcome.record, sources.cache !== undefined ? outcome.key : undefined);
    }
  }
  const read = await readInsideSettled(within, absPath, MAX_RECIPE_FILE_BYTES);
  if (!read.ok) return fail(readFailure(read, file, where));
  const bytes = read.bytes;
  const decode = (): string | null => decodeUtf8(bytes);
  const notUtf8 = (): RecipeFileResult => fail(notUtf8Diagnostic(file, where));

  if (!isYamlFile(absPath)) {
    const text = decode();
    if (text === null) return notUtf8();
    const raw = markdownRecipes(skill, file, text);
    const merged = dedupeRecipes(raw.recipes);
    return { recipes: merged.recipes, diagnostics: capDiagnostics([...raw.diagnostics, ...merged.diagnostics]) };
  }
  const cached = await parseCached(sources, file, bytes, decode);
  if (cached === null) return notUtf8();
  return packResult(skill, file, cached.parsed, cached.cacheKey);
}

function packResult(skill: SkillInfo, file: string, parsed: PackRecord, cacheKey: string | undefined): RecipeFileResult {
  const raw = yamlRecipes(skill, file, parsed);
  const merged = dedupeRecipes(raw.recipes);
  const result = { recipes: merged.recipes, diagnostics: capDiagnostics([...raw.diagnostics, ...merged.diagnostics]) };
  return cacheKey === undefined ? result : { ...result, cacheKey };
}

function notUtf8Diagnostic(file: string, where: { skill: string; file: string }): Diagnostic {
  return diagnostic("error", "not_utf8", `${file} is not valid UTF-8`, where);
}

function readFailure(read: Exclude<BoundedRead, { ok: true }>, file: string, where: { skill: string; file: string }): Diagnostic {
  switch (read.reason) {
    case "not_file":
      return diagnostic("error", "recipe_path_missing", `recipe path ${file} is not a file`, where);
    case "too_large":
      return diagnostic("error", "file_too_large", `${file} is ${read.size} bytes; the limit is ${MAX_RECIPE_FILE_BYTES}`, where);
    case "missing":
      return diagnostic("error", "recipe_path_missing", `recipe file ${file} does not exist`, where);
    case "changing":
      return diagnostic("error", "file_unreadable", `${file} kept changing while it was read; it is read again at its next change`, where);
    default:
      // Inside when the paths were listed; a link leads out of the skill now.
      if (read.code === OUTSIDE) return diagnostic("error", "recipe_path_escapes", `recipe path ${file} resolves ${OUTSIDE}`, where);
      return diagnostic("error", "file_unreadable", `${file} cannot be read (${read.code})`, where);
  }
}

/** A recipe file read as a YAML pack (by its extension); any other is Markdown. */
export function isYamlFile(file: string): boolean {
  return /\.ya?ml$/i.test(file);
}

function markdownRecipes(skill: SkillInfo, file: string, text: string): RecipeFileResult {
  const recipes = parseMarkdownAnchors(text).map((a): MarkdownRecipe => {
    const r: MarkdownRecipe = {
      format: "markdown",
      recipeId: `${skill.name}/${a.name}`,
      skill: skill.name,
      name: a.name,
      dcc: skill.dcc,
      description: markdownDescription(a.content),
      tags: skill.tags,
      ...(skill.searchHint !== undefined ? { searchHint: skill.searchHint } : {}),
      ...skillSearchFields(skill),
      file,
      line: a.line,
      visibility: "public",
      content: a.content,
    };
    return deepFreeze(r);
  });
  return { recipes, diagnostics: [] };
}

/** First prose line after the heading (outside fences, not a heading), clipped. */
export function markdownDescription(content: string): string {
  const lines = content.split("\n").slice(1);
  let fence: string | null = null;
  const paragraph: string[] = [];
  for (const line of lines) {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence !== null) {
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && line.trim() === f[1]) fence = null;
      continue;
    }
    const t = line.trim();
    // Blank lines, headings, fences and thematic breaks (---, ***, ___) end the paragraph.
    const breaks = f !== null || t === "" || /^#{1,6}(\s|$)/.test(t) || /^([-*_])(\s*\1){2,}$/.test(t);
    // The first paragraph, joined: wrapped prose must not be cut at its first line break.
    if (breaks && paragraph.length > 0) break;
    if (f) {
      fence = f[1]!;
      continue;
    }
    if (!breaks) paragraph.push(t);
  }
  return clip(paragraph.join(" "));
}

function clip(s: string): string {
  // Code points never outnumber code units: a short string needs no split (10,000 anchors pay this at every start).
  if (s.length <= DESCRIPTION_MAX) return s;
  // Without surrogates every code unit is a code point: a slice, not an array
  // of code points (a typical anchor's first paragraph is just over the limit).
  if (!SURROGATE.test(s)) return `${s.slice(0, DESCRIPTION_MAX - 1).trimEnd()}…`;
  const chars = [...s];
  return chars.length <= DESCRIPTION_MAX ? s : `${chars.slice(0, DESCRIPTION_MAX - 1).join("").trimEnd()}…`;
}
