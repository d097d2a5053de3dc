/**
 * Promotion of a private playbook into a skill pack, as data: what
 * `recipe-server promote` and the `recipe` tool's action=promote both run
 * (their refusals carry the tool table's codes).
 *
 * Nothing reaches the skill directory before it passed the checks a pack
 * author runs: the new file is staged in a copy of the skill (SKILL.md and
 * its recipe files) outside every skill root, so a watching daemon never
 * serves a half-checked recipe; there the loader's own glob resolution must
 * pick the file up and lint must find no error the new file brings. Only
 * then is it created in the skill directory, atomically and exclusively (a
 * hard link from a dot-named temp file the recipe globs never match): an
 * existing file is never replaced, whoever wrote it meanwhile.
 *
 * Messages name skills and skill-relative files, never host paths, except
 * where a caller passes a path in (`shown`).
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { lintRoots } from "./engine.js";
import type { LintFinding } from "./types.js";
import { loadSkillRecipes } from "../recipes/packs/loader.js";
import { renderPlaybook, type Rendered } from "../recipes/packs/promote-render.js";
import { createFileExclusive } from "../recipes/store/atomic-write.js";
import type { PlaybookStore } from "../recipes/store/contract.js";
import type { Playbook } from "../recipes/types.js";
import { loadSkill, skillServesDcc } from "../skills/discover.js";
import { resolveRecipePaths, skillRelative } from "../skills/recipe-paths.js";
import type { SkillInfo } from "../skills/types.js";
import type { ToolErrorCode } from "../util/error-codes.js";

export type PromoteErrorCode = Extract<ToolErrorCode, "not_found" | "conflict" | "invalid_input">;

export type PromoteOutcome =
  | {
      readonly ok: true;
      /** `private/<slug>`. */
      readonly from: string;
      readonly revision: number;
      /** `<skill>/<name>`: the public recipe once the catalog reloads. */
      readonly recipeId: string;
      readonly format: "markdown" | "yaml";
      /** The new file, skill-relative and `/`-separated. */
      readonly rel: string;
      /** Absolute path of the new file (never sent to clients). */
      readonly file: string;
    }
  | PromoteRefusal;

export interface PromoteRefusal {
  readonly ok: false;
  /** not_found: playbook, revision or skill; conflict: the file or recipe name exists; invalid_input: the rest. */
  readonly code: PromoteErrorCode;
  readonly message: string;
  /** The lint errors the new file would bring (the first 20), when that is why. */
  readonly findings: readonly LintFinding[];
}

const MAX_LISTED_FINDINGS = 20;

export function refusal(code: PromoteErrorCode, message: string, findings: readonly LintFinding[] = []): PromoteRefusal {
  return { ok: false, code, message, findings };
}

/** The playbook to promote: its latest revision, or `revision` of its history; a deleted one is not_found. */
export async function playbookToPromote(store: PlaybookStore, slug: string, revision: number | undefined, dcc: string): Promise<Playbook | PromoteRefusal> {
  if (revision === undefined) {
    const one = await store.loadOne(slug);
    if (one.playbook !== null) return one.playbook;
    return one.diagnostic !== undefined
      ? refusal("invalid_input", `private/${slug} is malformed: ${one.diagnostic.message}`)
      : refusal("not_found", `no private playbook private/${slug} for ${dcc}`);
  }
  const kept = await store.loadRevision(slug, revision);
  if (kept.ok) return kept.playbook;
  return refusal(kept.code === "not_found" ? "not_found" : "invalid_input", kept.message);
}

/**
 * The skill in `dir`, when it is a valid skill of `dcc` whose real directory
 * is one of `roots` or a directory right inside one (a symlink that leads
 * elsewhere is outside); `outside` when it is not. `shown` names the
 * directory in messages.
 */
export async function skillInRoots(dir: string, roots: readonly string[], dcc: string, shown: string): Promise<{ readonly skill: SkillInfo } | { readonly outside: true } | PromoteRefusal> {
  const real = await fs.realpath(dir).catch(() => null);
  if (real === null) return refusal("not_found", `skill directory ${shown} does not exist`);
  if (!(await fs.stat(path.join(real, "SKILL.md")).then((s) => s.isFile(), () => false))) return refusal("not_found", `${shown} is not a skill directory (no SKILL.md)`);
  let rootIndex = -1;
  for (const [i, root] of roots.entries()) {
    const realRoot = await fs.realpath(root).catch(() => null);
    if (realRoot !== null && (realRoot === real || realRoot === path.dirname(real))) {
      rootIndex = i;
      break;
    }
  }
  if (rootIndex < 0) return { outside: true };
  const loaded = await loadSkill(dir, roots[rootIndex]!, rootIndex);
  if (loaded.skill === null) {
    const why = loaded.diagnostics.find((d) => d.severity === "error") ?? loaded.diagnostics[0];
    return refusal("invalid_input", `${shown} is not a valid skill${why ? `: ${why.message}` : ""}`);
  }
  if (!skillServesDcc(loaded.skill.dcc, dcc)) return refusal("invalid_input", `skill ${loaded.skill.name} is for ${loaded.skill.dcc}, not ${dcc}`);
  return { skill: loaded.skill };
}

/** Writes `playbook` into `skill` as a new public recipe, after the checks above; never replaces a file. */
export async function promoteInto(playbook: Playbook, skill: SkillInfo): Promise<PromoteOutcome> {
  const from = `private/${playbook.slug}`;
  const rendered = renderPlaybook(playbook, { from, revision: playbook.revision });
  if (!rendered.ok) return refusal("invalid_input", rendered.message);

  const existing = await loadSkillRecipes(skill);
  if (existing.recipes.some((r) => r.name === rendered.name)) {
    return refusal("conflict", `skill ${skill.name} already has a recipe "${rendered.name}"; nothing written`);
  }
  const staging = await fs.mkdtemp(path.join(os.tmpdir(), "recipe-server-promote-"));
  try {
    const staged = await stageSkill(skill, existing.files, staging);
    const placed = await placeFile(skill, staged, rendered, playbook.slug);
    if ("ok" in placed) return placed;
    const introduced = await newLintErrors(staged, placed.rel);
    if (introduced.length > 0) {
      return refusal(
        "invalid_input",
        `lint finds ${introduced.length} error${introduced.length === 1 ? "" : "s"} in the promoted recipe; nothing written`,
        introduced.slice(0, MAX_LISTED_FINDINGS).map((f) => ({ ...f, message: f.message.split(`${staging}${path.sep}`).join("") })),
      );
    }
    const created = await createExclusive(skill.dir, placed.rel, rendered.text);
    if (!created) return exists(skill, placed.rel);
    return { ok: true, from, revision: playbook.revision, recipeId: `${skill.name}/${rendered.name}`, format: rendered.format, rel: placed.rel, file: path.join(skill.dir, placed.rel) };
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}

/** SKILL.md and the skill's recipe files, at their skill-relative places, in `staging`. */
async function stageSkill(skill: SkillInfo, files: readonly string[], staging: string): Promise<string> {
  const dir = path.join(staging, path.basename(skill.dir));
  await fs.mkdir(dir);
  for (const abs of [path.join(skill.dir, "SKILL.md"), ...files]) {
    const rel = path.relative(skill.dir, abs);
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fs.copyFile(abs, path.join(dir, rel));
  }
  return dir;
}

/**
 * Where the new file goes: `<slug>.md` (or `.yaml`/`.yml`) in the fixed
 * directory part of one of the skill's recipe globs, the first that the
 * loader's own resolution picks up in the staged copy. Returns the
 * skill-relative path, or why there is none.
 */
async function placeFile(skill: SkillInfo, staged: string, rendered: Rendered & { ok: true }, stem: string): Promise<{ rel: string } | PromoteRefusal> {
  const extensions = rendered.format === "markdown" ? [".md"] : [".yaml", ".yml"];
  const candidates: string[] = [];
  for (const pattern of skill.recipePatterns) {
    const segments = pattern.replace(/\\/g, "/").split("/");
    const fixed: string[] = [];
    for (const segment of segments.slice(0, -1)) {
      if (/[*?[\]{}]/.test(segment) || segment === "..") break;
      fixed.push(segment);
    }
    for (const ext of extensions) candidates.push([...fixed, `${stem}${ext}`].filter((s) => s !== "" && s !== ".").join("/"));
  }
  for (const rel of [...new Set(candidates)]) {
    if (await present(path.join(skill.dir, rel))) return exists(skill, rel);
    const abs = path.join(staged, rel);
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, rendered.text);
    const picked = await resolveRecipePaths(staged, skill.recipePatterns, skill.name);
    if (picked.files.some((f) => skillRelative(staged, f) === rel)) return { rel };
    await fs.rm(abs);
  }
  const globs = skill.recipePatterns.length > 0 ? skill.recipePatterns.map((p) => `"${p}"`).join(", ") : "(none)";
  const wanted = rendered.format === "markdown" ? "Markdown file (*.md)" : "YAML file (*.yaml)";
  return refusal("invalid_input", `skill ${skill.name}'s metadata.dcc-mcp.recipes ${globs} takes no new ${wanted}; add a glob such as "recipes/*${extensions[0]}" to its SKILL.md`);
}

/** Lint errors in the staged skill with the new file that it had not without it. */
async function newLintErrors(staged: string, rel: string): Promise<LintFinding[]> {
  const key = (f: LintFinding): string => `${f.code}\u0000${f.file}\u0000${f.message}`;
  const after = await lintRoots([staged], { cwd: staged, requireSkills: true });
  const withFile = await fs.readFile(path.join(staged, rel));
  await fs.rm(path.join(staged, rel));
  const before = new Set((await lintRoots([staged], { cwd: staged, requireSkills: true })).findings.filter((f) => f.severity === "error").map(key));
  await fs.writeFile(path.join(staged, rel), withFile);
  return after.findings.filter((f) => f.severity === "error" && !before.has(key(f)));
}

/**
 * Creates `dir/rel` with `text` only when no such file exists, complete from
 * the moment it appears (atomic-write.ts createFileExclusive). Readable by
 * the pack's other users, as the files beside it are.
 */
async function createExclusive(dir: string, rel: string, text: string): Promise<boolean> {
  const finalPath = path.join(dir, rel);
  await fs.mkdir(path.dirname(finalPath), { recursive: true });
  return (await createFileExclusive(path.dirname(finalPath), path.basename(finalPath), text, undefined, 0o644)) === true;
}

function exists(skill: SkillInfo, rel: string): PromoteRefusal {
  return refusal("conflict", `${skill.name}/${rel} exists; promote never overwrites a file`);
}

async function present(p: string): Promise<boolean> {
  return fs.lstat(p).then(() => true, () => false);
}
