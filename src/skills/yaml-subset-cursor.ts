/**
 * The scanning half of the plain YAML subset parser (yaml-subset.ts): lines,
 * indentation, comments, plain and quoted scalars, all by char code. Every
 * method either consumes what the subset allows or leaves it via outside().
 */
import { PlainKeys } from "./yaml-subset-keys.js";
import { hexEscape, outside, simpleEscape } from "./yaml-subset-scalars.js";

export const TAB = 0x09;
export const LF = 0x0a;
export const CR = 0x0d;
export const SP = 0x20;
export const HASH = 0x23;
export const SQUOTE = 0x27;
export const DQUOTE = 0x22;
export const COMMA = 0x2c;
export const DASH = 0x2d;
export const DOT = 0x2e;
export const COLON = 0x3a;
export const LBRACKET = 0x5b;
export const BACKSLASH = 0x5c;
export const RBRACKET = 0x5d;
export const LBRACE = 0x7b;
export const RBRACE = 0x7d;

/** How a plain scalar ended. */
export const enum Stop {
  Eol,
  /** At a `:` that is a mapping indicator (followed by white space, end of line, or in flow a flow indicator). */
  Colon,
  Comment,
  FlowIndicator,
}

/** Nesting beyond this leaves the subset: recursion stays shallow and the exact chain decides. */
export const MAX_SUBSET_DEPTH = 200;

/** The package refuses an implicit key whose `:` lies more than 1024 chars after its start; stay well inside. */
export const MAX_KEY_SPAN = 1000;

const FLOW_INDICATOR = 1;
const SPECIAL = 2;
/**
 * Per ASCII code, how a plain scalar treats it: 0 ordinary, FLOW_INDICATOR
 * (ordinary in block context), SPECIAL (white space, `:`, `#`, line breaks,
 * controls: the scanner looks closer).
 */
const PLAIN_CLASS = new Uint8Array(0x80);
for (let c = 0; c <= 0x20; c++) PLAIN_CLASS[c] = SPECIAL;
PLAIN_CLASS[0x3a] = PLAIN_CLASS[0x23] = SPECIAL;
for (const c of [0x2c, 0x5b, 0x5d, 0x7b, 0x7d]) PLAIN_CLASS[c] = FLOW_INDICATOR;

export function isFlowIndicator(c: number): boolean {
  return c === COMMA || c === LBRACKET || c === RBRACKET || c === LBRACE || c === RBRACE;
}

/** Space, tab, end of line or end of text (NaN). */
export function isBlankOrEnd(c: number): boolean {
  return c === SP || c === TAB || c === LF || c === CR || c !== c;
}

export class Cursor {
  protected readonly src: string;
  protected readonly len: number;
  protected pos = 0;
  /** 1-based line of `pos`. */
  protected line = 1;
  protected lineStart = 0;
  /** Indentation of the content line at `pos` (after nextContentLine), -1 at the end of the text. */
  protected indent = 0;
  /** How the last scanPlain ended. */
  protected stop: Stop = Stop.Eol;
  protected depth = 0;
  private readonly keys: PlainKeys;

  constructor(src: string) {
    this.src = src;
    this.len = src.length;
    this.keys = new PlainKeys(src);
  }

  /** The object key the plain key text `src[start, end)` stands for. */
  protected plainKeyAt(start: number, end: number): string {
    return this.keys.at(start, end);
  }

  protected enter(): void {
    if (++this.depth > MAX_SUBSET_DEPTH) outside();
  }

  protected leave(): void {
    this.depth -= 1;
  }

  /**
   * From the start of a line: skips blank and comment lines and stops at the
   * first content character, setting `indent` (-1 at the end). Tabs in
   * indentation and document markers leave the subset.
   */
  protected nextContentLine(): void {
    const src = this.src;
    let p = this.pos;
    for (;;) {
      let q = p;
      while (src.charCodeAt(q) === SP) q++;
      const c = src.charCodeAt(q);
      if (c === LF || c === CR || c === HASH) {
        const nl = src.indexOf("\n", q);
        if (nl < 0) break;
        p = nl + 1;
        this.line += 1;
        this.lineStart = p;
        continue;
      }
      if (q >= this.len) break;
      // The package drops a byte order mark that opens a line before the document's content.
      if (c === TAB || c === 0xfeff) outside();
      if (q === p && (c === DASH || c === DOT) && src.charCodeAt(q + 1) === c && src.charCodeAt(q + 2) === c) outside();
      this.pos = q;
      this.indent = q - p;
      return;
    }
    this.pos = this.len;
    this.indent = -1;
  }

  /** After a node's last character at `p`: white space, an optional comment, then the end of the line. */
  protected endLine(p: number): void {
    const src = this.src;
    let c = src.charCodeAt(p);
    while (c === SP || c === TAB) c = src.charCodeAt(++p);
    if (c === HASH) {
      // A comment needs white space before it (or the line start).
      const prev = src.charCodeAt(p - 1);
      if (p !== this.lineStart && prev !== SP && prev !== TAB) outside();
      const nl = src.indexOf("\n", p);
      p = nl < 0 ? this.len : nl;
      c = src.charCodeAt(p);
    }
    if (c === CR) c = src.charCodeAt(++p);
    if (c === LF) {
      this.pos = p + 1;
      this.line += 1;
      this.lineStart = p + 1;
    } else if (p >= this.len) {
      this.pos = this.len;
    } else {
      outside();
    }
  }

  /** endLine, then on to the next content line. */
  protected finishLine(p: number): void {
    if (this.src.charCodeAt(p) === LF) {
      // The common case: the node ends right at the line break.
      this.pos = p + 1;
      this.line += 1;
      this.lineStart = p + 1;
    } else {
      this.endLine(p);
    }
    this.nextContentLine();
  }

  /**
   * A plain scalar's extent from `p` (its first character, already vetted by
   * the caller): returns its end without trailing white space and records in
   * `stop` why it ended. Multi-line plain scalars are the caller's to refuse.
   */
  protected scanPlain(p: number, inFlow: boolean): number {
    const src = this.src;
    // Flow indicators are ordinary characters in block context.
    const limit = inFlow ? FLOW_INDICATOR : SPECIAL;
    let end = p;
    let i = p;
    for (;;) {
      let c = src.charCodeAt(i);
      if (c >= 0x80 || PLAIN_CLASS[c]! < limit) {
        do c = src.charCodeAt(++i);
        while (c >= 0x80 || PLAIN_CLASS[c]! < limit);
        end = i;
      }
      if (c === SP || c === TAB) {
        i++;
        continue;
      }
      if (c === COLON) {
        const n = src.charCodeAt(i + 1);
        if (isBlankOrEnd(n) || (inFlow && isFlowIndicator(n))) {
          this.stop = Stop.Colon;
          break;
        }
        end = ++i;
        continue;
      }
      if (c === HASH) {
        const prev = src.charCodeAt(i - 1);
        if (prev === SP || prev === TAB) {
          this.stop = Stop.Comment;
          break;
        }
        end = ++i;
        continue;
      }
      if (c === LF || c === CR || i >= this.len) {
        this.stop = Stop.Eol;
        break;
      }
      if (c >= SP) {
        // A flow indicator, in flow context.
        this.stop = Stop.FlowIndicator;
        break;
      }
      outside();
    }
    this.pos = i;
    return end;
  }

  /** A single-line quoted scalar opening at `p`; leaves `pos` after its closing quote. */
  protected parseQuoted(p: number): string {
    return this.src.charCodeAt(p) === SQUOTE ? this.singleQuoted(p + 1) : this.doubleQuoted(p + 1);
  }

  private singleQuoted(start: number): string {
    const src = this.src;
    let out = "";
    let i = start;
    for (;;) {
      const c = src.charCodeAt(i);
      if (c === SQUOTE) {
        if (src.charCodeAt(i + 1) !== SQUOTE) break;
        out += src.slice(start, i + 1);
        i += 2;
        start = i;
        continue;
      }
      // A line break (folding) or the end of the text: outside the subset.
      if (c < SP && c !== TAB) outside();
      if (i >= this.len) outside();
      i++;
    }
    this.pos = i + 1;
    return out === "" ? src.slice(start, i) : out + src.slice(start, i);
  }

  private doubleQuoted(start: number): string {
    const src = this.src;
    let out = "";
    let i = start;
    for (;;) {
      const c = src.charCodeAt(i);
      if (c === DQUOTE) break;
      if (c === BACKSLASH) {
        out += src.slice(start, i);
        const e = src.charCodeAt(i + 1);
        const simple = simpleEscape(e);
        if (simple !== "") {
          out += simple;
          i += 2;
        } else if (e === 0x78 || e === 0x75 || e === 0x55) {
          const length = e === 0x78 ? 2 : e === 0x75 ? 4 : 8;
          out += hexEscape(src, i + 2, length);
          i += 2 + length;
        } else {
          // Escaped line breaks, unknown escapes, a backslash at the end.
          outside();
        }
        start = i;
        continue;
      }
      if (c < SP && c !== TAB) outside();
      if (i >= this.len) outside();
      i++;
    }
    this.pos = i + 1;
    return out === "" ? src.slice(start, i) : out + src.slice(start, i);
  }
}
