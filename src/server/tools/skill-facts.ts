/**
 * What `recipes__list` shows of a skill beyond docs/skill-packs.md (dcc-mcp-core's
 * SkillMetadata fields): its `layer`, the skills it `depends` on
 * (`metadata/depends.md` merged) and the `products` it is for. Always
 * present so a client reads one shape: `null` / `[]` when not set.
 */
import type { SkillInfo } from "../../skills/types.js";

export function skillFacts(info: SkillInfo): { depends: readonly string[]; layer: string | null; products: readonly string[] } {
  return { depends: info.depends ?? [], layer: info.layer ?? null, products: info.products ?? [] };
}
