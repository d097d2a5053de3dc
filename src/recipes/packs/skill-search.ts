/**
 * What a recipe carries of its skill for search beyond tags and hint: the
 * `layer` (a filter and a tie-break) and the skill's search aliases and
 * example prompts (indexed near the name's weight). The arrays are the
 * skill's own, shared by all its recipes, and keys are absent when unset,
 * as `searchHint` is.
 */
import type { SkillInfo } from "../../skills/types.js";

export type SkillSearchFields = Pick<SkillInfo, "layer" | "searchAliases" | "examplePrompts">;

export function skillSearchFields(skill: SkillInfo): SkillSearchFields {
  const out: { -readonly [K in keyof SkillSearchFields]: SkillSearchFields[K] } = {};
  if (skill.layer !== undefined) out.layer = skill.layer;
  if (skill.searchAliases !== undefined && skill.searchAliases.length > 0) out.searchAliases = skill.searchAliases;
  if (skill.examplePrompts !== undefined && skill.examplePrompts.length > 0) out.examplePrompts = skill.examplePrompts;
  return out;
}

/** Ranking order of layers on equal scores, as dcc-mcp-core's rank policy orders them (domain first, examples last). */
export function layerRank(layer: string | undefined): number {
  switch (layer) {
    case "infrastructure":
      return 1;
    case "thin-harness":
      return 2;
    case "example":
      return 3;
    default:
      return 0;
  }
}
