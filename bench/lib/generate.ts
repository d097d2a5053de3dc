/** Generates a large, realistic skill tree for benches (SKILL.md + one YAML pack per skill). */
import fs from "node:fs/promises";
import path from "node:path";

const VERBS = ["bevel", "extrude", "bake", "retopo", "cache", "export", "light", "shade", "rig", "skin", "simulate", "render", "cleanup", "mirror", "unwrap"];
const NOUNS = ["mesh", "normals", "uvs", "smoke", "cloth", "hair", "camera", "lights", "textures", "joints", "curves", "volumes", "particles", "scene", "assets"];

export interface GeneratedTree {
  readonly root: string;
  readonly skills: number;
  readonly recipes: number;
  readonly bytes: number;
}

export function recipeName(skill: number, index: number): string {
  return `${VERBS[(skill + index) % VERBS.length]!}_${NOUNS[(skill * 7 + index) % NOUNS.length]!}_${index}`;
}

export function recipeYaml(skill: number, index: number, revision = 0): string {
  const verb = VERBS[(skill + index) % VERBS.length]!;
  const noun = NOUNS[(skill * 7 + index) % NOUNS.length]!;
  const name = recipeName(skill, index);
  return `  - name: ${name}
    dcc: maya
    description: ${verb} the ${noun} of a shot asset, variant ${index} of skill ${skill}, revision ${revision}.
    toolset_profiles: [modeling]
    inputs_schema:
      type: object
      required: [target]
      properties:
        target: { type: string, minLength: 1, description: "Scene object to ${verb}" }
        amount: { type: number, minimum: 0, maximum: 10, default: 1 }
        mode: { enum: [fast, balanced, quality], default: balanced }
        tags: { type: array, items: { type: string }, maxItems: 8 }
      additionalProperties: false
    steps:
      - tool: maya_${verb}__run
        arguments: { target: "\${target}", amount: "\${amount}", mode: "\${mode}" }
      - tool: maya_scene__verify
        arguments: { target: "\${target}" }
    output_contract:
      type: object
      required: [changed, count]
      properties:
        changed: { const: true }
        count: { type: integer, minimum: 1 }
`;
}

export function packYaml(skill: number, recipesPerSkill: number): string {
  let out = "pack:\n  name: bench\nrecipes:\n";
  for (let i = 0; i < recipesPerSkill; i += 1) out += recipeYaml(skill, i);
  return out;
}

export function skillMarkdown(skill: number): string {
  return `---
name: bench-skill-${skill}
description: Generated bench skill ${skill} for ${VERBS[skill % VERBS.length]} work.
metadata:
  dcc-mcp:
    dcc: maya
    version: "1.0.${skill}"
    tags: [bench, ${NOUNS[skill % NOUNS.length]}]
    search-hint: ${VERBS[skill % VERBS.length]} ${NOUNS[skill % NOUNS.length]} generated
    recipes: RECIPES.yaml
---
# Bench skill ${skill}
`;
}

export async function generateTree(root: string, skills: number, recipesPerSkill: number): Promise<GeneratedTree> {
  await fs.mkdir(root, { recursive: true });
  let bytes = 0;
  const batch = 50;
  for (let start = 0; start < skills; start += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, skills - start) }, async (_, offset) => {
        const skill = start + offset;
        const dir = path.join(root, `bench-skill-${skill}`);
        await fs.mkdir(dir, { recursive: true });
        const md = skillMarkdown(skill);
        const pack = packYaml(skill, recipesPerSkill);
        bytes += md.length + pack.length;
        await fs.writeFile(path.join(dir, "SKILL.md"), md);
        await fs.writeFile(path.join(dir, "RECIPES.yaml"), pack);
      }),
    );
  }
  return { root, skills, recipes: skills * recipesPerSkill, bytes };
}

/**
 * `count` distinct search queries over the generated tree's vocabulary: a
 * verb and a noun, then 0–3 words of the descriptions' prose, and in one
 * query of five a dropped letter (the typo path). Deterministic.
 */
export function benchQueries(count: number): string[] {
  let state = 5;
  const next = (): number => ((state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const prose = ["shot", "asset", "variant", "target", "amount", "quality", "verify", "scene", "object", "generated", "modeling", "balanced", "fast"];
  const pick = (words: readonly string[]): string => words[Math.floor(next() * words.length)]!;
  const seen = new Set<string>();
  while (seen.size < count) {
    const words = [pick(VERBS), pick(NOUNS), ...Array.from({ length: Math.floor(next() * 4) }, () => pick(prose))];
    if (next() < 0.2) {
      const i = words.findIndex((w) => w.length >= 5);
      if (i >= 0) words[i] = words[i]!.slice(0, 2) + words[i]!.slice(3);
    }
    seen.add(words.join(" "));
  }
  return [...seen];
}

/**
 * The shape studios' catalogs have: per skill a SKILL.md, one YAML pack of
 * `recipesPerSkill` recipes (each with inputs_schema and output_contract,
 * a longer description and notes) and one Markdown file of as many anchors.
 * At 1,000 skills × 10: 3,000 files, about 19 MB, 20,000 recipes.
 */
export async function generateStudioTree(root: string, skills: number, recipesPerSkill: number): Promise<GeneratedTree> {
  await fs.mkdir(root, { recursive: true });
  let bytes = 0;
  const batch = 50;
  for (let start = 0; start < skills; start += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, skills - start) }, async (_, offset) => {
        const skill = start + offset;
        const dir = path.join(root, `bench-skill-${skill}`);
        await fs.mkdir(dir, { recursive: true });
        const md = skillMarkdown(skill).replace("    recipes: RECIPES.yaml\n", "    recipes: [RECIPES.yaml, ANCHORS.md]\n") + studioSkillBody(skill);
        let pack = "pack:\n  name: bench\ntool_routing:\n  maya: direct\nrecipes:\n";
        for (let i = 0; i < recipesPerSkill; i += 1) pack += studioRecipeYaml(skill, i);
        let anchors = `# Anchors of bench skill ${skill}\n\n`;
        for (let i = 0; i < recipesPerSkill; i += 1) anchors += studioAnchor(skill, i);
        bytes += md.length + pack.length + anchors.length;
        await fs.writeFile(path.join(dir, "SKILL.md"), md);
        await fs.writeFile(path.join(dir, "RECIPES.yaml"), pack);
        await fs.writeFile(path.join(dir, "ANCHORS.md"), anchors);
      }),
    );
  }
  return { root, skills, recipes: skills * recipesPerSkill * 2, bytes };
}

function studioSkillBody(skill: number): string {
  const verb = VERBS[skill % VERBS.length]!;
  const noun = NOUNS[skill % NOUNS.length]!;
  return `
Studio playbooks to ${verb} ${noun} in production shots. Each recipe in RECIPES.yaml is
structured (inputs checked against its schema, output against its contract); the
sections of ANCHORS.md are prose recipes with snippets. Read one with recipes__get,
check inputs with recipes__validate, then run the steps through the DCC's tools.
`;
}

function studioRecipeYaml(skill: number, index: number): string {
  const verb = VERBS[(skill + index) % VERBS.length]!;
  const noun = NOUNS[(skill * 7 + index) % NOUNS.length]!;
  return `${recipeYaml(skill, index)}    notes: >-
      Use when an artist asks to ${verb} the ${noun} of a shot asset before hand-off. The recipe
      runs inside one undo chunk, checks the target exists first, and reports the number of
      changed nodes for the agent to verify; variant ${index}, skill ${skill}.
    recovery:
      - tool: maya_scene__undo
        arguments: { steps: 1 }
`;
}

function studioAnchor(skill: number, index: number): string {
  const verb = VERBS[(skill + index + 3) % VERBS.length]!;
  const noun = NOUNS[(skill * 5 + index) % NOUNS.length]!;
  return `## ${verb} ${noun} by hand ${index}

Prose recipe ${index} of skill ${skill}: ${verb} the ${noun} of a selected asset when the
structured recipes do not fit. Check the selection first, work inside one undo chunk,
and print what changed so the agent can report it back to the artist.

\`\`\`python
import maya.cmds as cmds

target = "asset_GEO"
cmds.undoInfo(openChunk=True, chunkName="${verb}_${noun}_${index}")
try:
    nodes = cmds.ls(target, long=True) or []
    if not nodes:
        raise RuntimeError("nothing selected to ${verb}")
    for node in nodes:
        print("${verb}", node)
finally:
    cmds.undoInfo(closeChunk=True)
\`\`\`

`;
}
