/** Turning a path inside a recipe entry into a line and column, as cheaply as the layout allows. */
import { MAX_RECIPE_FILE_BYTES } from "../recipes/packs/yaml-pack.js";
import { readInsideText, realDirOf } from "../util/read-inside.js";
import { blockLocate } from "./block-locate.js";
import type { EntryPath } from "./types.js";
import { entrySlice, YamlSource, type SourcePos } from "./yaml-locate.js";

/**
 * Positions inside recipe entries. Each file is read once; an entry with
 * findings is cut out and read by indentation (blockLocate), and parsed with
 * the `yaml` package only when that cannot answer.
 */
interface EntrySource {
  readonly slice: { text: string; lineOffset: number } | null;
  /** Lazily: the slice parsed alone, or the whole file with the entry's index. */
  parsed?: { src: YamlSource; prefix: EntryPath } | null;
  readonly fileText: string;
  readonly line: number;
  /** The recipe's name: tells flow-style entries apart when their lines do not. */
  readonly name: string | undefined;
}

/** The files of one skill, read inside its directory (util/read-inside.ts). */
export class SourceCache {
  private readonly texts = new Map<string, Promise<string | null>>();
  private readonly entries = new Map<string, EntrySource | null>();
  private readonly within: string;

  constructor(skillDir: string) {
    this.within = realDirOf(skillDir);
  }

  private text(abs: string): Promise<string | null> {
    let p = this.texts.get(abs);
    if (p === undefined) {
      p = Promise.resolve(readInsideText(this.within, abs, MAX_RECIPE_FILE_BYTES));
      this.texts.set(abs, p);
    }
    return p;
  }

  async entry(abs: string, line: number, name?: string): Promise<EntrySource | null> {
    const key = `${line}\u0000${name ?? ""}\u0000${abs}`;
    if (this.entries.has(key)) return this.entries.get(key)!;
    const text = await this.text(abs);
    const found: EntrySource | null = text === null ? null : { slice: entrySlice(text, line), fileText: text, line, name };
    this.entries.set(key, found);
    return found;
  }
}

function parsedEntry(e: EntrySource): { src: YamlSource; prefix: EntryPath } | null {
  if (e.parsed !== undefined) return e.parsed;
  if (e.slice !== null) {
    e.parsed = { src: new YamlSource(e.slice.text, e.slice.lineOffset), prefix: [] };
  } else {
    const whole = new YamlSource(e.fileText);
    const index = whole.entryIndexAt(e.line, e.name);
    e.parsed = index === undefined ? null : { src: whole, prefix: ["recipes", index] };
  }
  return e.parsed;
}

export function schemaPointerPath(ptr: string | undefined): EntryPath {
  if (ptr === undefined || ptr === "" || ptr === "/") return [];
  return ptr
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

export async function entryPos(sources: SourceCache, abs: string, entryLine: number, at: EntryPath, atKey: boolean, name?: string): Promise<SourcePos> {
  const entry = await sources.entry(abs, entryLine, name);
  if (entry === null) return { line: entryLine, column: 1 };
  const fast = entry.slice === null ? null : blockLocate(entry.slice.text, entry.slice.lineOffset, at, atKey);
  if (fast !== null) return fast;
  const found = parsedEntry(entry);
  return found?.src.locate([...found.prefix, ...at], atKey) ?? { line: entryLine, column: 1 };
}

