import type { MarkdownRecipe, PrivateRecipe, YamlRecipe } from "../../../src/recipes/types.js";

const acceptAll = { ok: true as const, validator: { validate: () => ({ valid: true, errors: [] }) } };

export function md(skill: string, name: string, content: string, extra: Partial<MarkdownRecipe> = {}): MarkdownRecipe {
  return {
    recipeId: `${skill}/${name}`,
    skill,
    name,
    dcc: "maya",
    description: "",
    tags: [],
    file: "RECIPES.md",
    visibility: "public",
    format: "markdown",
    content: `## ${name}\n\n${content}`,
    ...extra,
  };
}

export function yaml(skill: string, name: string, description: string, steps: unknown[], extra: Partial<YamlRecipe> = {}): YamlRecipe {
  const entry = { name, description, steps };
  return {
    recipeId: `${skill}/${name}`,
    skill,
    name,
    dcc: "any",
    description,
    tags: [],
    file: "RECIPES.yaml",
    visibility: "public",
    format: "yaml",
    entry,
    inputsSchema: {},
    steps,
    outputContract: undefined,
    toolsetProfiles: [],
    pack: {},
    inputValidator: acceptAll,
    outputValidator: null,
    ...extra,
  };
}

export function priv(slug: string, title: string, summary: string, extra: Partial<PrivateRecipe> = {}): PrivateRecipe {
  return {
    recipeId: `private/${slug}`,
    skill: "private",
    name: slug,
    dcc: "maya",
    description: summary,
    tags: [],
    file: `${slug}.json`,
    visibility: "private",
    format: "private",
    playbook: {
      slug,
      title,
      summary,
      whenToUse: "",
      steps: [],
      acceptanceCriteria: [],
      tags: [],
      document: "",
      createdAt: "2026-01-01T00:00:00Z",
      updatedAt: "2026-01-01T00:00:00Z",
      revision: 1,
    },
    ...extra,
  };
}
