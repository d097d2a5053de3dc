/**
 * A YAML recipe entry as text for `content`/`document`. Entries are plain
 * JSON-like data (they came from YAML), so a small block-style emitter does:
 * keys in their order, a string plain only where YAML 1.2 (and 1.1 readers)
 * read it back as that same string, double-quoted otherwise (YAML's escapes
 * include JSON's), multi-line text as a literal block. It runs on every get;
 * js-yaml's general dumper cost ~10× JSON.stringify per entry.
 */

/**
 * A plain scalar: starts with a letter, `_`, `$` or `/` and holds nothing an
 * indicator could read, i.e. /^[A-Za-z_$/][\w \-.$/(){}=+<>@%~,'"!?*&|^`[\]]*$/,
 * checked with tables (every key and string of every get goes through here).
 */
const PLAIN_FIRST = asciiTable("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$/");
const PLAIN_REST = asciiTable("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_ -.$/(){}=+<>@%~,'\"!?*&|^`[]");
/** Words YAML 1.1 or 1.2 readers take as booleans or null (compared lower-cased). */
const RESERVED = new Set(["y", "yes", "n", "no", "true", "false", "on", "off", "null"]);

function asciiTable(chars: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let i = 0; i < chars.length; i += 1) table[chars.charCodeAt(i)] = 1;
  return table;
}

/**
 * True when `s` may be written plain: the PLAIN pattern, not a reserved word,
 * no trailing space and no two spaces in a row (": " and " #" cannot occur:
 * neither ":" nor "#" is allowed).
 */
export function isPlainScalar(s: string): boolean {
  const length = s.length;
  if (length === 0) return false;
  let code = s.charCodeAt(0);
  if (code >= 128 || PLAIN_FIRST[code] === 0) return false;
  let previous = code;
  for (let i = 1; i < length; i += 1) {
    code = s.charCodeAt(i);
    if (code >= 128 || PLAIN_REST[code] === 0 || (code === 32 && previous === 32)) return false;
    previous = code;
  }
  if (previous === 32) return false;
  return length > 5 || !RESERVED.has(s.toLowerCase());
}

/**
 * What YAML double-quoted text must escape beyond JSON's escapes: the
 * non-printable characters of YAML 1.2 §5.1, and NEL, LS and PS, which YAML
 * 1.1 readers take as line breaks.
 */
const NON_PRINTABLE = /[\x7F-\x9F\u2028\u2029\uFEFF\uFFFE\uFFFF]/g;
/** Characters that keep a literal block from holding the text as is. */
const NOT_LITERAL = /[\r\t\x00-\x08\x0B-\x1F\x7F-\x9F\u2028\u2029\uFEFF\uFFFE\uFFFF]|[ \t]\n|[ \t]$/;

function quoted(s: string): string {
  return JSON.stringify(s).replace(NON_PRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function scalarString(s: string): string {
  // Two spaces in a row, ": " and " #" read differently in some readers: quote them.
  return isPlainScalar(s) ? s : quoted(s);
}

function scalarNumber(n: number): string {
  if (Number.isNaN(n)) return ".nan";
  if (n === Infinity) return ".inf";
  if (n === -Infinity) return "-.inf";
  if (Object.is(n, -0)) return "-0.0";
  return String(n);
}

function scalar(value: unknown): string {
  switch (typeof value) {
    case "string":
      return scalarString(value);
    case "number":
      return scalarNumber(value);
    case "boolean":
      return value ? "true" : "false";
    default:
      return "null";
  }
}

function isCollection(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

function isEmpty(value: object): boolean {
  if (Array.isArray(value)) return value.length === 0;
  for (const _ in value) return false;
  return true;
}

/** Multi-line text as a literal block (`|`, `|-` or `|+` by its trailing newlines), or null when it must be quoted. */
function literal(s: string, indent: string): string | null {
  if (!s.includes("\n") || s[0] === " " || s[0] === "\n" || NOT_LITERAL.test(s)) return null;
  const body = s.replace(/\n+$/, "");
  const trailing = s.length - body.length;
  const chomp = trailing === 0 ? "-" : trailing === 1 ? "" : "+";
  const lines = body.split("\n").map((line) => (line === "" ? "" : indent + line));
  return `|${chomp}\n${lines.join("\n")}\n${"\n".repeat(Math.max(0, trailing - 1))}`;
}

/**
 * `value` after a `key:` or `-` that sits at `indent` (the text starts right
 * after the indicator), appended to `out`.
 */
function emitValue(value: unknown, indent: string, out: string): string {
  if (!isCollection(value)) {
    const block = typeof value === "string" ? literal(value, `${indent}  `) : null;
    return out + (block !== null ? ` ${block}` : ` ${scalar(value)}\n`);
  }
  if (isEmpty(value)) return out + (Array.isArray(value) ? " []\n" : " {}\n");
  return emitCollection(value, `${indent}  `, `\n${indent}  `, out);
}

/**
 * A non-empty collection's lines at `indent`, appended to `out`; its first line
 * starts with `first` instead (a dash's line shares it: "- key: v", "- - v").
 * Strings are concatenated as they go: V8 keeps them as ropes, flattened once.
 */
function emitCollection(value: object, indent: string, first: string, out: string): string {
  let lead = first;
  if (Array.isArray(value)) {
    for (const item of value) {
      if (isCollection(item) && !isEmpty(item)) out = emitCollection(item, `${indent}  `, `${lead}- `, out);
      else out = emitValue(item, indent, `${out}${lead}-`);
      lead = indent;
    }
    return out;
  }
  for (const key in value) {
    // Own keys only, as Object.entries gave: a polluted Object.prototype adds nothing.
    if (!Object.hasOwn(value, key)) continue;
    out = emitValue((value as Record<string, unknown>)[key], indent, `${out}${lead}${scalarString(key)}:`);
    lead = indent;
  }
  return out;
}

export function entryAsYaml(entry: unknown): string {
  if (!isCollection(entry)) return `${scalar(entry)}\n`;
  if (isEmpty(entry)) return Array.isArray(entry) ? "[]\n" : "{}\n";
  return emitCollection(entry, "", "", "");
}
