/**
 * Source positions for lint findings. The loaders report entry lines only;
 * lint re-parses a file (only when it has something to point at) and walks
 * the yaml package's node ranges to a key or value, leaving the loaders alone.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from "yaml";
import type { EntryPath } from "./types.js";

export interface SourcePos {
  readonly line: number;
  readonly column: number;
}

type Ranged = { range?: readonly number[] | null };

export class YamlSource {
  private readonly lineCounter = new LineCounter();
  private readonly doc: Document.Parsed;
  /** Added to every line: a SKILL.md frontmatter starts below its opening ---. */
  private readonly lineOffset: number;

  constructor(text: string, lineOffset = 0) {
    this.lineOffset = lineOffset;
    // Same text the loaders parse (BOM dropped), so offsets agree with theirs.
    this.doc = parseDocument(text.replace(/^\uFEFF/, ""), { lineCounter: this.lineCounter, uniqueKeys: false });
  }

  private pos(node: unknown): SourcePos | undefined {
    const offset = (node as Ranged | null | undefined)?.range?.[0];
    if (offset === undefined) return undefined;
    const { line, col } = this.lineCounter.linePos(offset);
    return { line: line + this.lineOffset, column: col };
  }

  /**
   * Position of the value at `path` (or of its key with `atKey`); when the
   * path runs out early, the deepest node that exists.
   */
  locate(path: EntryPath, atKey = false, exact = false): SourcePos | undefined {
    const fallback = (b: SourcePos | undefined): SourcePos | undefined => (exact ? undefined : b);
    let node: unknown = this.doc.contents;
    let best = this.pos(node);
    for (let i = 0; i < path.length; i++) {
      const seg = path[i]!;
      const last = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
        if (pair === undefined) return fallback(best);
        if (last && atKey) return this.pos(pair.key) ?? best;
        best = this.pos(pair.key) ?? best;
        node = pair.value;
      } else if (isSeq(node) && typeof seg === "number") {
        node = node.items[seg];
        if (node === undefined) return fallback(best);
      } else {
        return fallback(best);
      }
      best = this.pos(node) ?? best;
    }
    return best;
  }

  /**
   * Index in the top-level `recipes:` list of the item starting on `line`
   * (1-based, as the loader reports). With `name`, the item of that name is
   * preferred: a pack in flow style (JSON-like) may put every entry on one
   * line, or reach the loader by a path that reports line 1 for all of them.
   */
  entryIndexAt(line: number, name?: string): number | undefined {
    const seq = this.doc.get("recipes", true);
    if (!isSeq(seq)) return undefined;
    const named = (item: unknown): boolean => name !== undefined && isMap(item) && item.get("name") === name;
    const onLine = (item: unknown): boolean => this.pos(item)?.line === line;
    let i = name === undefined ? -1 : seq.items.findIndex((item) => named(item) && onLine(item));
    if (i < 0 && name !== undefined) i = seq.items.findIndex(named);
    if (i < 0) i = seq.items.findIndex(onLine);
    return i < 0 ? undefined : i;
  }
}

/**
 * The text of one block-sequence item of a pack (the entry the loader reports
 * at `line`), re-indented so it parses alone as a mapping: locating a finding
 * then costs a parse of that entry, not of the whole file. null for layouts
 * this does not recognise (flow sequences, `-` alone on its line): callers
 * fall back to the whole document.
 */
export function entrySlice(text: string, line: number): { text: string; lineOffset: number } | null {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n|\r/);
  const first = lines[line - 1];
  const m = first === undefined ? null : /^( *)- +(?=\S)/.exec(first);
  if (m === null) return null;
  const indent = m[1]!.length;
  let end = line;
  for (; end < lines.length; end++) {
    const l = lines[end]!;
    const t = l.trimStart();
    if (t === "" || t.startsWith("#")) continue;
    const lead = l.length - t.length;
    // The next item's dash, or a key that ends the sequence: nothing of this entry sits that far left.
    if (lead <= indent) break;
  }
  const body = [first!.slice(0, m[0].length).replace(/-/, " ") + first!.slice(m[0].length), ...lines.slice(line, end)];
  return { text: body.join("\n"), lineOffset: line - 1 };
}
