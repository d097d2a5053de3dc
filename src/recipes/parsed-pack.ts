/**
 * Everything expensive about a YAML pack, as plain data: the parsed pack and
 * each entry's schema verdicts. It depends on the file's text and name only,
 * so it can be cached across restarts (parse-cache.ts) and turned into
 * Recipe objects cheaply (loader.ts).
 */
import { compileSchema } from "../jsonschema/index.js";
import type { SchemaError } from "../jsonschema/types.js";
import { parseRecipePack, type ParsePackResult } from "./yaml-pack.js";

/** Why a recipe's schema fails closed; null when it compiles (or, for an output contract, when there is none). */
export interface SchemaVerdicts {
  readonly input: SchemaError | null;
  readonly output: SchemaError | null;
}

export interface ParsedPack {
  readonly result: ParsePackResult;
  /** One per `result.entries` item, in order; empty when the pack failed. */
  readonly verdicts: readonly SchemaVerdicts[];
}

/** What a recipe's inputs_schema is when the entry has none: any object. */
export function inputsSchemaOf(entry: Record<string, unknown>): unknown {
  return entry["inputs_schema"] === undefined ? {} : entry["inputs_schema"];
}

/** Absent, null or a prose string: a contract nothing is validated against. */
export function hasOutputSchema(contract: unknown): boolean {
  return contract !== undefined && contract !== null && typeof contract !== "string";
}

function verdict(schema: unknown): SchemaError | null {
  const compiled = compileSchema(schema);
  return compiled.ok ? null : compiled.error;
}

export function parsePack(text: string, file: string): ParsedPack {
  const result = parseRecipePack(text, file);
  if (!result.ok) return { result, verdicts: [] };
  const verdicts = result.entries.map(({ entry }) => ({
    input: verdict(inputsSchemaOf(entry)),
    output: hasOutputSchema(entry["output_contract"]) ? verdict(entry["output_contract"]) : null,
  }));
  return { result, verdicts };
}
