/** Recipes for the run tests: core's real mesh-ops pack (read in place) and small packs written to a temp dir. */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadRecipeFile } from "../../../src/recipes/packs/loader.js";
import type { YamlRecipe } from "../../../src/recipes/types.js";
import type { SkillInfo } from "../../../src/skills/types.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const MESH_OPS_DIR = path.resolve(HERE, "../../../../shared/data/real-skills/dcc-mcp-core/skills/mesh-ops");

export async function haveMeshOps(): Promise<boolean> {
  return fs.access(path.join(MESH_OPS_DIR, "RECIPES.yaml")).then(
    () => true,
    () => false,
  );
}

function skillAt(dir: string, name: string): SkillInfo {
  // Only what the pack loader reads of a skill; the rest of SkillInfo is discovery's.
  return { name, dir, root: path.dirname(dir), rootIndex: 0, description: name, dcc: "any", tags: [] } as unknown as SkillInfo;
}

export async function loadPack(dir: string, name: string): Promise<Map<string, YamlRecipe>> {
  const result = await loadRecipeFile(skillAt(dir, name), path.join(dir, "RECIPES.yaml"));
  const out = new Map<string, YamlRecipe>();
  for (const recipe of result.recipes) if (recipe.format === "yaml") out.set(recipe.name, recipe);
  if (out.size === 0) throw new Error(`no recipes loaded from ${dir}: ${JSON.stringify(result.diagnostics)}`);
  return out;
}

/** A pack written to a temp dir (a RECIPES.yaml), loaded; `cleanup` removes it. */
export async function writePack(yaml: string, name = "run-pack"): Promise<{ recipes: Map<string, YamlRecipe>; dir: string; cleanup: () => Promise<void> }> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "run-pack-"));
  const dir = path.join(root, name);
  await fs.mkdir(dir);
  await fs.writeFile(path.join(dir, "RECIPES.yaml"), yaml);
  return { recipes: await loadPack(dir, name), dir, cleanup: () => fs.rm(root, { recursive: true, force: true }) };
}

/** A pack in mesh-ops' shape: canonical verbs routed per DCC, several multi-step recipes. */
export const RUN_PACK = `
pack: {name: run-pack, dcc: any, canonical_namespace: mesh_ops}
tool_routing:
  adapters: [blender, maya]
  scripting_fallback: {blender: blender_scripting__execute_python, maya: maya_scripting__execute_python}
  tools:
    create_primitive: {blender: blender_mesh_ops__create_primitive, maya: null}
    bevel_edges: {blender: blender_mesh_ops__bevel_edges, maya: null}
    get_poly_count: {blender: blender_mesh_ops__get_poly_count, maya: maya_mesh_ops__get_poly_count}
    delete_object: {blender: blender_mesh_ops__delete_object, maya: null}
    freeze: {blender: null, maya: null}
recipes:
  - name: make_bevelled
    dcc: any
    description: Create a cube, bevel it, count it.
    undo: single-step
    undo_steps:
      - tool: mesh_ops__delete_object
        arguments: {object_name: "\${name}"}
      - "Check the outliner for a stray \${name}."
    recovery:
      - when: a step fails
        next: delete \${name} and re-run
    inputs_schema:
      type: object
      additionalProperties: false
      required: [name]
      properties:
        name: {type: string, minLength: 1}
        segments: {type: integer, minimum: 1, default: 2}
    steps:
      - tool: mesh_ops__create_primitive
        arguments: {primitive_type: cube, name: "\${name}"}
      - tool: mesh_ops__bevel_edges
        arguments: {object_name: "\${name}", edge_indices: [0, 1], width: 0.1, segments: "\${segments}"}
      - tool: mesh_ops__get_poly_count
        arguments: {object_name: "\${name}"}
    output_contract:
      type: object
      required: [object_name, face_count, changed]
      properties:
        object_name: {type: string}
        face_count: {type: integer, minimum: 7}
        changed: {const: false}
  - name: bevel_receipt
    dcc: any
    description: The bevel's receipt, not the count's.
    receipt_step: bevel
    inputs_schema: {type: object, required: [name], properties: {name: {type: string}}}
    steps:
      - tool: mesh_ops__create_primitive
        arguments: {primitive_type: cube, name: "\${name}"}
      - id: bevel
        tool: mesh_ops__bevel_edges
        arguments: {object_name: "\${name}", edge_indices: [3], width: 0.2}
      - tool: mesh_ops__get_poly_count
        arguments: {object_name: "\${name}"}
    output_contract: {type: object, required: [beveled_edges, changed], properties: {changed: {const: true}}}
  - name: frozen
    dcc: any
    description: A verb no adapter publishes, with a script for the fallback.
    inputs_schema: {type: object, properties: {name: {type: string, default: Cube}}}
    steps:
      - tool: mesh_ops__freeze
        arguments: {object_name: "\${name}"}
        fallback_arguments: {code: "import bpy; bpy.data.objects['\${name}'].select_set(True)"}
    output_contract: {type: object, required: [ran]}
  - name: frozen_no_script
    dcc: any
    description: A verb no adapter publishes, no script.
    inputs_schema: {type: object}
    steps:
      - tool: mesh_ops__freeze
        arguments: {}
  - name: destroy
    dcc: any
    description: Cannot be undone.
    undo: none
    inputs_schema: {type: object, required: [name], properties: {name: {type: string}}}
    steps:
      - tool: mesh_ops__delete_object
        arguments: {object_name: "\${name}"}
  - name: five_steps
    dcc: any
    description: Five calls, for the bench.
    inputs_schema: {type: object, required: [name], properties: {name: {type: string}}}
    steps:
      - tool: mesh_ops__create_primitive
        arguments: {primitive_type: cube, name: "\${name}"}
      - tool: mesh_ops__bevel_edges
        arguments: {object_name: "\${name}", edge_indices: [0], width: 0.1}
      - tool: mesh_ops__bevel_edges
        arguments: {object_name: "\${name}", edge_indices: [1], width: 0.1}
      - tool: mesh_ops__bevel_edges
        arguments: {object_name: "\${name}", edge_indices: [2], width: 0.1}
      - tool: mesh_ops__get_poly_count
        arguments: {object_name: "\${name}"}
    output_contract: {type: object, required: [face_count], properties: {face_count: {type: integer, minimum: 9}}}
`;
