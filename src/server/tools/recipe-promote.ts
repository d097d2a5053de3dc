/**
 * `recipe` action=promote (offered with `--allow-promote` only): the caller's
 * own private playbook becomes a public recipe of a skill in one of the
 * DCC's skill roots, through lint/promote.ts's checked, exclusive write
 * (the same as `recipe-server promote`). The new recipe is served once the
 * catalog reloads the file.
 *
 * The skill is named, never pathed: it must be in the DCC's catalog, its
 * real directory in (or a symlink-free child of) one of the DCC's skill
 * roots, and writable by the server. Answers name skills and skill-relative
 * files only; host paths in a message are replaced by names.
 */
import { constants as fsConstants, promises as fs } from "node:fs";
import os from "node:os";
import type { CatalogSnapshot } from "../../recipes/catalog/catalog.js";
import { playbookToPromote, promoteInto, skillInRoots, type PromoteOutcome, type PromoteRefusal } from "../../lint/promote.js";
import type { KeyedMutex } from "../../util/concurrency.js";
import { isValidSlug } from "../../recipes/store/slug.js";
import { playbooksOf, type RecipeToolContext } from "./context.js";
import { fail, ok, type Envelope } from "./envelope.js";
import { notFound } from "./recipe-get.js";
import type { ChildFields } from "./recipe-schemas.js";
import { closeNames, notFoundMessage } from "./lookup.js";

const PRIVATE_PREFIX = "private/";

export async function recipePromote(fields: ChildFields<"promote">, snapshot: CatalogSnapshot, context: RecipeToolContext, skills: KeyedMutex): Promise<Envelope> {
  const { recipeId, skill: skillName, revision } = fields;
  const playbooks = playbooksOf(context);
  if (!recipeId.startsWith(PRIVATE_PREFIX)) {
    return snapshot.recipes.get(recipeId)?.visibility === "public"
      ? fail("invalid_input", `Recipe ${recipeId} is already a public skill recipe; only private playbooks (private/<slug>) are promoted`, { recipeId })
      : notFound(playbooks.current() ?? snapshot, recipeId, "private");
  }
  const slug = recipeId.slice(PRIVATE_PREFIX.length);
  if (!isValidSlug(slug)) return notFound(playbooks.current() ?? snapshot, recipeId, "private");

  const entry = snapshot.skills.get(skillName);
  if (entry === undefined) {
    const suggestions = closeNames(skillName, [...snapshot.skills.keys()]);
    return fail("not_found", notFoundMessage("skill", skillName, suggestions), { skill: skillName, suggestions });
  }
  const dcc = context.library.dcc;
  const roots = context.library.settings.skillRoots;
  const info = entry.info;
  const hide = pathHider(info.name, [info.dir, info.realDir, ...roots]);
  // One promote at a time per skill in this server: two playbooks of one title cannot both pass the name check.
  return skills.run(info.realDir ?? info.dir, async () => {
    const placed = await skillInRoots(info.dir, roots, dcc, `skill ${info.name}`);
    if ("ok" in placed) return refused(placed, hide, recipeId, skillName);
    if ("outside" in placed) {
      return fail("invalid_input", `Skill ${info.name} is not inside one of the ${dcc} skill roots (its directory leads elsewhere); promote writes only into the skill roots`, { recipeId, skill: skillName });
    }
    const dir = placed.skill.realDir ?? placed.skill.dir;
    if (!(await fs.access(dir, fsConstants.W_OK).then(() => true, () => false))) {
      return fail("read_only", `Skill ${info.name} is in a skill root this server cannot write to`, { recipeId, skill: skillName });
    }
    const read = await playbookToPromote(playbooks.store, slug, revision, dcc);
    if ("ok" in read) {
      return read.code === "not_found" && revision === undefined ? notFound(playbooks.current() ?? snapshot, recipeId, "private") : refused(read, hide, recipeId, skillName);
    }
    const outcome: PromoteOutcome = await promoteInto(read, placed.skill);
    if (!outcome.ok) return refused(outcome, hide, recipeId, skillName);
    return ok(
      `Promoted ${outcome.from} revision ${outcome.revision} to ${outcome.recipeId}; the catalog serves it once it reloads the new file`,
      { recipeId, revision: outcome.revision, promotedTo: outcome.recipeId, skill: info.name, file: `${info.name}/${outcome.rel}`, format: outcome.format },
    );
  });
}

function refused(outcome: PromoteRefusal, hide: (text: string) => string, recipeId: string, skill: string): Envelope {
  const findings = outcome.findings.map((f) => ({
    code: f.code,
    file: hide(f.file),
    ...(f.line !== undefined ? { line: f.line } : {}),
    message: hide(f.message),
  }));
  return fail(outcome.code, hide(outcome.message), { recipeId, skill, ...(findings.length > 0 ? { findings } : {}) });
}

/**
 * Replaces the given host paths (and the temp dir) in a message: the skill
 * directory by the skill's name, a skill root by `<skill root>`. Longest
 * first, so a root never eats part of a skill directory inside it.
 */
function pathHider(skill: string, paths: readonly (string | undefined)[]): (text: string) => string {
  const pairs: Array<[string, string]> = [];
  for (const [i, p] of paths.entries()) {
    if (p !== undefined && p !== "" && p !== "/") pairs.push([p, i < 2 ? skill : "<skill root>"]);
  }
  pairs.push([os.tmpdir(), "<tmp>"]);
  pairs.sort((a, b) => b[0].length - a[0].length);
  return (text) => pairs.reduce((out, [from, to]) => out.split(from).join(to), text);
}
