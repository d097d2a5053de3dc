/**
 * `recipe-server promote private/<slug> --to <skill dir>`: a private playbook
 * that proved itself becomes a public recipe of a skill pack, through the
 * file the daemon's hot reload picks up.
 *
 * Nothing reaches the skill directory before it passed the checks a pack
 * author runs: the new file is staged in a copy of the skill (SKILL.md and
 * its recipe files) outside every skill root, so a watching daemon never
 * serves a half-checked recipe; there the loader's own glob resolution must
 * pick the file up and `recipe-server lint` must find no error the new file
 * brings. Only then is it created in the skill directory, atomically and
 * exclusively (a hard link from a dot-named temp file the recipe globs never
 * match): an existing file is never replaced, whoever wrote it meanwhile.
 *
 * Exit 0 promoted, 1 refused (one line saying why), 2 usage error.
 */
import { constants as fsConstants, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveConfig, type Config } from "../config/resolve.js";
import type { DccConfig } from "../config/types.js";
import { lintRoots } from "../lint/engine.js";
import type { LintFinding } from "../lint/types.js";
import { printable } from "../lint/sanitize.js";
import { loadSkillRecipes } from "../recipes/packs/loader.js";
import { fsyncDir, tempFileName } from "../recipes/store/atomic-write.js";
import { openStores } from "../recipes/store/open-store.js";
import { isValidSlug } from "../recipes/store/slug.js";
import { stateFiles } from "../recipes/catalog/state-files.js";
import type { Playbook } from "../recipes/types.js";
import { loadSkill, skillServesDcc } from "../skills/discover.js";
import { resolveRecipePaths, skillRelative } from "../skills/recipe-paths.js";
import type { SkillInfo } from "../skills/types.js";
import { renderPlaybook, type Rendered } from "./promote-render.js";

export const PROMOTE_HELP = `recipe-server promote — a private playbook becomes a recipe of a skill pack

Usage:
  recipe-server promote private/<slug> --to SKILL_DIR [--revision N] [--user ID] [--dcc NAME] [server options]

Reads the playbook (its latest revision, or revision N of its history) from
the DCC's playbook store (--private-dir, --store and --config resolve as for
the server) and writes it into SKILL_DIR, a skill directory (with SKILL.md)
of one of the DCC's skill roots: a Markdown recipe <slug>.md, or a YAML pack
<slug>.yaml when the playbook's document is a recipe entry (inputs_schema,
output_contract or tool steps). The file goes where the skill's
metadata.dcc-mcp.recipes glob picks it up, is linted with the skill before
it is written, and records the playbook and revision it came from.
With --users-file, --user ID names whose playbook it is.

Refuses (exit 1) when the playbook or skill is missing, the file or a recipe
of that name exists, no recipe glob of the skill takes a new file, or lint
finds an error. Exit 0 promoted, 2 usage error.
`;

export interface PromoteIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

interface OwnOptions {
  readonly id: string | undefined;
  readonly to: string | undefined;
  readonly revision: number | undefined;
  readonly user: string | undefined;
  readonly help: boolean;
  readonly rest: string[];
}

type Outcome = { readonly ok: true; readonly line: string } | { readonly ok: false; readonly lines: string[] };

const MAX_LISTED_FINDINGS = 20;

export async function runPromote(argv: readonly string[], io: PromoteIo): Promise<number> {
  const usage = (message: string): number => {
    io.stderr.write(`recipe-server promote: ${printable(message)}\n`);
    return 2;
  };
  const own = takeOwnOptions(argv);
  if (typeof own === "string") return usage(own);
  if (own.help) {
    io.stdout.write(PROMOTE_HELP);
    return 0;
  }
  if (own.id === undefined) return usage("name the playbook: promote private/<slug> --to SKILL_DIR");
  const match = /^private\/(.*)$/s.exec(own.id);
  if (match === null || !isValidSlug(match[1]!)) return usage(`"${own.id}" is not a playbook id (private/<slug>: lowercase a-z, 0-9 and single dashes)`);
  if (own.to === undefined) return usage("--to SKILL_DIR is required");
  const resolved = resolveConfig({ argv: own.rest, env: io.env, cwd: io.cwd });
  if (resolved.kind === "help") {
    io.stdout.write(PROMOTE_HELP);
    return 0;
  }
  if (resolved.kind !== "serve") return usage(resolved.kind === "error" ? resolved.message : "--version is not a promote option");
  const dcc = pickDcc(resolved.config);
  if (typeof dcc === "string") return usage(dcc);
  if (resolved.config.usersFile !== null && own.user === undefined) return usage("with --users-file every playbook is a user's: name the user with --user ID");
  if (resolved.config.usersFile === null && own.user !== undefined) return usage("--user needs --users-file (without it there is one user)");
  const outcome = await promote({ dcc, slug: match[1]!, revision: own.revision, user: own.user, skillDir: path.resolve(io.cwd, own.to), historyLimit: resolved.config.limits.historyLimit });
  if (outcome.ok) {
    io.stdout.write(`${printable(outcome.line)}\n`);
    return 0;
  }
  for (const line of outcome.lines) io.stderr.write(`recipe-server promote: ${printable(line)}\n`);
  return 1;
}

/** `--to`, `--revision` and the playbook id are this command's; everything else is the server's. */
function takeOwnOptions(argv: readonly string[]): OwnOptions | string {
  let id: string | undefined;
  let to: string | undefined;
  let revision: number | undefined;
  let user: string | undefined;
  let help = false;
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const [name, inline] = eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    if (name === "--to" || name === "--revision" || name === "--user") {
      const value = inline ?? argv[++i];
      if (value === undefined || value === "" || (inline === undefined && value.startsWith("-"))) return `${name} needs a value`;
      if (name === "--to") {
        if (to !== undefined) return "--to is given twice";
        to = value;
      } else if (name === "--user") {
        // A users-file id, which is also a directory name under the private dir.
        if (!USER_ID.test(value)) return `--user must be a users-file id (1–64 of a-z 0-9 . _ - starting with a letter or digit), got "${value}"`;
        user = value;
      } else {
        if (!/^[1-9]\d{0,14}$/.test(value)) return `--revision must be a positive integer, got "${value}"`;
        revision = Number(value);
      }
    } else if (arg === "-h" || arg === "--help") {
      help = true;
    } else if (!arg.startsWith("-")) {
      if (id !== undefined) return `one playbook at a time (got "${id}" and "${arg}")`;
      id = arg;
    } else {
      rest.push(arg);
      // The server's options that take a value: keep the value with its flag.
      if (eq < 0 && !BOOLEAN_FLAGS.has(arg) && argv[i + 1] !== undefined) rest.push(argv[++i]!);
    }
  }
  return { id, to, revision, user, help, rest };
}

const USER_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const BOOLEAN_FLAGS = new Set(["--insecure-no-auth", "--stateless", "--no-watch", "-v", "-V", "--version"]);

function pickDcc(config: Config): DccConfig | string {
  if (config.dccs.length === 1) return config.dccs[0]!;
  return `name one DCC (--dcc): the playbook stores of ${config.dccs.map((d) => d.name).join(", ")} are separate`;
}

interface PromoteRequest {
  readonly dcc: DccConfig;
  readonly slug: string;
  readonly revision: number | undefined;
  /** A users-file id: that user's playbooks (their own directory, or their rows). */
  readonly user: string | undefined;
  readonly skillDir: string;
  readonly historyLimit: number;
}

async function promote(request: PromoteRequest): Promise<Outcome> {
  const refuse = (...lines: string[]): Outcome => ({ ok: false, lines });
  const target = await targetSkill(request.skillDir, request.dcc);
  if (typeof target === "string") return refuse(target);
  const { skill } = target;
  const read = await readPlaybook(request);
  if (typeof read === "string") return refuse(read);
  const from = `private/${request.slug}`;
  const rendered = renderPlaybook(read, { from, revision: read.revision });
  if (!rendered.ok) return refuse(rendered.message);

  const existing = await loadSkillRecipes(skill);
  if (existing.recipes.some((r) => r.name === rendered.name)) {
    return refuse(`skill ${skill.name} already has a recipe "${rendered.name}"; nothing written`);
  }
  const staging = await fs.mkdtemp(path.join(os.tmpdir(), "recipe-server-promote-"));
  try {
    const staged = await stageSkill(skill, existing.files, staging);
    const placed = await placeFile(skill, staged, rendered, request.slug);
    if (typeof placed === "string") return refuse(placed);
    const introduced = await newLintErrors(staged, placed.rel);
    if (introduced.length > 0) {
      return refuse(
        `lint finds ${introduced.length} error${introduced.length === 1 ? "" : "s"} in the promoted recipe; nothing written`,
        ...introduced.slice(0, MAX_LISTED_FINDINGS).map((f) => `  ${f.file}${f.line !== undefined ? `:${f.line}` : ""}: ${f.code}: ${f.message}`),
      );
    }
    const created = await createExclusive(skill.dir, placed.rel, rendered.text);
    if (!created) return refuse(`${skill.name}/${placed.rel} exists; promote never overwrites a file`);
    return {
      ok: true,
      line: `promoted ${from} revision ${read.revision} to ${skill.name}/${rendered.name} (${rendered.format}, ${path.join(skill.dir, placed.rel)})`,
    };
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}

/** The skill directory, when it is a valid skill of this DCC in (or as) one of its skill roots. */
async function targetSkill(dir: string, dcc: DccConfig): Promise<{ skill: SkillInfo } | string> {
  const real = await fs.realpath(dir).catch(() => null);
  if (real === null) return `skill directory ${dir} does not exist`;
  if (!(await fs.stat(path.join(real, "SKILL.md")).then((s) => s.isFile(), () => false))) return `${dir} is not a skill directory (no SKILL.md)`;
  let rootIndex = -1;
  for (const [i, root] of dcc.skillRoots.entries()) {
    const realRoot = await fs.realpath(root).catch(() => null);
    if (realRoot !== null && (realRoot === real || realRoot === path.dirname(real))) {
      rootIndex = i;
      break;
    }
  }
  if (rootIndex < 0) {
    return `${dir} is not a skill of ${dcc.name}'s skill roots (${dcc.skillRoots.join(", ") || "none configured"}); add its root with --skills-path`;
  }
  const loaded = await loadSkill(dir, dcc.skillRoots[rootIndex]!, rootIndex);
  if (loaded.skill === null) {
    const why = loaded.diagnostics.find((d) => d.severity === "error") ?? loaded.diagnostics[0];
    return `${dir} is not a valid skill${why ? `: ${why.message}` : ""}`;
  }
  if (!skillServesDcc(loaded.skill.dcc, dcc.name)) return `skill ${loaded.skill.name} is for ${loaded.skill.dcc}, not ${dcc.name}`;
  return { skill: loaded.skill };
}

async function readPlaybook(request: PromoteRequest): Promise<Playbook | string> {
  const user = request.user;
  // Where the server keeps a user's playbooks (recipes/catalog/user-libraries.ts).
  const stores = openStores({
    dcc: request.dcc.name,
    privateDir: user === undefined ? request.dcc.privateDir : path.join(request.dcc.privateDir, user),
    usageFile: stateFiles(user === undefined ? request.dcc.stateDir : path.join(request.dcc.stateDir, "users", user)).usage,
    storeUrl: request.dcc.storeUrl,
    ...(user !== undefined ? { owner: user } : {}),
    historyLimit: request.historyLimit,
  });
  try {
    const problem = await stores.store.startupProblem();
    if (problem !== null) return `the playbook store cannot be used: ${problem}`;
    if (request.revision === undefined) {
      const one = await stores.store.loadOne(request.slug);
      if (one.playbook !== null) return one.playbook;
      return one.diagnostic !== undefined ? `private/${request.slug} is malformed: ${one.diagnostic.message}` : `no private playbook private/${request.slug} for ${request.dcc.name}`;
    }
    const kept = await stores.store.loadRevision(request.slug, request.revision);
    return kept.ok ? kept.playbook : kept.message;
  } finally {
    await stores.close();
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
async function placeFile(skill: SkillInfo, staged: string, rendered: Rendered & { ok: true }, stem: string): Promise<{ rel: string } | string> {
  const extensions = rendered.format === "markdown" ? [".md"] : [".yaml", ".yml"];
  const candidates: string[] = [];
  for (const pattern of skill.recipePatterns) {
    const segments = pattern.replace(/\\/g, "/").split("/");
    const fixed: string[] = [];
    for (const segment of segments.slice(0, -1)) {
      if (/[*?[\]{}]/.test(segment) || segment === ".." ) break;
      fixed.push(segment);
    }
    for (const ext of extensions) candidates.push([...fixed, `${stem}${ext}`].filter((s) => s !== "" && s !== ".").join("/"));
  }
  for (const rel of [...new Set(candidates)]) {
    if (await exists(path.join(skill.dir, rel))) return `${skill.name}/${rel} exists; promote never overwrites a file`;
    const abs = path.join(staged, rel);
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, rendered.text);
    const picked = await resolveRecipePaths(staged, skill.recipePatterns, skill.name);
    if (picked.files.some((f) => skillRelative(staged, f) === rel)) return { rel };
    await fs.rm(abs);
  }
  const globs = skill.recipePatterns.length > 0 ? skill.recipePatterns.map((p) => `"${p}"`).join(", ") : "(none)";
  const wanted = rendered.format === "markdown" ? "Markdown file (*.md)" : "YAML file (*.yaml)";
  return `skill ${skill.name}'s metadata.dcc-mcp.recipes ${globs} takes no new ${wanted}; add a glob such as "recipes/*${extensions[0]}" to its SKILL.md`;
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
 * the moment it appears: a dot-named temp file, synced, then hard-linked into
 * place (link fails on an existing name where rename would replace it).
 * Readable by the pack's other users, as the files beside it are.
 */
async function createExclusive(dir: string, rel: string, text: string): Promise<boolean> {
  const finalPath = path.join(dir, rel);
  const parent = path.dirname(finalPath);
  await fs.mkdir(parent, { recursive: true });
  const tempPath = path.join(parent, tempFileName(path.basename(finalPath)));
  const handle = await fs.open(tempPath, fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY, 0o644);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.link(tempPath, finalPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS" && code !== "EXDEV") throw error;
    // No hard links here: an exclusive create still never replaces a file.
    try {
      await fs.writeFile(finalPath, text, { flag: "wx", mode: 0o644 });
    } catch (inPlace) {
      if ((inPlace as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw inPlace;
    }
  } finally {
    await fs.rm(tempPath, { force: true });
  }
  await fsyncDir(parent);
  return true;
}

async function exists(p: string): Promise<boolean> {
  return fs.lstat(p).then(() => true, () => false);
}
