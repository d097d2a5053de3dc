/**
 * The rules that read a set of recipes together rather than one entry.
 *
 * The same YAML recipe name in two skills served to one DCC. `dcc: any` next
 * to a DCC-specific recipe of the same name is dcc-mcp-core's documented
 * adapter-local override (prefer the specific one), so only equal DCCs clash.
 *
 * Markdown anchors of one skill (exact repeats are the loader's duplicate_anchor):
 * headings with nothing under them, and anchors only letter case tells apart
 * (agents and humans type anchors; `Rig Notes` vs `rig notes` is a trap).
 */
import type { MarkdownRecipe, YamlRecipe } from "../../recipes/types.js";

interface DuplicateHit {
  readonly recipe: YamlRecipe;
  readonly first: YamlRecipe;
  readonly message: string;
}

/** `recipes` in priority order (root order, then skill order); the first of a clash is kept quiet. */
export function crossSkillDuplicates(recipes: readonly YamlRecipe[]): DuplicateHit[] {
  const seen = new Map<string, YamlRecipe>();
  const hits: DuplicateHit[] = [];
  for (const r of recipes) {
    const key = `${r.dcc}\u0000${r.name}`;
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, r);
      continue;
    }
    if (first.skill === r.skill) continue;
    hits.push({
      recipe: r,
      first,
      message: `recipe "${r.name}" (dcc ${r.dcc}) is also published by skill "${first.skill}" (${first.file}:${first.line ?? 1}); agents searching ${r.dcc} see two`,
    });
  }
  return hits;
}

interface MarkdownHit {
  readonly code: "anchor_empty" | "anchor_case_collision";
  readonly message: string;
  readonly recipe: MarkdownRecipe;
}

/** The section without its heading line, blank lines and bare horizontal rules. */
function isEmptySection(content: string): boolean {
  const body = content.split("\n").slice(1);
  return body.every((l) => l.trim() === "" || /^ {0,3}([-*_])( *\1){2,} *$/.test(l));
}

export function markdownRule(anchors: readonly MarkdownRecipe[]): MarkdownHit[] {
  const hits: MarkdownHit[] = [];
  const byFold = new Map<string, MarkdownRecipe>();
  for (const a of anchors) {
    if (isEmptySection(a.content)) {
      hits.push({ code: "anchor_empty", message: `anchor "${a.name}" has no content under its heading`, recipe: a });
    }
    const fold = a.name.toLowerCase();
    const first = byFold.get(fold);
    if (first === undefined) byFold.set(fold, a);
    else if (first.name !== a.name) {
      hits.push({
        code: "anchor_case_collision",
        message: `anchor "${a.name}" differs only in case from "${first.name}" at ${first.file}${first.line !== undefined ? `:${first.line}` : ""}`,
        recipe: a,
      });
    }
  }
  return hits;
}
