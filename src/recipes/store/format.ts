/**
 * The on-disk form of a private playbook: YAML frontmatter between `---`
 * lines, then the `document` verbatim as the Markdown body.
 *
 *   ---
 *   title: Bake normals
 *   summary: …
 *   whenToUse: …
 *   steps:
 *     - title: …
 *       detail: …
 *   acceptanceCriteria: [ … ]
 *   tags: [ … ]
 *   createdAt: 2026-11-29T19:07:21.000Z
 *   updatedAt: 2026-11-29T19:07:21.000Z
 *   revision: 1
 *   ---
 *   <document, byte for byte>
 *
 * What a hand-written file needs to be valid: a frontmatter mapping with a
 * non-empty string `title` (the same rule the store applies on create, so
 * whatever it writes it reads back). Everything else is optional and defaults to:
 *   summary            → the first prose paragraph of the body, else the title
 *   whenToUse          → ""
 *   steps              → []   (a step may also be a bare string: its title)
 *   acceptanceCriteria → []
 *   tags               → []   (a single string is one tag)
 *   createdAt/updatedAt→ the file's modification time
 *   revision           → 1
 * A key that is present but empty (`summary:`) counts as missing. A key of
 * the wrong type (steps as a string, revision -3, an unparseable date) makes
 * the file invalid rather than silently dropping what the human wrote. Keys
 * the store does not know are kept, in order, when the store rewrites the file.
 * The body is everything after the closing `---` line; an empty body is an
 * empty document.
 */
import YAML, { isMap, isScalar, LineCounter } from "yaml";
import type { Playbook, PlaybookStep } from "../types.js";

const KNOWN_KEYS = [
  "title", "summary", "whenToUse", "steps", "acceptanceCriteria", "tags", "createdAt", "updatedAt", "revision",
] as const;
const KNOWN_KEY_SET: ReadonlySet<string> = new Set(KNOWN_KEYS);
const SUMMARY_DEFAULT_MAX = 2000;
const MAX_ALIAS_COUNT = 100;

/** A playbook plus the frontmatter keys a human added that the store must not drop. */
export interface StoredPlaybook {
  readonly playbook: Playbook;
  readonly extra: Readonly<Record<string, unknown>>;
}

type ParseOutcome =
  | { readonly ok: true; readonly stored: StoredPlaybook }
  | { readonly ok: false; readonly message: string; readonly line?: number };

export function serialisePlaybook(playbook: Playbook, extra: Readonly<Record<string, unknown>> = {}): string {
  const front: Record<string, unknown> = {
    title: playbook.title,
    summary: playbook.summary,
    whenToUse: playbook.whenToUse,
    steps: playbook.steps.map((s) => ({ title: s.title, detail: s.detail })),
    acceptanceCriteria: [...playbook.acceptanceCriteria],
    tags: [...playbook.tags],
    createdAt: playbook.createdAt,
    updatedAt: playbook.updatedAt,
    revision: playbook.revision,
  };
  for (const [key, value] of Object.entries(extra)) {
    if (!KNOWN_KEY_SET.has(key)) front[key] = value;
  }
  // lineWidth 0: never fold long strings, so no YAML line can read as `---`.
  const yaml = YAML.stringify(front, { lineWidth: 0, minContentWidth: 0, aliasDuplicateObjects: false });
  return `---\n${yaml}---\n${playbook.document}`;
}

interface Split {
  readonly yaml: string;
  readonly body: string;
}

function splitFrontmatter(text: string): Split | null {
  const open = /^---[ \t]*\r?\n/.exec(text);
  if (!open) return null;
  const rest = text.slice(open[0].length);
  // The closing line may be the very first line (empty frontmatter).
  const close = /^---[ \t]*(?:\r?\n|$)/m.exec(rest);
  if (!close) return null;
  return { yaml: rest.slice(0, close.index), body: rest.slice(close.index + close[0].length) };
}

/**
 * Parses a playbook file's text. `slug` comes from the file name; `mtime`
 * (ISO) fills missing timestamps. Never throws on bad input.
 */
export function parsePlaybookFile(text: string, slug: string, mtime: string): ParseOutcome {
  const split = splitFrontmatter(text);
  if (!split) {
    return { ok: false, message: "no YAML frontmatter: the file must start with a --- line and close it with another --- line", line: 1 };
  }
  const lineCounter = new LineCounter();
  const doc = YAML.parseDocument(split.yaml, { uniqueKeys: true, prettyErrors: false, lineCounter });
  const firstError = doc.errors[0];
  if (firstError) {
    const line = lineCounter.linePos(firstError.pos[0]).line + 1;
    return { ok: false, message: `frontmatter is not valid YAML: ${firstLine(firstError.message)}`, line };
  }
  if (!isMap(doc.contents)) {
    return { ok: false, message: "frontmatter is not a mapping of keys to values", line: 2 };
  }
  const keyLine = (key: string): number | undefined => {
    const map = doc.contents;
    if (!isMap(map)) return undefined;
    for (const pair of map.items) {
      if (isScalar(pair.key) && pair.key.value === key && pair.key.range) {
        return lineCounter.linePos(pair.key.range[0]).line + 1;
      }
    }
    return undefined;
  };
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    return { ok: false, message: `frontmatter cannot be read: ${firstLine(String((error as Error).message))}`, line: 2 };
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return { ok: false, message: "frontmatter is not a mapping of keys to values", line: 2 };
  }
  const front = data as Record<string, unknown>;
  const fail = (key: string, message: string): ParseOutcome => {
    const line = keyLine(key);
    return line === undefined ? { ok: false, message } : { ok: false, message, line };
  };

  const title = front.title;
  if (typeof title !== "string" || title === "") {
    return title === undefined || title === null
      ? { ok: false, message: "frontmatter has no title (the one required key)", line: 1 }
      : fail("title", "title must be a non-empty string");
  }

  const summary = optionalString(front.summary);
  if (summary === INVALID) return fail("summary", "summary must be a string");
  const whenToUse = optionalString(front.whenToUse);
  if (whenToUse === INVALID) return fail("whenToUse", "whenToUse must be a string");

  const steps = readSteps(front.steps);
  if (typeof steps === "string") return fail("steps", steps);
  const acceptanceCriteria = readStringList(front.acceptanceCriteria, "acceptanceCriteria");
  if (typeof acceptanceCriteria === "string") return fail("acceptanceCriteria", acceptanceCriteria);
  const tags = readStringList(front.tags, "tags");
  if (typeof tags === "string") return fail("tags", tags);

  const createdAt = readTimestamp(front.createdAt);
  if (createdAt === INVALID) return fail("createdAt", "createdAt must be a date-time such as 2026-01-31T12:00:00Z");
  const updatedAt = readTimestamp(front.updatedAt);
  if (updatedAt === INVALID) return fail("updatedAt", "updatedAt must be a date-time such as 2026-01-31T12:00:00Z");

  const rawRevision = front.revision;
  let revision = 1;
  if (rawRevision !== undefined && rawRevision !== null) {
    if (typeof rawRevision !== "number" || !Number.isSafeInteger(rawRevision) || rawRevision < 1) {
      return fail("revision", "revision must be a positive integer");
    }
    revision = rawRevision;
  }

  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(front)) {
    if (!KNOWN_KEY_SET.has(key)) extra[key] = value;
  }

  const playbook: Playbook = Object.freeze({
    slug,
    title,
    summary: summary ?? defaultSummary(split.body, title),
    whenToUse: whenToUse ?? "",
    steps: Object.freeze(steps),
    acceptanceCriteria: Object.freeze(acceptanceCriteria),
    tags: Object.freeze(tags),
    document: split.body,
    createdAt: createdAt ?? mtime,
    updatedAt: updatedAt ?? createdAt ?? mtime,
    revision,
  });
  return { ok: true, stored: { playbook, extra: Object.freeze(extra) } };
}

const INVALID = Symbol("invalid");

function optionalString(value: unknown): string | undefined | typeof INVALID {
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : INVALID;
}

function readSteps(value: unknown): PlaybookStep[] | string {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return "steps must be a list of {title, detail} entries";
  const steps: PlaybookStep[] = [];
  for (const [i, item] of value.entries()) {
    if (typeof item === "string") {
      steps.push(Object.freeze({ title: item, detail: "" }));
      continue;
    }
    if (item === null || typeof item !== "object" || Array.isArray(item)) {
      return `steps[${i}] must be a mapping with title and detail`;
    }
    const { title, detail } = item as Record<string, unknown>;
    if (typeof title !== "string") return `steps[${i}].title must be a string`;
    if (detail !== undefined && detail !== null && typeof detail !== "string") {
      return `steps[${i}].detail must be a string`;
    }
    steps.push(Object.freeze({ title, detail: typeof detail === "string" ? detail : "" }));
  }
  return steps;
}

function readStringList(value: unknown, key: string): string[] | string {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return [value];
  if (!Array.isArray(value)) return `${key} must be a list of strings`;
  const out: string[] = [];
  for (const [i, item] of value.entries()) {
    // YAML reads `- 2024` or `- yes` as non-strings; a human meant the text.
    if (typeof item === "string") out.push(item);
    else if (typeof item === "number" || typeof item === "boolean") out.push(String(item));
    else return `${key}[${i}] must be a string`;
  }
  return out;
}

function readTimestamp(value: unknown): string | undefined | typeof INVALID {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") return INVALID;
  const time = Date.parse(value);
  return Number.isNaN(time) ? INVALID : new Date(time).toISOString();
}

function defaultSummary(body: string, title: string): string {
  for (const paragraph of body.split(/\r?\n[ \t]*\r?\n/)) {
    const text = paragraph
      .split(/\r?\n/)
      .filter((line) => !/^\s*(#|```|~~~|<!--)/.test(line))
      .join(" ")
      .replace(/\s+/g, " ")
      .trim();
    if (text !== "") return text.length > SUMMARY_DEFAULT_MAX ? `${text.slice(0, SUMMARY_DEFAULT_MAX - 1)}…` : text;
  }
  return title;
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}
