/**
 * Which skills of a snapshot the Skills extension serves, with the
 * frontmatter and SKILL.md each is served with. Depends on the snapshot
 * alone; the files below each skill are read per request (files.ts), so
 * manifests follow the disk, and hot reload, without a cache to go stale.
 */
import type { CatalogSnapshot, SkillEntry } from "../../../recipes/catalog/catalog.js";
import { publishedFrontmatter, type PublishedFrontmatter } from "./frontmatter.js";
import { renderSkillMd } from "./skill-md.js";
import { skillUri } from "./uri.js";

export interface PublishedSkill {
  readonly name: string;
  readonly entry: SkillEntry;
  readonly frontmatter: PublishedFrontmatter;
  /** `skill://<name>/SKILL.md`. */
  readonly uri: string;
  /** The SKILL.md served: published frontmatter + the body as loaded. */
  readonly skillMd: Buffer;
  /** Skill-relative files the loader refused (never served). */
  readonly refused: ReadonlySet<string>;
}

export interface PublishedCatalog {
  /** By name, sorted (code-unit order, the order of their URIs). */
  readonly names: readonly string[];
  readonly skills: ReadonlyMap<string, PublishedSkill>;
  /** Skills not served, and why. */
  readonly left: ReadonlyArray<{ readonly skill: string; readonly reason: string }>;
}

/** Loader diagnostics that mean a file's current bytes were refused, not just one entry of it. */
const REFUSING_CODES: ReadonlySet<string> = new Set([
  "file_too_large",
  "file_unreadable",
  "not_file",
  "not_utf8",
  "pack_missing_recipes",
  "recipe_path_escapes",
  "yaml_alias_limit",
  "yaml_duplicate_key",
  "yaml_parse_error",
  "reload_kept_last_good",
]);

export function publishCatalog(snapshot: CatalogSnapshot): PublishedCatalog {
  const skills = new Map<string, PublishedSkill>();
  const left: Array<{ skill: string; reason: string }> = [];
  for (const [name, entry] of snapshot.skills) {
    const published = publishedFrontmatter(entry.info);
    const uri = skillUri(name, ["SKILL.md"]);
    if (!published.ok || uri === null) {
      left.push({ skill: name, reason: published.ok ? "its name cannot be a URI" : published.reason });
      continue;
    }
    const refused = new Set<string>();
    for (const d of entry.diagnostics) if (d.file !== undefined && REFUSING_CODES.has(d.code)) refused.add(d.file);
    skills.set(name, {
      name,
      entry,
      frontmatter: published.frontmatter,
      uri,
      skillMd: Buffer.from(renderSkillMd(published.frontmatter, entry.info.body), "utf8"),
      refused,
    });
  }
  const names = [...skills.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { names, skills, left };
}
