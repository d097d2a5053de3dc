/**
 * Recipes as prompts and the Skills extension on a session's (or stateless
 * request's) 1.32.2 `Server`, from providers made once per endpoint (they
 * keep per-snapshot indexes). `notifications/prompts/list_changed` goes out
 * with `resources/list_changed` on a visible reload (the HTTP app's
 * announce), which reaches these servers because they declare prompts.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CatalogSource } from "../catalog-resources.js";
import { attachSkillsLegacy } from "../skills-extension/legacy.js";
import type { SkillsProvider } from "../skills-extension/provider.js";
import { attachPromptsLegacy } from "./legacy.js";
import type { PromptsProvider } from "./provider.js";

export interface LegacySurfaces {
  readonly prompts: PromptsProvider;
  readonly skills: SkillsProvider;
  /** The recipe resources that resources/list and resources/read serve beside the skill files. */
  readonly catalog: CatalogSource;
}

/** Call before connect, after attachCatalogResources (its resource handlers are replaced by routing ones). */
export function attachPromptsAndSkills(server: Server, surfaces: LegacySurfaces): Server {
  attachPromptsLegacy(server, surfaces.prompts);
  return attachSkillsLegacy(server, surfaces.skills, surfaces.catalog);
}
