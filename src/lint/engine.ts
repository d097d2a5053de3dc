/**
 * `recipe-server lint` core: load skill roots exactly as the server does,
 * turn every loader diagnostic into a finding, then run the pack-author rules
 * over what loaded. Positions come from re-parsing a file only when a finding
 * needs one.
 */
import path from "node:path";
import { loadSkillRecipes } from "../recipes/packs/loader.js";
import type { MarkdownRecipe, YamlRecipe } from "../recipes/types.js";
import type { Diagnostic } from "../util/diagnostics.js";
import type { SkillInfo } from "../skills/types.js";
import { assembleDiscovery, scanRoots } from "../skills/discover.js";
import { MAX_RECIPE_FILE_BYTES } from "../recipes/packs/yaml-pack.js";
import { readInsideText, realDirOf } from "../util/read-inside.js";
import { mapLimit } from "../util/concurrency.js";
import { contractRule } from "./rules/contracts.js";
import { runContractRule } from "./rules/run.js";
import { crossSkillDuplicates, markdownRule } from "./rules/across-recipes.js";
import { entryKeyRule } from "./rules/entry-keys.js";
import { placeholderRule, unusedInputRule } from "./rules/placeholders.js";
import { CompileCache, defaultsRule, requiredRule } from "./rules/schema-defaults.js";
import { schemaKeywordRule } from "./rules/schema-keywords.js";
import { SkillMdSource } from "./rules/skill-md.js";
import { fixFor, ruleOf } from "./rules.js";
import { isSuppressed, parseSuppressions, type Suppressions } from "./suppress.js";
import type { LintFinding, LintReport, LintSeverity, RuleHit } from "./types.js";
import { entryPos, schemaPointerPath, SourceCache } from "./positions.js";
import type { SourcePos } from "./yaml-locate.js";

interface LintOptions {
  /** Findings name files relative to this directory. */
  readonly cwd: string;
  /** A root without skills is a finding (paths the user named) or silently skipped (configured roots). */
  readonly requireSkills: boolean;
}

/** SKILL.md diagnostics about `metadata.dcc-mcp.recipes`: point at that key. */
const RECIPES_KEY_CODES = new Set(["recipe_path_missing", "recipe_path_escapes", "recipe_glob_empty", "invalid_metadata", "file_unreadable"]);
const FAILS_CLOSED = /^recipe "(?:[^"\\]|\\.)*" (inputs_schema|output_contract) fails closed \([a-z_]+(?: at (\/[^)]*))?\)/;

function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}

class FindingSink {
  readonly findings: LintFinding[] = [];
  /** Absolute file of each finding, same index: suppressions are read from it. */
  readonly files: string[] = [];
  /** The skill directory of each finding, same index: its files are read inside it. */
  readonly dirs: string[] = [];
  constructor(private readonly cwd: string) {}

  add(
    f: { code: string; severity: LintSeverity; message: string; fix: string; skill?: string },
    skillDir: string,
    file: string,
    pos?: SourcePos | { line?: number; column?: number },
  ): void {
    const abs = path.join(skillDir, file);
    const rel = toPosix(path.relative(this.cwd, abs)) || ".";
    const out: { -readonly [K in keyof LintFinding]: LintFinding[K] } = {
      code: f.code,
      severity: f.severity,
      file,
      path: rel,
      message: f.message,
      fix: f.fix,
    };
    if (f.skill !== undefined) out.skill = f.skill;
    if (pos?.line !== undefined) out.line = pos.line;
    if (pos?.column !== undefined) out.column = pos.column;
    this.findings.push(out);
    this.files.push(abs);
    this.dirs.push(skillDir);
  }

  /** Drops findings an in-file `recipe-lint-disable` comment covers; returns how many. */
  async applySuppressions(): Promise<number> {
    const byFile = new Map<string, Promise<Suppressions | null>>();
    const keep: boolean[] = [];
    for (let i = 0; i < this.findings.length; i++) {
      const f = this.findings[i]!;
      if (ruleOf(f.code) === undefined) {
        keep.push(true);
        continue;
      }
      const abs = this.files[i]!;
      let s = byFile.get(abs);
      if (s === undefined) {
        const text = readInsideText(realDirOf(this.dirs[i]!), abs, MAX_RECIPE_FILE_BYTES);
        s = Promise.resolve(text === null ? null : parseSuppressions(text, /\.ya?ml$/i.test(abs)));
        byFile.set(abs, s);
      }
      const sup = await s;
      keep.push(sup === null || !isSuppressed(sup, f.code, f.line));
    }
    const kept = this.findings.filter((_, i) => keep[i]);
    const dropped = this.findings.length - kept.length;
    this.findings.splice(0, this.findings.length, ...kept);
    this.files.length = 0;
    this.dirs.length = 0;
    return dropped;
  }
}

function yamlRules(r: YamlRecipe, cache: CompileCache): RuleHit[] {
  const hasInputs = Object.hasOwn(r.entry, "inputs_schema");
  const contract = r.outputContract;
  const contractIsSchema = contract !== undefined && contract !== null && typeof contract !== "string";
  return [
    ...entryKeyRule(r),
    ...(hasInputs ? schemaKeywordRule(r.inputsSchema, "inputs_schema", ["inputs_schema"], r.name) : []),
    ...(contractIsSchema ? schemaKeywordRule(contract, "output_contract", ["output_contract"], r.name) : []),
    ...(hasInputs && r.inputValidator.ok ? defaultsRule(r.inputsSchema, "inputs_schema", ["inputs_schema"], r.name, cache) : []),
    ...(contractIsSchema && r.outputValidator?.ok ? defaultsRule(contract, "output_contract", ["output_contract"], r.name, cache) : []),
    ...(hasInputs ? requiredRule(r.inputsSchema, "inputs_schema", ["inputs_schema"], r.name) : []),
    ...(contractIsSchema ? requiredRule(contract, "output_contract", ["output_contract"], r.name) : []),
    ...placeholderRule(r),
    ...unusedInputRule(r),
    ...contractRule(r),
    ...runContractRule(r),
  ];
}

interface SkillLint {
  readonly yaml: YamlRecipe[];
  readonly recipes: number;
  readonly files: number;
}

async function lintSkill(skill: SkillInfo, sink: FindingSink, cache: CompileCache): Promise<SkillLint> {
  const loaded = await loadSkillRecipes(skill);
  const sources = new SourceCache(skill.dir);
  let skillMd: Promise<SkillMdSource | null> | undefined;
  const md = (): Promise<SkillMdSource | null> => (skillMd ??= SkillMdSource.read(skill.dir));

  for (const d of loaded.diagnostics) {
    // Lint's own schema_draft07 rule reports the same warning, at the $schema key itself.
    if (d.code === "schema_draft07_accepted") continue;
    const file = d.file ?? "SKILL.md";
    let pos: SourcePos | { line?: number; column?: number } | undefined = d.line !== undefined ? { line: d.line } : undefined;
    if (file === "SKILL.md" && d.line === undefined && RECIPES_KEY_CODES.has(d.code)) pos = (await md())?.recipesPos();
    const closed = d.code === "schema_fails_closed" && d.line !== undefined ? FAILS_CLOSED.exec(d.message) : null;
    if (closed !== null) {
      pos = await entryPos(sources, path.join(skill.dir, file), d.line!, [closed[1]!, ...schemaPointerPath(closed[2])], closed[2] === undefined);
    }
    sink.add({ code: d.code, severity: d.severity, message: d.message, fix: fixFor(d.code), skill: skill.name }, skill.dir, file, pos);
  }

  const yaml = loaded.recipes.filter((r): r is YamlRecipe => r.format === "yaml");
  for (const r of yaml) {
    for (const hit of yamlRules(r, cache)) {
      const rule = ruleOf(hit.code);
      const pos = await entryPos(sources, path.join(skill.dir, r.file), r.line ?? 1, hit.at ?? [], hit.atKey ?? false, r.name);
      sink.add(
        { code: hit.code, severity: hit.severity ?? rule?.severity ?? "error", message: hit.message, fix: hit.fix ?? fixFor(hit.code), skill: skill.name },
        skill.dir,
        r.file,
        pos,
      );
    }
  }

  const anchors = loaded.recipes.filter((r): r is MarkdownRecipe => r.format === "markdown");
  for (const hit of markdownRule(anchors)) {
    sink.add(
      { code: hit.code, severity: ruleOf(hit.code)!.severity, message: hit.message, fix: fixFor(hit.code), skill: skill.name },
      skill.dir,
      hit.recipe.file,
      { line: hit.recipe.line, column: 1 },
    );
  }
  return { yaml, recipes: loaded.recipes.length, files: loaded.files.length };
}

async function addSkillMdDiagnostic(sink: FindingSink, dir: string, d: Diagnostic): Promise<void> {
  const file = d.file ?? "SKILL.md";
  let fix = fixFor(d.code);
  let pos: SourcePos | { line?: number } | undefined = d.line !== undefined ? { line: d.line, column: 1 } : undefined;
  if (d.code === "non_spec_top_level_keys") {
    const md = await SkillMdSource.read(dir);
    fix = md?.legacyKeysFix() ?? fix;
  } else if (file === "SKILL.md" && d.line === undefined && RECIPES_KEY_CODES.has(d.code)) {
    pos = (await SkillMdSource.read(dir))?.recipesPos();
  }
  const base = { code: d.code, severity: d.severity, message: d.message, fix };
  sink.add(d.skill !== undefined ? { ...base, skill: d.skill } : base, dir, file, pos);
}

interface DirDiagnostics {
  readonly dir: string;
  readonly diagnostics: readonly Diagnostic[];
}

interface LintDiscovery {
  /** Skills the server would serve, in priority order. */
  readonly skills: SkillInfo[];
  /** Every diagnostic, with the skill directory it belongs to. */
  readonly diagnostics: DirDiagnostics[];
  /** Roots that exist but hold no SKILL.md. */
  readonly emptyRoots: string[];
}

/**
 * Lint's pass over skill roots: the daemon's full-load walk (`scanRoots`)
 * and merge (`assembleDiscovery`, the one scanSkills and every reload use:
 * a root holding SKILL.md is a skill, else its direct children; first name
 * in priority order wins), keeping each directory so every finding can name
 * its file.
 */
export async function discoverForLint(roots: readonly string[]): Promise<LintDiscovery> {
  const scans = await scanRoots(roots);
  const emptyRoots = scans.filter((scan) => scan.dirs.length === 0).map((scan) => path.resolve(roots[scan.rootIndex]!));
  const diagnostics: DirDiagnostics[] = [];
  const { skills } = assembleDiscovery(scans, (dir, ds) => diagnostics.push({ dir, diagnostics: ds }));
  return { skills, diagnostics, emptyRoots };
}

export async function lintRoots(roots: readonly string[], options: LintOptions): Promise<LintReport> {
  const started = performance.now();
  const sink = new FindingSink(options.cwd);
  const absRoots = roots.map((r) => path.resolve(options.cwd, r));
  const found = await discoverForLint(absRoots);

  if (options.requireSkills) {
    for (const root of found.emptyRoots) {
      sink.add(
        { code: "no_skills_found", severity: "error", message: "no SKILL.md here or in a direct child directory", fix: fixFor("no_skills_found") },
        root,
        ".",
      );
    }
  }
  for (const { dir, diagnostics } of found.diagnostics) {
    for (const d of diagnostics) await addSkillMdDiagnostic(sink, dir, d);
  }

  const cache = new CompileCache();
  const perSkill = await mapLimit(found.skills, 16, (s) => lintSkill(s, sink, cache));
  const allYaml = perSkill.flatMap((p) => p.yaml);
  const dirOf = new Map(found.skills.map((s) => [s.name, s.dir]));
  const dupSources = new Map<string, SourceCache>();
  const sourcesOf = (dir: string): SourceCache => {
    let sources = dupSources.get(dir);
    if (sources === undefined) dupSources.set(dir, (sources = new SourceCache(dir)));
    return sources;
  };
  for (const hit of crossSkillDuplicates(allYaml)) {
    sink.add(
      {
        code: "duplicate_recipe_across_skills",
        severity: "warning",
        message: hit.message,
        fix: fixFor("duplicate_recipe_across_skills"),
        skill: hit.recipe.skill,
      },
      dirOf.get(hit.recipe.skill)!,
      hit.recipe.file,
      await entryPos(sourcesOf(dirOf.get(hit.recipe.skill)!), path.join(dirOf.get(hit.recipe.skill)!, hit.recipe.file), hit.recipe.line ?? 1, ["name"], false, hit.recipe.name),
    );
  }

  const suppressed = await sink.applySuppressions();
  const findings = sink.findings.sort(
    (a, b) =>
      cmp(a.path, b.path) || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0) || cmp(a.code, b.code) || cmp(a.message, b.message),
  );
  return {
    findings,
    stats: {
      roots: absRoots.length,
      skills: found.skills.length,
      recipes: perSkill.reduce((n, p) => n + p.recipes, 0),
      files: perSkill.reduce((n, p) => n + p.files, 0),
      suppressed,
      ms: performance.now() - started,
    },
  };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
