/**
 * The frontmatter a skill is published with (README "Prompts and skills").
 * The Skills extension (SEP-2640, as SDK 2.4.0 checks it) takes Agent Skills
 * frontmatter whose `metadata` maps strings to strings; dcc-mcp skills nest
 * `metadata.dcc-mcp` and use lists. The flattening rule:
 *
 * - a metadata value that is a string is published as written, under its key;
 * - each entry of a nested `metadata.dcc-mcp` mapping is published under its
 *   flat name `dcc-mcp.<key>` (the nested value wins over a flat key written
 *   beside it, as the loader reads them);
 * - any other value (list, mapping, number, boolean, null) is published as
 *   its JSON text under the same (flat) key;
 * - keys keep the order written, a nested entry at the place of `dcc-mcp`;
 * - a key `__proto__` is not published (JSON readers, the SDK's among
 *   them, refuse or drop it).
 *
 * `name`, `description`, `license`, `compatibility` and `allowed-tools` are
 * published as the loader read them. A skill whose name, description or
 * compatibility breaks the Agent Skills rules cannot be published: the SDK's
 * own client refuses such an entry (its recipes are still tools and prompts).
 */
import type { SkillInfo } from "../../../skills/types.js";
import { isPlainObject as isRecord } from "../../../jsonschema/json.js";

/** Agent Skills `name`: lowercase letters, digits and single hyphens, 1-64 characters. */
const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export type PublishedFrontmatter = Readonly<Record<string, string | readonly string[] | Readonly<Record<string, string>>>>;

type Publishable = { readonly ok: true; readonly frontmatter: PublishedFrontmatter } | { readonly ok: false; readonly reason: string };

export function publishedFrontmatter(info: SkillInfo): Publishable {
  if (info.name.length > 64 || !SKILL_NAME.test(info.name)) {
    return { ok: false, reason: "its name is not an Agent Skills name (1-64 lowercase letters, digits and single hyphens)" };
  }
  const description = codePoints(info.description);
  if (description === 0 || description > 1024) return { ok: false, reason: "its description is empty or over 1024 characters" };
  if (info.compatibility !== undefined && (info.compatibility === "" || codePoints(info.compatibility) > 500)) {
    return { ok: false, reason: "its compatibility is empty or over 500 characters" };
  }
  const out: Record<string, string | readonly string[] | Readonly<Record<string, string>>> = {
    name: info.name,
    description: info.description,
  };
  if (info.license !== undefined) out["license"] = info.license;
  if (info.compatibility !== undefined) out["compatibility"] = info.compatibility;
  // The loader reads an absent and an empty metadata alike: neither is published.
  if (Object.keys(info.metadata).length > 0) out["metadata"] = flattenMetadata(info.metadata);
  if (info.allowedTools !== undefined) out["allowed-tools"] = info.allowedTools;
  return { ok: true, frontmatter: out };
}

/** The flattening rule above, on a metadata mapping as written. */
export function flattenMetadata(metadata: Readonly<Record<string, unknown>>): Record<string, string> {
  const nested = metadata["dcc-mcp"];
  const nestedMap = isRecord(nested) ? nested : null;
  const entries: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(metadata)) {
    if (key === "dcc-mcp" && nestedMap !== null) {
      for (const [inner, innerValue] of Object.entries(nestedMap)) entries.push([`dcc-mcp.${inner}`, asString(innerValue)]);
      continue;
    }
    // A flat key the nested mapping also sets is published with the nested value, at its own place.
    const shadowed = nestedMap !== null && key.startsWith("dcc-mcp.") && Object.hasOwn(nestedMap, key.slice("dcc-mcp.".length));
    if (!shadowed) entries.push([key, asString(value)]);
  }
  const seen = new Set<string>();
  const out: Array<[string, string]> = [];
  for (const [key, value] of entries) {
    if (seen.has(key) || key === "__proto__") continue;
    seen.add(key);
    out.push([key, value]);
  }
  // fromEntries defines own properties: a key "__proto__" stays data.
  return Object.fromEntries(out);
}

function asString(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "null");
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}
