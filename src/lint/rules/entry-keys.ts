/** Recipe entry keys that are near misses of the known ones: the field they meant is silently absent. */
import type { YamlRecipe } from "../../recipes/types.js";
import { nearest } from "../../util/edit-distance.js";
import type { RuleHit } from "../types.js";

const KNOWN_ENTRY_KEYS: readonly string[] = [
  "name",
  "dcc",
  "description",
  "inputs_schema",
  "steps",
  "output_contract",
  "toolset_profiles",
  "toolset_profile",
];

/** Extension keys real packs use (docs/skill-packs.md keeps them); never reported as typos. */
const KNOWN_EXTENSION_KEYS: readonly string[] = [
  "undo",
  "undo_steps",
  "receipt_step",
  "recovery",
  "examplePrompts",
  "example_prompts",
  "side_effects",
  "side-effects",
  "tags",
  "version",
  "notes",
  "title",
  "summary",
  "whenToUse",
  "when_to_use",
  "acceptanceCriteria",
  "acceptance_criteria",
  "requires",
  "produces",
  "depends",
  "intent",
  "layer",
  "stage",
  "search-hint",
  "search_hint",
  "aliases",
  "deprecated",
  "tool_routing",
];

/** `inputsSchema`, `Output-Contract` … read as the known key they spell. */
function squash(key: string): string {
  return key.toLowerCase().replace(/[-_\s]/g, "");
}

export function entryKeyRule(recipe: YamlRecipe): RuleHit[] {
  const hits: RuleHit[] = [];
  for (const key of Object.keys(recipe.entry)) {
    if (KNOWN_ENTRY_KEYS.includes(key) || KNOWN_EXTENSION_KEYS.includes(key) || key.startsWith("x-")) continue;
    const sameSpelling = KNOWN_ENTRY_KEYS.find((k) => squash(k) === squash(key));
    // Short keys drift into each other easily (`dc`, `id`); allow one edit there, two otherwise.
    const near = sameSpelling !== undefined ? { match: sameSpelling } : nearest(key, KNOWN_ENTRY_KEYS, key.length <= 4 ? 1 : 2);
    if (near === undefined) continue;
    hits.push({
      code: "entry_key_typo",
      message: `recipe "${recipe.name}": unknown key "${key}" looks like "${near.match}"; as written it is ignored`,
      fix: `rename "${key}" to "${near.match}"`,
      at: [key],
      atKey: true,
    });
  }
  return hits;
}
