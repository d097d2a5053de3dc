/**
 * A real recipe library on temp dirs (one skill with a Markdown and a YAML
 * recipe, an empty private dir) behind a registry holding only the `recipe` tool.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { RecipeLibrary } from "../../../src/recipes/catalog/library.js";
import { createSearchEngine } from "../../../src/recipes/search/engine.js";
import type { RecipeToolContext } from "../../../src/server/tools/context.js";
import { createRecipeTool } from "../../../src/server/tools/recipe.js";
import { createToolRegistry, type ToolCallResult, type ToolRegistry } from "../../../src/server/tools/registry.js";

export const SKILL_MD = `---
name: modeling
description: Modeling helpers for tests
metadata:
  dcc-mcp:
    dcc: maya
    tags: [modeling, mesh]
    search-hint: hard surface cleanup, chamfer, rounded corners
    recipes: [RECIPES.md, pack.yaml]
---
# modeling
`;

export const RECIPES_MD = `# Modeling recipes

## Bevel edges

Select the hard edges and run polyBevel3 with two segments.

## Freeze transforms ##

Freeze, then delete history before export.
`;

export const PACK_YAML = `pack: modeling-pack
tool_routing:
  mesh__bevel: maya_mesh__bevel
recipes:
  - name: build_pbr_material
    dcc: maya
    description: Build a PBR material network.
    inputs_schema:
      type: object
      required: [material_name]
      properties:
        material_name:
          type: string
    steps:
      - tool: maya_materials__create
        arguments:
          name: \${material_name}
    output_contract:
      type: object
      required: [changed]
      properties:
        changed: {const: true}
    undo: delete the material
`;

export interface Fixture {
  readonly tmp: string;
  readonly privateDir: string;
  readonly stateDir: string;
  readonly library: RecipeLibrary;
  readonly registry: ToolRegistry<RecipeToolContext>;
  readonly context: RecipeToolContext;
  call(args: Record<string, unknown>): Promise<Answer>;
  close(): Promise<void>;
}

export interface Answer {
  readonly success: boolean;
  readonly message: string;
  readonly error?: string;
  // Tests read deep, loosely-typed payloads.
  readonly context?: any;
  readonly revision?: number;
  readonly result: ToolCallResult;
}

export async function makeFixture(options: { load?: boolean; skills?: boolean; storeUrl?: string; allowPromote?: boolean } = {}): Promise<Fixture> {
  const tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "recipe-tool-")));
  const skills = path.join(tmp, "skills");
  const privateDir = path.join(tmp, "private");
  const stateDir = path.join(tmp, "state");
  await fs.mkdir(path.join(skills, "modeling"), { recursive: true });
  if (options.skills !== false) {
    await fs.writeFile(path.join(skills, "modeling", "SKILL.md"), SKILL_MD);
    await fs.writeFile(path.join(skills, "modeling", "RECIPES.md"), RECIPES_MD);
    await fs.writeFile(path.join(skills, "modeling", "pack.yaml"), PACK_YAML);
  }
  const logger = pino({ level: "silent" });
  const search = createSearchEngine({ provider: null });
  const library = new RecipeLibrary({
    settings: { dcc: "maya", skillRoots: [skills], privateDir, stateDir, storeUrl: options.storeUrl ?? null },
    search,
    logger,
  });
  if (options.load !== false) await library.load();
  const registry = createToolRegistry<RecipeToolContext>([createRecipeTool({ allowPromote: options.allowPromote === true })], (_tool, error) => {
    throw error;
  });
  const context: RecipeToolContext = { library, logger };
  return {
    tmp,
    privateDir,
    stateDir,
    library,
    registry,
    context,
    async call(args) {
      const outcome = await registry.call("recipe", args, context);
      if (outcome.kind !== "result") throw new Error("recipe tool not registered");
      const parsed = JSON.parse(outcome.result.content[0]!.text) as Omit<Answer, "result">;
      return { ...parsed, result: outcome.result };
    },
    async close() {
      await library.close();
      await search.close();
      await fs.rm(tmp, { recursive: true, force: true });
    },
  };
}

/** A valid create call; `overrides` replace fields (undefined removes one). */
export function createArgs(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const base: Record<string, unknown> = {
    action: "create",
    title: "Retopologize a scanned head",
    summary: "Turn a dense photogrammetry head scan into an animation-ready quad mesh.",
    whenToUse: "When a scan or sculpt must be rigged and deformed.",
    steps: [
      { title: "Decimate", detail: "Reduce the scan to about 200k triangles." },
      { title: "Quad draw", detail: "Trace edge loops around the eyes and mouth." },
    ],
    acceptanceCriteria: ["All faces are quads", "Edge loops follow the orbicularis"],
    tags: ["modeling", "retopology"],
    document: "# Retopology\n\nFull notes.\n",
  };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete base[key];
    else base[key] = value;
  }
  return base;
}
