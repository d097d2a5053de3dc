/**
 * The SKILL.md a published skill is served as: the published frontmatter as
 * YAML, then the body the loader read (after the closing `---`, line breaks
 * as LF). The YAML keeps to what every frontmatter reader takes, the SDK's
 * own subset included: one `key: value` per line, a plain scalar only where
 * it cannot read as anything but that string, otherwise a JSON-quoted string
 * (JSON escapes are YAML double-quoted escapes), lists and mappings as
 * one-line flow collections of quoted strings.
 */
import type { PublishedFrontmatter } from "./frontmatter.js";

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;
const PLAIN_VALUE = /^[A-Za-z_][A-Za-z0-9_./+-]*$/;
/** YAML 1.2 core-schema words a plain scalar would read as null or a boolean. */
const CORE_WORDS = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;
/** Characters YAML does not allow raw in a quoted scalar, or that readers take as a break or a BOM. */
const UNSAFE = /[\u007f-\u009f\u2028\u2029\ufeff]/g;

export function renderSkillMd(frontmatter: PublishedFrontmatter, body: string): string {
  const lines = ["---"];
  for (const [key, value] of Object.entries(frontmatter)) {
    if (typeof value === "string") lines.push(`${yamlKey(key)}: ${yamlScalar(value)}`);
    else if (Array.isArray(value)) lines.push(`${yamlKey(key)}: [${value.map(quote).join(", ")}]`);
    else {
      const entries = Object.entries(value as Readonly<Record<string, string>>);
      if (entries.length === 0) lines.push(`${yamlKey(key)}: {}`);
      else {
        lines.push(`${yamlKey(key)}:`);
        for (const [inner, text] of entries) lines.push(`  ${yamlKey(inner)}: ${yamlScalar(text)}`);
      }
    }
  }
  lines.push("---");
  return `${lines.join("\n")}\n${body}`;
}

function yamlKey(key: string): string {
  return PLAIN_KEY.test(key) && !CORE_WORDS.test(key) ? key : quote(key);
}

function yamlScalar(value: string): string {
  return PLAIN_VALUE.test(value) && !CORE_WORDS.test(value) ? value : quote(value);
}

function quote(text: string): string {
  return JSON.stringify(text).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
