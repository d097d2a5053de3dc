/**
 * The public surface of the `recipe-server` package. Everything exported here
 * follows semver; every other module is internal. test/api-surface.test.ts
 * fails when this list changes by accident.
 */

// Recipes API (seed 001: dcc_mcp_core.recipes)
export type { RecipeDefinition, RecipeEntry } from "./recipes/api/recipes-api.js";
export {
  getRecipesPath,
  getRecipesPaths,
  loadRecipePack,
  listRecipeEntries,
  findRecipeEntry,
} from "./recipes/api/recipes-api.js";
export { parseRecipeAnchors, getRecipeContent } from "./recipes/packs/markdown.js";
export { validateRecipeInputs } from "./jsonschema/index.js";
export { materializeSteps } from "./recipes/api/materialize.js";

// Discovery (scan_and_load) and tool registration (register_recipes_tools)
export { scanSkills } from "./recipes/api/scan-skills.js";
export type { ScanSkillsOptions, ScanSkillsResult } from "./recipes/api/scan-skills.js";
export { registerRecipesTools } from "./compose/register.js";
export type { RegisterRecipesToolsOptions, RecipesToolsHandle } from "./compose/register.js";

// The whole daemon, embeddable in another Node process
export { createRecipeServer } from "./compose/app.js";
export type { RecipeServer, RecipeServerOptions } from "./compose/app.js";
export { openCatalogs } from "./compose/catalogs.js";
export type { OpenCatalogsOptions, RecipeCatalogs } from "./compose/catalogs.js";
export { resolveConfig } from "./config/resolve.js";
export type { Config, ConfigResult, DccConfig } from "./config/resolve.js";

// Data types
export type { SkillInfo } from "./skills/types.js";
export type { Diagnostic, DiagnosticCode, Severity } from "./util/diagnostics.js";
export type {
  Recipe,
  MarkdownRecipe,
  YamlRecipe,
  PrivateRecipe,
  Playbook,
  PlaybookStep,
  RecipeFormat,
  Visibility,
} from "./recipes/types.js";
