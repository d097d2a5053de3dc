/**
 * The Skills extension (io.modelcontextprotocol/skills, SEP-2640): the entry
 * for a protocol leg.
 *
 * API (protocol-neutral: no HTTP, no SDK types; answers are data):
 *
 *   const skills = createSkillsProvider({
 *     source,          // { current(): CatalogSnapshot | null }, e.g. the DCC's RecipeLibrary
 *     onLeftOut?,      // (skill, reason) => void: a skill the extension cannot serve (name rule, limits)
 *     pageSize?,       // skills per skills/list page, children per directory page (default 50)
 *   });
 *   await skills.list(params)           // skills/list, params { cursor? } -> Outcome<{ skills: Skill[]; nextCursor? }>
 *   await skills.get(params)            // skills/get, params { uri }      -> Outcome<{ skill: Skill }>
 *   skills.handles(uri)                 // true for a skill:// URI: route that resources/read here
 *   await skills.read(params)           // resources/read, params { uri }  -> Outcome<{ contents: [{ uri, mimeType, text | blob }] }>
 *   await skills.readDirectory(params)  // resources/directory/read, params { uri, cursor? } -> Outcome<{ resources; nextCursor? }>
 *   skills.listResources()              // each served skill's SKILL.md, for resources/list (first page)
 *
 *   Outcome<T> = { ok: true; result: T } | { ok: false; error: { code, message, data? } }
 *   -- every miss is -32602 (an unknown skill, a file not served: data { uri }, as the
 *      v2 SDK's ResourceNotFoundError), as the extension and the 2026-07-28 revision name it.
 *
 * Declare `capabilities.extensions[SKILLS_EXTENSION_ID] = SKILLS_CAPABILITY` (and
 * `resources`). On the 2026-07-28 leg add `ttlMs`/`cacheScope` to the skills/list,
 * skills/get and resources/directory/read results (the extension requires them
 * there; its 2025-11-25 backport has none, which is what the providers return).
 * One provider per catalog source may serve every server and request. Files are
 * read per request, so manifests follow the disk; a visible reload changes the
 * published frontmatter (announce it as resources/list_changed, as today).
 */
export { createSkillsProvider, SKILLS_CAPABILITY, SKILLS_EXTENSION_ID } from "./provider.js";
export type { DirectoryChild, ListedResource, ResourceContents, Skill, SkillResource, SkillsProvider, SkillsProviderOptions } from "./provider.js";
export { flattenMetadata } from "./frontmatter.js";
export { attachSkillsLegacy } from "./legacy.js";
