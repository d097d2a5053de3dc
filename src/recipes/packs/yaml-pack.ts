/**
 * YAML recipe packs (docs/skill-packs.md): a top-level mapping with a `recipes:` list.
 * Parsing is bounded (size, aliases) and strict (duplicate keys are errors);
 * a pack that is not a pack contributes nothing and is never re-read as Markdown.
 */
import { isSeq, LineCounter, parseDocument } from "yaml";
import { measure } from "../../jsonschema/limits.js";
import { diagnostic, type Diagnostic, type DiagnosticCode } from "../../util/diagnostics.js";
import { parsePackFast } from "../../skills/yaml-fast.js";
import { isPlainObject as isRecord } from "../../jsonschema/json.js";

/** 1 MiB: a file of exactly this many bytes is accepted, one more is refused. */
export const MAX_RECIPE_FILE_BYTES = 1024 * 1024;
/** Aliases a pack may expand; real packs use none, "billion laughs" needs thousands. */
export const MAX_YAML_ALIASES = 100;

export interface PackEntry {
  /** The entry as written, with `toolset_profiles` normalised to a string list. */
  readonly entry: Record<string, unknown>;
  /** 1-based line of the entry's first key. */
  readonly line: number;
}

export type ParsePackResult =
  | {
      readonly ok: true;
      /** Pack-level keys other than `recipes` (`pack`, `tool_routing` …). */
      readonly pack: Record<string, unknown>;
      readonly entries: PackEntry[];
      readonly diagnostics: Diagnostic[];
    }
  | { readonly ok: false; readonly diagnostics: Diagnostic[] };

/** First line of a yaml library message: the rest is a source excerpt. */
function firstLine(message: string): string {
  return (message.split("\n")[0] ?? "").replace(/:$/, "");
}

export function parseRecipePack(text: string, file: string): ParsePackResult {
  const where = { file };
  const refuse = (code: DiagnosticCode, message: string): ParsePackResult => ({ ok: false, diagnostics: [diagnostic("error", code, message, where)] });
  const size = Buffer.byteLength(text, "utf8");
  if (size > MAX_RECIPE_FILE_BYTES) return refuse("file_too_large", `${file} is ${size} bytes; the limit is ${MAX_RECIPE_FILE_BYTES}`);

  const parsed = parseBounded(text, file);
  if ("diagnostics" in parsed) return { ok: false, diagnostics: parsed.diagnostics };
  const { data } = parsed;
  if (!isRecord(data) || !Array.isArray(data["recipes"])) {
    return refuse("pack_missing_recipes", `${file} is not a recipe pack: the top level must be a mapping with a recipes: list`);
  }

  const { recipes, ...pack } = data;
  const list = recipes as unknown[];
  const itemLine = (i: number): number | undefined => parsed.recipeLines?.[i];

  const entries: PackEntry[] = [];
  const diagnostics: Diagnostic[] = [];
  list.forEach((raw, i) => {
    const line = itemLine(i);
    const at = line !== undefined ? { file, line } : where;
    if (!isRecord(raw)) {
      diagnostics.push(diagnostic("error", "recipe_invalid_entry", `${file}: recipes[${i}] is not a mapping`, at));
      return;
    }
    const name = raw["name"];
    if (typeof name !== "string" || name.trim() === "") {
      diagnostics.push(diagnostic("error", "recipe_invalid_entry", `${file}: recipes[${i}] needs a non-empty string name`, at));
      return;
    }
    const entry = { ...raw };
    const profiles = normaliseProfiles(entry, file, i, at, diagnostics);
    if (profiles !== undefined) entry["toolset_profiles"] = profiles;
    entries.push({ entry, line: line ?? 1 });
  });

  return { ok: true, pack, entries, diagnostics };
}

/**
 * Far more nesting than a recipe needs: a schema past 128 levels fails
 * closed on its own and its recipe stays listable; this bound only keeps
 * every parser within its stack (the exact parser overflows somewhere past
 * 800 levels on a default main-thread stack). Deeper documents get one
 * stable diagnostic: where a parser runs out of stack depends on the thread
 * (workers have larger stacks) and the error text on the run, and verdicts
 * are cached.
 */
export const MAX_YAML_DEPTH = 500;

function tooDeep(file: string): { diagnostics: Diagnostic[] } {
  return { diagnostics: [diagnostic("error", "yaml_parse_error", `${file} nests deeper than ${MAX_YAML_DEPTH} levels`, { file })] };
}

function isStackOverflow(err: unknown): boolean {
  return err instanceof RangeError || (err instanceof Error && /call stack/i.test(err.message));
}

function parseBounded(text: string, file: string): ReturnType<typeof parseExactly> {
  let parsed: ReturnType<typeof parseExactly>;
  try {
    const fast = parsePackFast(text.replace(/^\uFEFF/, ""));
    parsed = fast ?? parseExactly(text, file);
  } catch (err) {
    if (isStackOverflow(err)) return tooDeep(file);
    throw err;
  }
  if ("diagnostics" in parsed) return parsed.diagnostics.some((d) => /call stack/i.test(d.message)) ? tooDeep(file) : parsed;
  return measure(parsed.data, MAX_YAML_DEPTH, Infinity, false) === "too_deep" ? tooDeep(file) : parsed;
}

/**
 * The `yaml` package: slower, but exact about what is wrong and where
 * (duplicate keys, alias caps, syntax), so every failing pack comes here.
 */
function parseExactly(
  text: string,
  file: string,
): { data: unknown; recipeLines: readonly (number | undefined)[] | null } | { diagnostics: Diagnostic[] } {
  const where = { file };
  const lineCounter = new LineCounter();
  const doc = parseDocument(text.replace(/^\uFEFF/, ""), {
    uniqueKeys: true,
    prettyErrors: true,
    lineCounter,
  });
  if (doc.errors.length > 0) {
    return {
      diagnostics: doc.errors.map((e) => {
        const line = e.linePos?.[0]?.line;
        const code = e.code === "DUPLICATE_KEY" ? "yaml_duplicate_key" : "yaml_parse_error";
        return diagnostic("error", code, `${file}: ${firstLine(e.message)}`, line !== undefined ? { file, line } : where);
      }),
    };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (err) {
    // The yaml package signals alias exhaustion with a ReferenceError; anything else is a parse failure.
    const msg = err instanceof Error ? err.message : String(err);
    const aliases = /alias/i.test(msg);
    const message = aliases ? `${file} expands more than ${MAX_YAML_ALIASES} YAML aliases` : `${file}: ${firstLine(msg)}`;
    return { diagnostics: [diagnostic("error", aliases ? "yaml_alias_limit" : "yaml_parse_error", message, where)] };
  }
  const seqNode = doc.get("recipes", true);
  const recipeLines = isSeq(seqNode)
    ? seqNode.items.map((node) => {
        const offset = (node as { range?: readonly number[] | null } | undefined)?.range?.[0];
        return offset === undefined ? undefined : lineCounter.linePos(offset).line;
      })
    : null;
  return { data, recipeLines };
}

/** `toolset_profiles` (or singular `toolset_profile`); a string becomes a one-item list. */
function normaliseProfiles(
  entry: Record<string, unknown>,
  file: string,
  index: number,
  at: { file: string; line?: number },
  diagnostics: Diagnostic[],
): string[] | undefined {
  const raw = entry["toolset_profiles"] ?? entry["toolset_profile"];
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === "string") return [raw];
  if (Array.isArray(raw) && raw.every((p) => typeof p === "string")) return raw as string[];
  diagnostics.push(diagnostic("warning", "recipe_invalid_entry", `${file}: recipes[${index}].toolset_profiles must be a string or a list of strings; ignored`, at));
  return [];
}
