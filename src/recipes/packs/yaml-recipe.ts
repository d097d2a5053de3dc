/**
 * YAML pack entries as Recipe objects. Each recipe holds its pack's summary
 * data directly and reads the entry itself (steps, schemas, extra keys) from
 * its own encoded part of the pack on first use; what was read is kept
 * through a WeakRef, so the recipes in use stay live and idle ones are text.
 */
import { compileSchema } from "../../jsonschema/index.js";
import type { CompileResult, SchemaError, Validator } from "../../jsonschema/types.js";
import { diagnostic, type Diagnostic } from "../../util/diagnostics.js";
import type { SkillInfo } from "../../skills/types.js";
import { deepFreeze, sortKeys } from "../../util/stable-json.js";
import { INDEX_TEXTS, inputsSchemaOf, readIndexTexts, readPackPart, type EntrySummary, type PackRecord } from "./parsed-pack.js";
import type { YamlIndexText, YamlRecipe } from "../types.js";

/**
 * What a recipe carries of its skill for search beyond tags and hint: the
 * `layer` (a filter and a tie-break) and the skill's search aliases and
 * example prompts (indexed near the name's weight). The arrays are the
 * skill's own, shared by all its recipes, and keys are absent when unset,
 * as `searchHint` is. Markdown recipes (loader.ts) carry the same.
 */
export type SkillSearchFields = Pick<SkillInfo, "layer" | "searchAliases" | "examplePrompts">;

export function skillSearchFields(skill: SkillInfo): SkillSearchFields {
  const out: { -readonly [K in keyof SkillSearchFields]: SkillSearchFields[K] } = {};
  if (skill.layer !== undefined) out.layer = skill.layer;
  if (skill.searchAliases !== undefined && skill.searchAliases.length > 0) out.searchAliases = skill.searchAliases;
  if (skill.examplePrompts !== undefined && skill.examplePrompts.length > 0) out.examplePrompts = skill.examplePrompts;
  return out;
}

const NO_STEPS: readonly unknown[] = Object.freeze([]);

/** A value deserialised (and frozen) when read, dropped when nothing holds it. */
class Lazy<T extends object> {
  private held: WeakRef<T> | null = null;

  constructor(private readonly read: () => T) {}

  get(): T {
    const live = this.held?.deref();
    if (live !== undefined) return live;
    const value = deepFreeze(this.read());
    this.held = new WeakRef(value);
    return value;
  }
}

/** The pieces of one pack its recipes read on demand. */
interface PackParts {
  readonly record: PackRecord;
  readonly pack: Lazy<Readonly<Record<string, unknown>>>;
  readonly texts: Lazy<readonly string[]>;
}

/** The recipe's own data properties (the rest are getters over the pack). */
type OwnFields = Exclude<keyof YamlRecipe, "format" | "entry" | "sortedEntry" | "inputsSchema" | "steps" | "outputContract" | "pack" | "indexText">;

// The own fields come from YamlRecipe (declaration merging) rather than being listed again.
interface LazyYamlRecipe extends Pick<YamlRecipe, OwnFields> {}

/**
 * One entry of a pack. Summary fields are own data properties, created in
 * one order by one Object.assign; the entry's parts are prototype getters
 * over the pack body, so 20,000 recipes share one hidden class (own
 * accessors made each object a ~2 KB dictionary).
 */
class LazyYamlRecipe implements YamlRecipe {
  readonly format = "yaml" as const;
  readonly #pack: PackParts;
  readonly #index: number;
  // Private fields are not properties: freezing the recipe leaves this cache writable.
  #entry: WeakRef<Readonly<Record<string, unknown>>> | null = null;
  #sortedEntry: WeakRef<Readonly<Record<string, unknown>>> | null = null;

  constructor(skill: SkillInfo, file: string, summary: EntrySummary, pack: PackParts, index: number, diagnostics: Diagnostic[]) {
    const name = summary.name;
    const at = { skill: skill.name, file, line: summary.line };
    this.#pack = pack;
    this.#index = index;
    Object.assign(this, {
      recipeId: `${skill.name}/${name}`,
      skill: skill.name,
      name,
      dcc: summary.dcc ?? skill.dcc,
      description: summary.description,
      tags: skill.tags,
      file,
      line: summary.line,
      visibility: "public",
      toolsetProfiles: deepFreeze(summary.toolsetProfiles),
      inputValidator: checked(() => this.inputsSchema, summary.verdicts.input, `recipe "${name}" inputs_schema`, at, diagnostics),
      outputValidator: summary.hasOutputSchema
        ? checked(() => this.outputContract, summary.verdicts.output, `recipe "${name}" output_contract`, at, diagnostics)
        : null,
    });
    // A recipe of a skill without a hint has no such key (as plain recipes).
    if (skill.searchHint !== undefined) Object.assign(this, { searchHint: skill.searchHint });
    Object.assign(this, skillSearchFields(skill));
    Object.freeze(this);
  }

  get entry(): Readonly<Record<string, unknown>> {
    const live = this.#entry?.deref();
    if (live !== undefined) return live;
    const entry = deepFreeze(readPackPart(this.#pack.record, this.#index + 1));
    this.#entry = new WeakRef(entry);
    return entry;
  }

  /** The entry in sorted key order, for JSON answers: made once while the recipe is in use, then only serialized. */
  get sortedEntry(): Readonly<Record<string, unknown>> {
    const live = this.#sortedEntry?.deref();
    if (live !== undefined) return live;
    const sorted = deepFreeze(sortKeys(this.entry) as Record<string, unknown>);
    this.#sortedEntry = new WeakRef(sorted);
    return sorted;
  }

  get inputsSchema(): unknown {
    return inputsSchemaOf(this.entry);
  }

  get steps(): readonly unknown[] {
    const steps = this.entry["steps"];
    return Array.isArray(steps) ? (steps as readonly unknown[]) : NO_STEPS;
  }

  get outputContract(): unknown {
    return this.entry["output_contract"];
  }

  get pack(): Readonly<Record<string, unknown>> {
    return this.#pack.pack.get();
  }

  get indexText(): YamlIndexText {
    const texts = this.#pack.texts.get();
    const at = INDEX_TEXTS * this.#index;
    return { steps: texts[at]!, body: texts[at + 1]!, aliases: texts[at + 2]! };
  }

  /** JSON sees the whole recipe, as it would a plain object (reload compares recipes through it). */
  toJSON(): Record<string, unknown> {
    const own: Record<string, unknown> = Object.fromEntries(Object.entries(this));
    return { ...own, entry: this.entry, inputsSchema: this.inputsSchema, steps: this.steps, outputContract: this.outputContract, pack: this.pack };
  }
}

export function yamlRecipes(skill: SkillInfo, file: string, record: PackRecord): { recipes: YamlRecipe[]; diagnostics: Diagnostic[] } {
  const withSkill = (d: Diagnostic): Diagnostic => diagnostic(d.severity, d.code, d.message, { ...d, skill: skill.name });
  const diagnostics = record.diagnostics.map(withSkill);
  if (!record.ok) return { recipes: [], diagnostics };
    // Pack-level keys are read as data and sent as JSON: stored in sorted order, so answers carry them without a copy.
  const pack: PackParts = { record, pack: new Lazy(() => sortKeys(readPackPart(record, 0)) as Record<string, unknown>), texts: new Lazy(() => readIndexTexts(record.text)) };
  const recipes = record.entries.map((summary, i): YamlRecipe => {
    const recipe = new LazyYamlRecipe(skill, file, summary, pack, i, diagnostics);
    if (summary.stepsNotList) {
      const at = { skill: skill.name, file, line: summary.line };
      diagnostics.push(diagnostic("warning", "recipe_invalid_entry", `recipe "${summary.name}" steps must be a list; treated as empty`, at));
    }
    return recipe;
  });
  return { recipes, diagnostics };
}

/**
 * The schema was compiled once when its pack was parsed (a failure is a
 * diagnostic at once); only the verdict is kept: a compiled validator weighs
 * ~11 KB, and 20,000 recipes' worth (≈ 440 MB) is most of the daemon's
 * memory at that scale. The validator is rebuilt on first use (≈ 35 µs) and
 * held through a WeakRef, so recipes in use stay compiled and idle ones cost
 * nothing.
 */
function checked(
  schema: () => unknown,
  fault: SchemaError | null,
  label: string,
  at: { skill: string; file: string; line: number },
  diagnostics: Diagnostic[],
): CompileResult {
  if (fault !== null) {
    const loc = fault.schemaPath ? ` at ${fault.schemaPath}` : "";
    diagnostics.push(diagnostic("error", "schema_fails_closed", `${label} fails closed (${fault.code}${loc}): ${fault.message}`, at));
    return { ok: false, error: fault };
  }
  return lazyValidator(schema);
}

/** Validates against a recipe's schema, compiled on first use and then held only weakly. */
class LazyValidator implements Validator {
  #held: WeakRef<Validator> | null = null;
  readonly #schema: () => unknown;

  constructor(schema: () => unknown) {
    this.#schema = schema;
  }

  validate(instance: unknown): ReturnType<Validator["validate"]> {
    let validator = this.#held?.deref();
    if (validator === undefined) {
      const again = compileSchema(this.#schema());
      // The schema compiled when its pack was parsed and is frozen since: a refusal now is a bug.
      if (!again.ok) throw new Error(`schema compiled at load but not on reuse: ${again.error.message}`);
      validator = again.validator;
      this.#held = new WeakRef(validator);
    }
    return validator.validate(instance);
  }
}

function lazyValidator(schema: () => unknown): CompileResult {
  return Object.freeze({ ok: true as const, validator: new LazyValidator(schema) });
}
