/**
 * Recipes as MCP prompts, protocol-neutral: prompts/list and prompts/get
 * answered from the catalog snapshot current at call time (as tool handlers
 * read it), as results or JSON-RPC error data. Every public recipe the
 * endpoint serves is a prompt; names follow names.ts.
 */
import { renderErrors } from "../../../jsonschema/index.js";
import type { CatalogSnapshot } from "../../../recipes/catalog/catalog.js";
import type { MarkdownRecipe, YamlRecipe } from "../../../recipes/types.js";
import { isRecord, promptArguments, type PromptArgument } from "./arguments.js";
import { coerceArguments } from "./coerce.js";
import { markdownMessages, yamlMessages, type PromptMessage } from "./messages.js";
import { fullHashName, promptName } from "./names.js";
import {
  decodeCursor,
  encodeCursor,
  failure,
  indexAfter,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  NOT_READY_MESSAGE,
  quoted,
  success,
  type Outcome,
} from "../outcome.js";

interface CatalogReader {
  current(): CatalogSnapshot | null;
}

interface PromptsProviderOptions {
  readonly source: CatalogReader;
  /** Prompts per prompts/list page (default 100). */
  readonly pageSize?: number;
  /** A page also ends once its prompts take this many bytes of JSON (default 512 KiB; at least one prompt a page). */
  readonly pageBytes?: number;
  /** Bound on the arguments of one prompts/get, keys and values (default 1 MiB). */
  readonly maxArgumentBytes?: number;
  /** Told of a prompts/get whose recipe's inputs_schema fails closed (the load diagnostics say why). */
  readonly onInvalidSchema?: (recipeId: string) => void;
  /** The endpoint lists recipes__run: a YAML recipe's prompt says to run it there rather than apply it. */
  readonly canRun?: boolean;
}

export interface Prompt {
  readonly name: string;
  readonly title: string;
  readonly description?: string;
  readonly arguments?: readonly PromptArgument[];
}

interface ListPromptsResult {
  readonly prompts: readonly Prompt[];
  readonly nextCursor?: string;
}

interface GetPromptResult {
  readonly description?: string;
  readonly messages: readonly PromptMessage[];
}

export interface PromptsProvider {
  /** prompts/list: `params.cursor` is a `nextCursor` of an earlier page. */
  list(params?: unknown): Outcome<ListPromptsResult>;
  /** prompts/get: `params.name`, and `params.arguments` mapping names to strings. */
  get(params: unknown): Outcome<GetPromptResult>;
}

type PromptRecipe = MarkdownRecipe | YamlRecipe;

interface PromptIndex {
  /** Sorted (code-unit order). */
  readonly names: readonly string[];
  readonly recipes: ReadonlyMap<string, PromptRecipe>;
  /** Listing entries, made on first use. */
  readonly entries: Map<string, Prompt>;
}

const CURSOR_TAG = "prompt";

export function createPromptsProvider(options: PromptsProviderOptions): PromptsProvider {
  const pageSize = options.pageSize ?? 100;
  const pageBytes = options.pageBytes ?? 512 * 1024;
  const maxArgumentBytes = options.maxArgumentBytes ?? 1024 * 1024;
  // One index per snapshot, for this provider's life (snapshots are immutable).
  const indexes = new WeakMap<CatalogSnapshot, PromptIndex>();
  const indexOf = (snapshot: CatalogSnapshot): PromptIndex => {
    let index = indexes.get(snapshot);
    if (index === undefined) {
      index = buildIndex(snapshot);
      indexes.set(snapshot, index);
    }
    return index;
  };

  return {
    list(params) {
      const cursor = isRecord(params) ? params["cursor"] : undefined;
      const after = cursor === undefined ? null : decodeCursor(CURSOR_TAG, cursor);
      if (cursor !== undefined && after === null) return failure(INVALID_PARAMS, "Invalid cursor");
      const snapshot = options.source.current();
      if (snapshot === null) return success({ prompts: [] });
      const index = indexOf(snapshot);
      const start = after === null ? 0 : indexAfter(index.names, after);
      const prompts: Prompt[] = [];
      let bytes = 0;
      let at = start;
      for (; at < index.names.length && prompts.length < pageSize; at++) {
        const entry = entryOf(index, index.names[at]!);
        bytes += JSON.stringify(entry).length;
        if (prompts.length > 0 && bytes > pageBytes) break;
        prompts.push(entry);
      }
      const last = prompts.at(-1);
      return success(at < index.names.length && last !== undefined ? { prompts, nextCursor: encodeCursor(CURSOR_TAG, last.name) } : { prompts });
    },

    get(params) {
      if (!isRecord(params) || typeof params["name"] !== "string") return failure(INVALID_PARAMS, "prompts/get needs a string name");
      const name = params["name"];
      const args = params["arguments"] ?? {};
      if (!isRecord(args)) return failure(INVALID_PARAMS, "Prompt arguments must map names to strings");
      let size = 0;
      for (const [key, value] of Object.entries(args)) {
        if (typeof value !== "string") return failure(INVALID_PARAMS, `Prompt argument ${quoted(key)} must be a string`, { field: key });
        size += Buffer.byteLength(key) + Buffer.byteLength(value);
      }
      if (size > maxArgumentBytes) return failure(INVALID_PARAMS, `Prompt arguments exceed ${maxArgumentBytes} bytes`);
      const snapshot = options.source.current();
      if (snapshot === null) return failure(INTERNAL_ERROR, NOT_READY_MESSAGE);
      const recipe = indexOf(snapshot).recipes.get(name);
      if (recipe === undefined) return failure(INVALID_PARAMS, `Unknown prompt: ${quoted(name)}`);
      const description = recipe.description !== "" ? { description: recipe.description } : {};
      if (recipe.format === "markdown") return success({ ...description, messages: markdownMessages(recipe) });
      const checked = yamlPrompt(recipe, args as Record<string, string>, name, options.onInvalidSchema);
      if (!checked.ok) return checked;
      return success({ ...description, messages: yamlMessages(recipe, checked.result, options.canRun === true) });
    },
  };
}

/** Coerced inputs validated against the recipe's compiled inputs_schema. */
function yamlPrompt(
  recipe: YamlRecipe,
  args: Record<string, string>,
  name: string,
  onInvalidSchema: ((recipeId: string) => void) | undefined,
): Outcome<Record<string, unknown>> {
  const inputs = coerceArguments(recipe.inputsSchema, args);
  if (!recipe.inputValidator.ok) {
    onInvalidSchema?.(recipe.recipeId);
    return failure(INTERNAL_ERROR, `The inputs_schema of prompt ${quoted(name)} is invalid; see the catalog diagnostics`);
  }
  const result = recipe.inputValidator.validator.validate(inputs);
  if (result.valid) return success(inputs);
  // Rendered errors name fields by path and never carry instance values.
  // Bounded: an argument name is the client's and may be huge, and so may the error count.
  const errors = renderErrors(result.errors.slice(0, MAX_REPORTED_ERRORS), "argument").map((e) => clip(e, 300));
  const fields = [...new Set(result.errors.slice(0, MAX_REPORTED_ERRORS).map((e) => clip(fieldOf(e.instancePath, e.keyword, e.message), 200)))];
  return failure(INVALID_PARAMS, `Invalid arguments for prompt ${quoted(name)}: ${errors.join("; ")}`, { fields, errors });
}

const MAX_REPORTED_ERRORS = 10;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The top-level argument an error is about ("" when it is about the arguments as a whole). */
function fieldOf(instancePath: string, keyword: string, message: string): string {
  if (instancePath !== "") return instancePath.split("/")[1]!.replace(/~1/g, "/").replace(/~0/g, "~");
  const missing = /^Missing required property: (.*)$/.exec(message);
  return keyword === "required" && missing !== null ? missing[1]! : "";
}

/** How names are made (names.ts); a parameter so that tests can force the rare collision. */
interface PromptNaming {
  short(skill: string, recipe: string): string;
  full(skill: string, recipe: string): string;
}

const NAMING: PromptNaming = { short: promptName, full: fullHashName };

/** Prompt name → recipe for every public recipe of a snapshot; exported for tests. */
export function promptIndex(snapshot: Pick<CatalogSnapshot, "recipes">, naming: PromptNaming = NAMING): ReadonlyMap<string, PromptRecipe> {
  return buildIndex(snapshot, naming).recipes;
}

function buildIndex(snapshot: Pick<CatalogSnapshot, "recipes">, naming: PromptNaming = NAMING): PromptIndex {
  const recipes = new Map<string, PromptRecipe>();
  for (const recipe of snapshot.recipes.values()) {
    if (recipe.visibility !== "public" || recipe.format === "private") continue;
    const name = naming.short(recipe.skill, recipe.name);
    const holder = recipes.get(name);
    if (holder === undefined) {
      recipes.set(name, recipe);
      continue;
    }
    // A short-hash collision (names.ts): the recipe id that sorts later takes the full hash,
    // whichever was met first, so the outcome does not depend on catalog order.
    const [keeps, moves] = holder.recipeId < recipe.recipeId ? [holder, recipe] : [recipe, holder];
    recipes.set(name, keeps);
    const full = naming.full(moves.skill, moves.name);
    // A 256-bit collision is not a case to serve: that recipe is left out.
    if (!recipes.has(full)) recipes.set(full, moves);
  }
  return { names: [...recipes.keys()].sort(), recipes, entries: new Map() };
}

function entryOf(index: PromptIndex, name: string): Prompt {
  const known = index.entries.get(name);
  if (known !== undefined) return known;
  const recipe = index.recipes.get(name)!;
  const args = recipe.format === "yaml" ? promptArguments(recipe.inputsSchema) : [];
  const entry: Prompt = {
    name,
    title: `${recipe.skill}: ${recipe.name}`,
    ...(recipe.description !== "" ? { description: recipe.description } : {}),
    ...(args.length > 0 ? { arguments: args } : {}),
  };
  index.entries.set(name, entry);
  return entry;
}
