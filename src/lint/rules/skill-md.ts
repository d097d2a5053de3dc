/**
 * SKILL.md positions and fixes the loader does not give: the line of
 * `metadata.dcc-mcp.recipes` for path problems, and for legacy top-level keys
 * the exact `metadata.dcc-mcp` block to write instead.
 */
import { parse, stringify } from "yaml";
import { MAX_SKILL_MD_BYTES } from "../../skills/discover.js";
import { readInsideText, realDirOf } from "../../util/read-inside.js";
import { ALLOWED_TOP_LEVEL_KEYS } from "../../skills/frontmatter.js";
import { isRecord } from "../schema-walk.js";
import { YamlSource, type SourcePos } from "../yaml-locate.js";

const MAX_FIX = 240;

export class SkillMdSource {
  private constructor(
    private readonly yaml: string,
    private readonly source: YamlSource,
  ) {}

  /** null when SKILL.md has no frontmatter to point into (the loader already said why). */
  static async read(dir: string): Promise<SkillMdSource | null> {
    const text = readInsideText(realDirOf(dir), "SKILL.md", MAX_SKILL_MD_BYTES);
    if (text === null) return null;
    const lines = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").split("\n");
    if (lines[0]?.trimEnd() !== "---") return null;
    const end = lines.findIndex((l, i) => i > 0 && l.trimEnd() === "---");
    if (end < 0) return null;
    const yaml = lines.slice(1, end).join("\n");
    // +1: the YAML starts on the line after the opening ---.
    return new SkillMdSource(yaml, new YamlSource(yaml, 1));
  }

  /** The `recipes` key: nested `metadata.dcc-mcp.recipes` (which wins) or flat `metadata["dcc-mcp.recipes"]`. */
  recipesPos(): SourcePos | undefined {
    return (
      this.source.locate(["metadata", "dcc-mcp", "recipes"], true, true) ??
      this.source.locate(["metadata", "dcc-mcp.recipes"], true, true) ??
      this.source.locate(["metadata"], true, true)
    );
  }

  /** "move dcc, version under metadata.dcc-mcp: metadata: {dcc-mcp: {dcc: maya, …}}" */
  legacyKeysFix(): string | undefined {
    let data: unknown;
    try {
      data = parse(this.yaml, { maxAliasCount: 100 });
    } catch {
      return undefined;
    }
    if (!isRecord(data)) return undefined;
    const extra = Object.keys(data).filter((k) => !ALLOWED_TOP_LEVEL_KEYS.includes(k));
    if (extra.length === 0) return undefined;
    const existing = isRecord(data["metadata"]) && isRecord(data["metadata"]["dcc-mcp"]) ? data["metadata"]["dcc-mcp"] : {};
    const moved: Record<string, unknown> = { ...existing };
    for (const k of extra) moved[k] = data[k];
    const block = stringify({ metadata: { "dcc-mcp": moved } }, { collectionStyle: "flow", flowCollectionPadding: false, lineWidth: 0 })
      .trim()
      .replace(/^\{/, "")
      .replace(/\}$/, "");
    const fix = `move ${extra.join(", ")} under metadata.dcc-mcp: ${block}`;
    return fix.length > MAX_FIX ? `${fix.slice(0, MAX_FIX - 1)}…` : fix;
  }
}
