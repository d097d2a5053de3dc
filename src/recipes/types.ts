import type { CompileResult } from "../jsonschema/types.js";
import type { SkillInfo } from "../skills/types.js";

export type RecipeFormat = "markdown" | "yaml" | "private";
export type Visibility = "public" | "private";

/** The skill's search hint, `layer`, aliases and example prompts (see skillSearchFields, yaml-recipe.ts), keys absent when unset. */
interface RecipeBase extends Pick<SkillInfo, "searchHint" | "layer" | "searchAliases" | "examplePrompts"> {
  /** `<skill>/<name>` for public recipes, `private/<slug>` for playbooks. */
  readonly recipeId: string;
  readonly skill: string;
  /** YAML `name`, Markdown anchor text, or private slug. */
  readonly name: string;
  readonly dcc: string;
  readonly description: string;
  /** Tags of the skill (public) or the playbook (private). */
  readonly tags: readonly string[];
  /** Skill-relative file the recipe came from. */
  readonly file: string;
  /** 1-based line of the heading / YAML entry, when known. */
  readonly line?: number;
  readonly visibility: Visibility;
}

export interface MarkdownRecipe extends RecipeBase {
  readonly format: "markdown";
  /** From the heading line to the next level-1/2 heading, right-trimmed. */
  readonly content: string;
}

/** What search indexes of a YAML entry beyond its name and description. */
export interface YamlIndexText {
  readonly steps: string;
  readonly body: string;
  /** The entry's own search aliases and example prompts. */
  readonly aliases: string;
}

export interface YamlRecipe extends RecipeBase {
  readonly format: "yaml";
  /** The entry exactly as written (every key, `undo`, `recovery` …). */
  readonly entry: Readonly<Record<string, unknown>>;
  /** The same entry with keys in sorted order at every depth (frozen): what JSON answers carry without a copy. */
  readonly sortedEntry?: Readonly<Record<string, unknown>>;
  /** `inputs_schema`, `{}` when absent. */
  readonly inputsSchema: unknown;
  readonly steps: readonly unknown[];
  /** A schema, a legacy string label, or undefined. */
  readonly outputContract: unknown;
  readonly toolsetProfiles: readonly string[];
  /** Pack-level keys other than `recipes` (`pack`, `tool_routing` …). */
  readonly pack: Readonly<Record<string, unknown>>;
  /** Compiled once at load. */
  readonly inputValidator: CompileResult;
  /** null when the contract is absent or a legacy string label. */
  readonly outputValidator: CompileResult | null;
  /** Precomputed by the loader; absent, search derives it from `entry`. */
  readonly indexText?: YamlIndexText;
}

export interface PlaybookStep {
  readonly title: string;
  readonly detail: string;
}

/** A private playbook as stored in the private dir (docs/tools.md). */
export interface Playbook {
  readonly slug: string;
  readonly title: string;
  readonly summary: string;
  readonly whenToUse: string;
  readonly steps: readonly PlaybookStep[];
  readonly acceptanceCriteria: readonly string[];
  readonly tags: readonly string[];
  readonly document: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly revision: number;
}

export interface PrivateRecipe extends RecipeBase {
  readonly format: "private";
  readonly playbook: Playbook;
}

export type Recipe = MarkdownRecipe | YamlRecipe | PrivateRecipe;
