/**
 * API report: every name the package root exports, with its kind (value or
 * type), read by the TypeScript compiler from src/index.ts. A change here is
 * a semver decision: update the list on purpose, never by accident.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as api from "../src/index.js";
import * as jsonschema from "../src/jsonschema/index.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Names exported by src/index.ts's `export { … }` / `export type { … }`
 * statements: "type" for type-only exports, else the runtime typeof. Syntax
 * only — a full type-check of the import graph would cost seconds here.
 */
function exportedKinds(entry: string): Record<string, string> {
  const source = ts.createSourceFile(entry, readFileSync(entry, "utf8"), ts.ScriptTarget.ES2022, true);
  const out: Record<string, string> = {};
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement) || statement.exportClause === undefined) continue;
    if (!ts.isNamedExports(statement.exportClause)) continue;
    for (const element of statement.exportClause.elements) {
      const name = element.name.text;
      out[name] = statement.isTypeOnly || element.isTypeOnly ? "type" : typeof (api as Record<string, unknown>)[name];
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

describe("public API surface", () => {
  it("src/index.ts exports exactly these names and kinds", () => {
    expect(exportedKinds(path.join(ROOT, "src/index.ts"))).toEqual({
      Config: "type",
      ConfigResult: "type",
      DccConfig: "type",
      Diagnostic: "type",
      DiagnosticCode: "type",
      MarkdownRecipe: "type",
      OpenCatalogsOptions: "type",
      Playbook: "type",
      PlaybookStep: "type",
      PrivateRecipe: "type",
      Recipe: "type",
      RecipeCatalogs: "type",
      RecipeDefinition: "type",
      RecipeEntry: "type",
      RecipeFormat: "type",
      RecipeServer: "type",
      RecipeServerOptions: "type",
      RecipesToolsHandle: "type",
      RegisterRecipesToolsOptions: "type",
      ScanSkillsOptions: "type",
      ScanSkillsResult: "type",
      Severity: "type",
      SkillInfo: "type",
      Visibility: "type",
      YamlRecipe: "type",
      createRecipeServer: "function",
      findRecipeEntry: "function",
      getRecipeContent: "function",
      getRecipesPath: "function",
      getRecipesPaths: "function",
      listRecipeEntries: "function",
      loadRecipePack: "function",
      materializeSteps: "function",
      openCatalogs: "function",
      parseRecipeAnchors: "function",
      registerRecipesTools: "function",
      resolveConfig: "function",
      scanSkills: "function",
      validateRecipeInputs: "function",
    });
  });

  it("runtime exports match the type-level report", () => {
    const values = Object.keys(api).sort();
    expect(values).toEqual(
      ["createRecipeServer", "findRecipeEntry", "getRecipeContent", "getRecipesPath", "getRecipesPaths", "listRecipeEntries", "loadRecipePack", "materializeSteps", "openCatalogs", "parseRecipeAnchors", "registerRecipesTools", "resolveConfig", "scanSkills", "validateRecipeInputs"],
    );
  });

  it("./jsonschema exports the validator entry points", () => {
    for (const name of ["compileSchema", "validateRecipeInputs", "renderErrors"]) {
      expect(typeof (jsonschema as Record<string, unknown>)[name]).toBe("function");
    }
  });
});
