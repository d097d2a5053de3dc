/**
 * Markdown recipe anchors (docs/skill-packs.md): level-2 ATX headings outside fenced
 * code blocks, read the way CommonMark reads them. Only the block structure
 * that decides "is this line a heading" is modelled: ATX headings and fences.
 */
import { readFile } from "node:fs/promises";
import { decodeUtf8 } from "../../util/read-bounded.js";

export interface MarkdownAnchor {
  /** Heading text, trimmed, closing `#` sequence removed. */
  readonly name: string;
  /** From the heading line to the next level-1/2 heading, right-trimmed, LF line ends. */
  readonly content: string;
  /** 1-based line of the heading. */
  readonly line: number;
}

interface Fence {
  readonly char: "`" | "~";
  readonly length: number;
}

// Up to three spaces of indent, then a run of ``` or ~~~ (CommonMark §4.5).
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
// Up to three spaces, one to six #, then whitespace or end of line (§4.2).
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*))?$/;

const SPACE = 0x20;
const BACKTICK = 0x60;
const TILDE = 0x7e;
const HASH = 0x23;

/**
 * The first character after up to three spaces of indent: only a line
 * whose mark is `, ~ or # can open or close a fence or be a heading. Most
 * lines of prose and code are neither, and this spares them the regexes
 * (a 20,000-recipe catalog's anchors are ~200,000 lines read every start).
 */
function markOf(line: string): number {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === SPACE) i++;
  return line.charCodeAt(i);
}

function openFence(line: string): Fence | null {
  const m = FENCE_OPEN.exec(line);
  if (!m) return null;
  const run = m[1]!;
  const char = run[0] as "`" | "~";
  // A backtick fence whose info string holds a backtick is inline code, not a fence.
  if (char === "`" && m[2]!.includes("`")) return null;
  return { char, length: run.length };
}

function closesFence(line: string, fence: Fence): boolean {
  const m = /^ {0,3}(`+|~+)[ \t]*$/.exec(line);
  if (!m) return false;
  const run = m[1]!;
  return run[0] === fence.char && run.length >= fence.length;
}

/** Heading text with the optional closing sequence removed (CommonMark §4.2). */
function headingText(raw: string | undefined): string {
  let text = (raw ?? "").replace(/[ \t]+$/, "");
  // A closing run of # counts only when it is the whole text or preceded by a space/tab.
  const closing = /(^|[ \t])#+$/.exec(text);
  if (closing) text = text.slice(0, closing.index);
  return text.trim();
}

interface Heading {
  readonly level: number;
  readonly text: string;
}

function atxHeading(line: string): Heading | null {
  const m = ATX.exec(line);
  if (!m) return null;
  return { level: m[1]!.length, text: headingText(m[2]) };
}

/**
 * All level-2 anchors in document order. A bare `##` (empty heading) ends the
 * previous anchor as CommonMark says, but names nothing, so it is not an anchor.
 */
export function parseMarkdownAnchors(text: string): MarkdownAnchor[] {
  const lines = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").split("\n");
  const anchors: MarkdownAnchor[] = [];
  let fence: Fence | null = null;
  let open: { name: string; start: number } | null = null;

  const close = (endExclusive: number): void => {
    if (open === null) return;
    if (open.name !== "") {
      // trimEnd strips exactly what /\s+$/ matches, in one pass from the end: the
      // regex retries at every whitespace run (17 vs 3 ms over 10,000 anchors).
      const content = lines.slice(open.start, endExclusive).join("\n").trimEnd();
      anchors.push(Object.freeze({ name: open.name, content, line: open.start + 1 }));
    }
    open = null;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const mark = markOf(line);
    if (mark !== BACKTICK && mark !== TILDE && mark !== HASH) continue;
    if (fence !== null) {
      if (closesFence(line, fence)) fence = null;
      continue;
    }
    const f = openFence(line);
    if (f !== null) {
      fence = f;
      continue;
    }
    const h = atxHeading(line);
    if (h === null || h.level > 2) continue;
    close(i);
    if (h.level === 2) open = { name: h.text, start: i };
  }
  close(lines.length);
  return anchors;
}

/** Seed-compatible: anchor names of a Markdown recipe file (`parse_recipe_anchors`); [] when unreadable. */
export async function parseRecipeAnchors(path: string): Promise<string[]> {
  const text = await readMarkdown(path);
  return text === null ? [] : parseMarkdownAnchors(text).map((a) => a.name);
}

/** Seed-compatible: content of the first anchor with that name, or null (`get_recipe_content`). */
export async function getRecipeContent(path: string, anchor: string): Promise<string | null> {
  const text = await readMarkdown(path);
  return text === null ? null : (parseMarkdownAnchors(text).find((a) => a.name === anchor)?.content ?? null);
}

const MAX_MARKDOWN_BYTES = 1024 * 1024;

/** The library API never throws for a missing, oversized or non-UTF-8 file (the loader reports those as diagnostics). */
async function readMarkdown(path: string): Promise<string | null> {
  const bytes = await readFile(path).catch(() => null);
  return bytes === null || bytes.length > MAX_MARKDOWN_BYTES ? null : decodeUtf8(bytes);
}
