/**
 * The `--config FILE` / `RECIPE_SERVER_CONFIG` file: YAML or JSON, a mapping
 * whose keys are the long flag names (`port`, `skills-path`, `no-watch` …)
 * and whose values are what the flag would take. The file only supplies
 * values: config.ts validates them exactly as it validates flags, so a file
 * cannot reach a state a command line cannot.
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { nearest } from "../util/edit-distance.js";

/** A config file is a few dozen lines; anything this large is a wrong path. */
const MAX_CONFIG_BYTES = 256 * 1024;
/** YAML aliases expand; a handful is plenty for a config, thousands is a bomb. */
const MAX_ALIASES = 50;
const MAX_LIST = 1000;

type FlagKind = "string" | "boolean";

interface FlagSpec {
  readonly type: FlagKind;
  readonly multiple?: boolean;
}

/** A list entry that is a mapping (only where MAPPING_LISTS allows one); frozen, own keys only. */
type FileMapping = Readonly<Record<string, unknown>>;

/** Values as parseArgs would give them: strings, booleans, or lists of strings (and mappings, see MAPPING_LISTS). */
export type FileValues = Readonly<Record<string, string | boolean | readonly string[] | readonly (string | FileMapping)[]>>;

export class ConfigFileError extends Error {}

/** Flags that make no sense inside a file (they act before one is read, or are the file). */
const NOT_IN_FILE = new Set(["help", "version", "config"]);

/**
 * Lists whose entries may be mappings: `dcc-endpoint` entries carry headers
 * (a bearer token) that have no command-line form on purpose.
 */
const MAPPING_LISTS = new Set(["dcc-endpoint"]);

/** Flags whose values are paths: resolved against the file's directory, not the cwd. */
const PATH_FLAGS = new Set(["skills-path", "private-dir", "users-file"]);

interface ConfigFileInput {
  readonly file: string;
  readonly cwd: string;
  readonly flags: Readonly<Record<string, FlagSpec>>;
  /** Reads the file (tests inject; default: the file system, bounded). */
  readonly read?: (file: string) => string;
}

/** Reads, parses and checks the file's keys and value types; throws ConfigFileError with one line. */
export function readConfigFile(input: ConfigFileInput): FileValues {
  const file = path.resolve(input.cwd, input.file);
  const shown = input.file;
  const text = (input.read ?? readBounded)(file);
  if (text.includes("\u0000")) throw new ConfigFileError(`config file ${shown} is not a text file`);
  const parsed = parseText(text, file, shown);
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigFileError(`config file ${shown} must be a mapping of flag names to values (got ${Array.isArray(parsed) ? "a list" : typeof parsed})`);
  }
  const known = Object.keys(input.flags).filter((k) => !NOT_IN_FILE.has(k));
  const values: Record<string, FileValues[string]> = {};
  for (const [key, raw] of Object.entries(parsed as Record<string, unknown>)) {
    // Own keys only: "__proto__" or "toString" must not find Object.prototype's.
    const spec = Object.hasOwn(input.flags, key) ? input.flags[key] : undefined;
    if (spec !== undefined && NOT_IN_FILE.has(key)) throw new ConfigFileError(`config file ${shown}: "${key}" is a command-line option only`);
    if (spec === undefined) {
      const bare = key.replace(/^-+/, "");
      const close = nearest(bare, known, Math.max(2, Math.floor(bare.length / 3)));
      const hint = close !== undefined ? `; did you mean "${close.match}"?` : "";
      throw new ConfigFileError(`config file ${shown}: unknown key "${printable(key)}"${hint}`);
    }
    if (MAPPING_LISTS.has(key)) {
      values[key] = mappingList(key, raw, shown);
      continue;
    }
    const value = coerce(key, raw, spec, shown);
    values[key] = PATH_FLAGS.has(key) ? resolvePaths(value, path.dirname(file)) : value;
  }
  return Object.freeze(values);
}

function readBounded(file: string): string {
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new ConfigFileError(`config file ${file} is not a regular file`);
    size = stat.size;
  } catch (error) {
    if (error instanceof ConfigFileError) throw error;
    const code = (error as { code?: string }).code ?? "unreadable";
    throw new ConfigFileError(`cannot read config file ${file} (${code})`);
  }
  if (size > MAX_CONFIG_BYTES) throw new ConfigFileError(`config file ${file} is ${size} bytes, more than the ${MAX_CONFIG_BYTES} a config file may have`);
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigFileError(`cannot read config file ${file} (${(error as { code?: string }).code ?? "unreadable"})`);
  }
}

function parseText(text: string, file: string, shown: string): unknown {
  if (text.length > MAX_CONFIG_BYTES) throw new ConfigFileError(`config file ${shown} is larger than the ${MAX_CONFIG_BYTES} bytes a config file may have`);
  if (file.toLowerCase().endsWith(".json")) {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ConfigFileError(`config file ${shown} is not valid JSON: ${firstLine(error)}`);
    }
  }
  try {
    return parseYaml(text, { maxAliasCount: MAX_ALIASES, uniqueKeys: true, prettyErrors: false });
  } catch (error) {
    throw new ConfigFileError(`config file ${shown} is not valid YAML: ${firstLine(error)}`);
  }
}

function coerce(key: string, raw: unknown, spec: FlagSpec, shown: string): string | boolean | readonly string[] {
  const where = `config file ${shown}: "${key}"`;
  if (spec.type === "boolean") {
    if (typeof raw !== "boolean") throw new ConfigFileError(`${where} must be true or false`);
    return raw;
  }
  if (spec.multiple === true) {
    const list = Array.isArray(raw) ? raw : [raw];
    if (list.length > MAX_LIST) throw new ConfigFileError(`${where} lists more than ${MAX_LIST} values`);
    return Object.freeze(list.map((item) => scalar(item, where)));
  }
  return scalar(raw, where);
}

function mappingList(key: string, raw: unknown, shown: string): readonly (string | FileMapping)[] {
  const where = `config file ${shown}: "${key}"`;
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length > MAX_LIST) throw new ConfigFileError(`${where} lists more than ${MAX_LIST} values`);
  return Object.freeze(
    list.map((item: unknown) => {
      if (item !== null && typeof item === "object" && !Array.isArray(item)) {
        // A JSON round trip: plain data, no prototype keys, nothing shared with the parser's objects.
        return Object.freeze(JSON.parse(JSON.stringify(item)) as FileMapping);
      }
      return scalar(item, where);
    }),
  );
}

function scalar(raw: unknown, where: string): string {
  if (typeof raw === "string") return raw;
  if (typeof raw === "number" && Number.isFinite(raw)) return String(raw);
  throw new ConfigFileError(`${where} must be a string or a number`);
}

function resolvePaths(value: string | boolean | readonly string[], dir: string): string | boolean | readonly string[] {
  // Empty strings stay empty, so config.ts reports them as it does for flags.
  const one = (p: string): string => (p.trim() === "" ? p : path.resolve(dir, p));
  if (typeof value === "string") return one(value);
  if (typeof value === "boolean") return value;
  return Object.freeze(value.map(one));
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split("\n")[0] ?? "").slice(0, 200);
}

/** Keys are echoed in an error line: control characters must not reach the terminal. */
function printable(key: string): string {
  // eslint-disable-next-line no-control-regex
  return key.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?").slice(0, 80);
}
