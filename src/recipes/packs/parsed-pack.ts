/**
 * A parsed YAML pack as compact data: what the catalog needs of every entry
 * up front (name, line, dcc, description, profiles, schema verdicts) and the
 * full entries, each encoded on its own, for the few requests that read
 * them (get, apply, validate): a get decodes its entry, not its whole pack.
 * 20,000 recipes held as live object graphs cost ~100 MB of heap and most of
 * a start's garbage collection; encoded, a fifth of that.
 *
 * It depends on the file's text and name only, so it is cached across
 * restarts as is (parse-cache.ts).
 */
import { deserialize, serialize } from "node:v8";
import { checkSchema, schemaWarnings } from "../../jsonschema/index.js";
import type { SchemaError } from "../../jsonschema/types.js";
import { diagnostic, type Diagnostic } from "../../util/diagnostics.js";
import { yamlEntryText } from "../search/document.js";
import { parseRecipePack } from "./yaml-pack.js";

/** Why a recipe's schema fails closed; null when it compiles (or, for an output contract, when there is none). */
export interface SchemaVerdicts {
  readonly input: SchemaError | null;
  readonly output: SchemaError | null;
}

/** What the catalog holds of an entry without reading the entry itself. */
export interface EntrySummary {
  readonly name: string;
  readonly line: number;
  /** The entry's own `dcc`, normalised; null = the skill's. */
  readonly dcc: string | null;
  readonly description: string;
  readonly toolsetProfiles: readonly string[];
  /** `steps` is present but not a list (a warning; treated as empty). */
  readonly stepsNotList: boolean;
  readonly hasOutputSchema: boolean;
  readonly verdicts: SchemaVerdicts;
}

export interface PackRecord {
  /** false: the file is not a usable pack; `diagnostics` say why, there are no entries. */
  readonly ok: boolean;
  /** Parser diagnostics, without the skill (the loader adds it). */
  readonly diagnostics: readonly Diagnostic[];
  readonly entries: readonly EntrySummary[];
  /**
   * The pack-level keys (part 0) and entry i (part i + 1), each encoded on
   * its own and laid end to end (see readPackPart): one buffer, so a record
   * read back from the parse cache is a view into the cache file, not 20
   * copied strings.
   */
  readonly body: Uint8Array;
  /** Part i is body[bodyOffsets[i], bodyOffsets[i + 1]). */
  readonly bodyOffsets: Uint32Array;
  /** v8-serialised search text of every entry (see readIndexTexts): indexing reads this, not the body. */
  readonly text: Uint8Array;
}

/**
 * A part is UTF-8 JSON when the value is plain JSON data (nearly always:
 * JSON encodes and decodes an entry several times faster than v8's
 * serializer, whose per-call setup dominates at 20,000 small entries), v8
 * bytes otherwise, so `.inf`, `.nan` and `-0` keep their values. v8's
 * format starts with its version tag, 0xFF, which UTF-8 never holds.
 */
const V8_TAG = 0xff;

function isPlainJson(value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
  if (value === null || typeof value !== "object") return true;
  if (Array.isArray(value)) return value.every(isPlainJson);
  for (const key in value) if (!isPlainJson((value as Record<string, unknown>)[key])) return false;
  return true;
}

function encodeParts(values: readonly unknown[]): { body: Uint8Array; bodyOffsets: Uint32Array } {
  const chunks = values.map((value) => (isPlainJson(value) ? Buffer.from(JSON.stringify(value)) : serialize(value)));
  const bodyOffsets = new Uint32Array(chunks.length + 1);
  chunks.forEach((chunk, i) => (bodyOffsets[i + 1] = bodyOffsets[i]! + chunk.length));
  // A buffer of its own (not a slice of Node's shared pool), so a record
  // copied to another thread or into the cache carries only its bytes.
  const body = new Uint8Array(bodyOffsets[chunks.length]!);
  chunks.forEach((chunk, i) => body.set(chunk, bodyOffsets[i]!));
  return { body, bodyOffsets };
}

const utf8 = new TextDecoder();

const EMPTY_SCHEMA: Readonly<Record<string, never>> = Object.freeze({});

/** What a recipe's inputs_schema is when the entry has none: any object. */
export function inputsSchemaOf(entry: Readonly<Record<string, unknown>>): unknown {
  return entry["inputs_schema"] === undefined ? EMPTY_SCHEMA : entry["inputs_schema"];
}

/** Absent, null or a prose string: a contract nothing is validated against. */
function hasOutputSchema(contract: unknown): boolean {
  return contract !== undefined && contract !== null && typeof contract !== "string";
}

/** compileSchema's verdict without building the validator (the recipe compiles it on first use). */
function verdict(schema: unknown): SchemaError | null {
  return checkSchema(schema);
}

/**
 * A copy of `s` that holds no reference to the text it was cut from. The
 * YAML parser's scalars are slices of the whole file's text, so one name
 * kept for the life of the catalog would keep its file's text alive too
 * (at 20,000 recipes: ~16 MB of otherwise dead text).
 */
function detached(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

function summarise(entry: Record<string, unknown>, line: number): EntrySummary {
  const dcc = entry["dcc"];
  const description = entry["description"];
  const contract = entry["output_contract"];
  return {
    name: detached(entry["name"] as string),
    line,
    dcc: typeof dcc === "string" && dcc.trim() !== "" ? dcc.trim().toLowerCase() : null,
    description: typeof description === "string" ? detached(description.trim()) : "",
    toolsetProfiles: ((entry["toolset_profiles"] as string[] | undefined) ?? []).map(detached),
    stepsNotList: entry["steps"] !== undefined && !Array.isArray(entry["steps"]),
    hasOutputSchema: hasOutputSchema(contract),
    verdicts: {
      input: verdict(inputsSchemaOf(entry)),
      output: hasOutputSchema(contract) ? verdict(contract) : null,
    },
  };
}

export function parsePack(text: string, file: string): PackRecord {
  const result = parseRecipePack(text, file);
  if (!result.ok) return { ok: false, diagnostics: result.diagnostics, entries: [], ...encodeParts([{}]), text: serialize([]) };
  // Flat [steps, body, aliases, steps, …]: strings only, cheap to read back.
  const texts = result.entries.flatMap(({ entry }) => {
    const t = yamlEntryText(entry);
    return [t.steps, t.body, t.aliases];
  });
  const entries = result.entries.map(({ entry, line }) => summarise(entry, line));
  return {
    ok: true,
    diagnostics: [...result.diagnostics, ...dialectWarnings(result.entries, entries, file)],
    entries,
    ...encodeParts([result.pack, ...result.entries.map((e) => e.entry)]),
    text: serialize(texts),
  };
}

/** Part 0: the pack-level keys; part i + 1: entry i. */
export function readPackPart(record: Pick<PackRecord, "body" | "bodyOffsets">, part: number): Readonly<Record<string, unknown>> {
  const bytes = record.body.subarray(record.bodyOffsets[part]!, record.bodyOffsets[part + 1]!);
  // JSON.parse keeps a "__proto__" key as an own data property, as the YAML parsers do.
  return (bytes[0] === V8_TAG ? deserialize(bytes) : JSON.parse(utf8.decode(bytes))) as Readonly<Record<string, unknown>>;
}

/** Search texts per entry in `text`. */
export const INDEX_TEXTS = 3;

/** Entry i's search text is at [3i] (steps), [3i + 1] (body) and [3i + 2] (aliases). */
export function readIndexTexts(bytes: Uint8Array): readonly string[] {
  return deserialize(bytes) as string[];
}

/**
 * A schema the validator accepted under a Draft-07 `$schema` (docs/jsonschema.md, Draft-07): served, and the author told once per schema that it
 * is read as 2020-12. Refused schemas already carry schema_fails_closed.
 */
function dialectWarnings(
  parsed: readonly { entry: Record<string, unknown>; line: number }[],
  summaries: readonly EntrySummary[],
  file: string,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  parsed.forEach(({ entry, line }, i) => {
    const summary = summaries[i]!;
    const schemas: [string, unknown, SchemaError | null][] = [["inputs_schema", inputsSchemaOf(entry), summary.verdicts.input]];
    if (summary.hasOutputSchema) schemas.push(["output_contract", entry["output_contract"], summary.verdicts.output]);
    for (const [label, schema, fault] of schemas) {
      if (fault !== null) continue;
      for (const w of schemaWarnings(schema)) {
        out.push(diagnostic("warning", "schema_draft07_accepted", `recipe "${summary.name}" ${label}: ${w.message}`, { file, line }));
      }
    }
  });
  return out;
}
