/**
 * Prompt names (README "Prompts and skills"): stable, unique per endpoint,
 * made of skill and recipe name, in the character set MCP recommends for
 * names clients turn into slash commands (`A-Z a-z 0-9 _ - .`, 1-128).
 *
 * - Both names already in `[A-Za-z0-9_-]` and together at most 127
 *   characters: `<skill>.<recipe>` (one dot; the dot is the separator).
 * - Otherwise: `<skill-slug>.<recipe-slug>.<hash>` (two dots), where a slug
 *   is the NFKC name with each run of other characters turned into `-`
 *   (the skill's cut to 40 characters, the recipe's to what fits in 128), and
 *   `<hash>` the first 10 hex digits of SHA-256 of the recipe id
 *   `<skill>/<recipe>`.
 *
 * A name depends on its own recipe only, so adding or removing recipes never
 * renames another. Clean names cannot collide (the single dot splits them
 * back into skill and recipe) nor meet a hashed one (dot count); two hashed
 * names meet only if 40 bits of SHA-256 do, and then the one whose recipe id
 * sorts later gets the full 64-digit hash.
 */
import { createHash } from "node:crypto";

const CLEAN = /^[A-Za-z0-9_-]+$/;
export const MAX_PROMPT_NAME = 128;
const SKILL_PART = 40;
const SHORT_HASH = 10;
const FULL_HASH = 64;

export function promptName(skill: string, recipe: string): string {
  if (CLEAN.test(skill) && CLEAN.test(recipe) && skill.length + 1 + recipe.length <= MAX_PROMPT_NAME) {
    return `${skill}.${recipe}`;
  }
  return hashedName(skill, recipe, SHORT_HASH);
}

/** The collision fallback (see above). */
export function fullHashName(skill: string, recipe: string): string {
  return hashedName(skill, recipe, FULL_HASH);
}

function hashedName(skill: string, recipe: string, digits: number): string {
  const hash = createHash("sha256").update(`${skill}/${recipe}`, "utf8").digest("hex").slice(0, digits);
  const skillPart = slug(skill).slice(0, SKILL_PART);
  const room = MAX_PROMPT_NAME - skillPart.length - hash.length - 2;
  return `${skillPart}.${slug(recipe).slice(0, room)}.${hash}`;
}

function slug(text: string): string {
  const s = text.normalize("NFKC").replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "");
  return s === "" ? "_" : s;
}
