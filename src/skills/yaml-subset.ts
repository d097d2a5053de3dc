/**
 * A hand-written parser for the plain YAML that recipe packs and SKILL.md
 * frontmatter use, producing exactly the values the `yaml` package gives
 * with YAML 1.2 core: block mappings and sequences (incl. `- key: v`), flow
 * collections, plain and single-line quoted scalars, `|`/`>` block scalars,
 * comments, CRLF. It scans by char code and allocates little beyond the
 * values themselves, so it is the first stage of yaml-fast.ts.
 *
 * Anything else (anchors, aliases, tags, directives, `?` keys, duplicate
 * keys, tabs in indentation, multi-line plain or quoted scalars, nesting past
 * MAX_SUBSET_DEPTH …) makes it return null and the slower chain answers;
 * null is always a safe answer, a value that differs from the `yaml`
 * package never is.
 */
import {
  COLON,
  CR,
  DASH,
  DQUOTE,
  HASH,
  isBlankOrEnd,
  LBRACE,
  LBRACKET,
  LF,
  MAX_KEY_SPAN,
  SP,
  SQUOTE,
  Stop,
  TAB,
} from "./yaml-subset-cursor.js";
import { BlockScalarParser } from "./yaml-subset-block.js";
import { OUTSIDE_SUBSET, outside, resolvePlain, setKey } from "./yaml-subset-scalars.js";

export { MAX_SUBSET_DEPTH } from "./yaml-subset-cursor.js";

export interface SubsetParse {
  readonly data: unknown;
  /** 1-based line of each item of the root mapping's `recipes` sequence; null when there is no such sequence. */
  readonly recipeLines: readonly number[] | null;
}

/** A carriage return that does not end a line: the package keeps it as content, this parser does not try. */
const LONE_CR = /\r(?!\n)/;

/** The document's value, or null when the text leaves the subset (then only the exact chain may answer). */
export function parseYamlSubset(text: string): SubsetParse | null {
  // A byte order mark is the caller's to strip (the package drops a leading one).
  if (text.charCodeAt(0) === 0xfeff) return null;
  if (text.indexOf("\r") >= 0 && LONE_CR.test(text)) return null;
  const parser = new BlockParser(text);
  let data: unknown;
  try {
    data = parser.parseDocument();
  } catch (err) {
    if (err === OUTSIDE_SUBSET) return null;
    throw err;
  }
  const lines = parser.recipeLines;
  const recipes = data !== null && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>)["recipes"] : undefined;
  const matches = lines !== null && Array.isArray(recipes) && recipes.length === lines.length;
  return { data, recipeLines: matches ? lines : null };
}

class BlockParser extends BlockScalarParser {
  parseDocument(): unknown {
    this.skipDocumentStart();
    this.nextContentLine();
    if (this.indent < 0) return null;
    const value = this.parseNode(this.indent, -1, false);
    if (this.indent >= 0) outside();
    return value;
  }

  /** Blank and comment lines, then one optional bare `---` line. */
  private skipDocumentStart(): void {
    const src = this.src;
    for (;;) {
      let q = this.pos;
      while (src.charCodeAt(q) === SP) q++;
      const c = src.charCodeAt(q);
      if (c === LF || c === CR || c === HASH) {
        const nl = src.indexOf("\n", q);
        if (nl < 0) return;
        this.pos = nl + 1;
        this.line += 1;
        this.lineStart = this.pos;
        continue;
      }
      if (q === this.pos && src.startsWith("---", q) && isBlankOrEnd(src.charCodeAt(q + 3))) this.endLine(q + 3);
      return;
    }
  }

  /**
   * The node at `pos`, column `col`: the first thing on its line, or what
   * follows `- ` (`afterDash`, where a block scalar header may stand).
   * `parentIndent` is the enclosing block collection's indentation (-1 at
   * the root). Leaves `pos` at the next content line.
   */
  private parseNode(col: number, parentIndent: number, afterDash: boolean): unknown {
    const src = this.src;
    const p = this.pos;
    const c = src.charCodeAt(p);
    if (c === DASH) {
      const n = src.charCodeAt(p + 1);
      if (isBlankOrEnd(n)) return this.parseSeq(col);
    } else if (c === LBRACKET || c === LBRACE) {
      const value = this.parseFlow(parentIndent);
      this.finishLine(this.pos);
      return value;
    } else if (c === SQUOTE || c === DQUOTE) {
      const s = this.parseQuoted(p);
      const colon = this.keyColon(this.pos);
      if (colon >= 0) {
        if (colon - p > MAX_KEY_SPAN) outside();
        return this.parseMap(col, s, colon + 1);
      }
      this.finishLine(this.pos);
      return s;
    } else if (c === 0x7c || c === 0x3e) {
      if (!afterDash) outside();
      return this.parseBlockScalar(p, parentIndent);
    }
    this.vetPlainStart(p, false);
    const end = this.scanPlain(p, false);
    if (this.stop === Stop.Colon) {
      if (this.pos - p > MAX_KEY_SPAN) outside();
      return this.parseMap(col, this.plainKeyAt(p, end), this.pos + 1);
    }
    const value = resolvePlain(src.slice(p, end));
    this.finishLine(end);
    return value;
  }

  /** Position of the mapping `:` after a quoted key ending at `p`, or -1 when none follows. */
  private keyColon(p: number): number {
    const src = this.src;
    let c = src.charCodeAt(p);
    while (c === SP || c === TAB) c = src.charCodeAt(++p);
    return c === COLON && isBlankOrEnd(src.charCodeAt(p + 1)) ? p : -1;
  }

  /** A block mapping at column `indent` whose first key is read; `p` is just after its `:`. */
  private parseMap(indent: number, firstKey: string, p: number): Record<string, unknown> {
    const src = this.src;
    const isRoot = this.depth === 0;
    this.trackNext = false;
    this.enter();
    const map: Record<string, unknown> = {};
    let key = firstKey;
    for (;;) {
      if (isRoot) this.trackNext = key === "recipes";
      const value = this.parseMapValue(indent, p);
      this.trackNext = false;
      setKey(map, key, value);
      if (this.indent !== indent) {
        if (this.indent > indent) outside();
        break;
      }
      const k = this.pos;
      const c = src.charCodeAt(k);
      if (c === SQUOTE || c === DQUOTE) {
        key = this.parseQuoted(k);
        const colon = this.keyColon(this.pos);
        if (colon < 0 || colon - k > MAX_KEY_SPAN) outside();
        p = colon + 1;
      } else {
        this.vetPlainStart(k, false);
        const end = this.scanPlain(k, false);
        if (this.stop !== Stop.Colon || this.pos - k > MAX_KEY_SPAN) outside();
        key = this.plainKeyAt(k, end);
        p = this.pos + 1;
      }
    }
    this.leave();
    return map;
  }

  /** The value after a block mapping key's `:` at `p - 1`, in a mapping indented `indent`. */
  private parseMapValue(indent: number, p: number): unknown {
    const src = this.src;
    let c = src.charCodeAt(p);
    while (c === SP || c === TAB) c = src.charCodeAt(++p);
    if (c === LF || c === CR || c === HASH || p >= this.len) {
      this.finishLine(p);
      if (this.indent > indent) return this.parseNode(this.indent, indent, false);
      // `key:` followed by `- item` lines at the key's own indentation.
      if (this.indent === indent && src.charCodeAt(this.pos) === DASH && isBlankOrEnd(src.charCodeAt(this.pos + 1))) {
        return this.parseSeq(indent);
      }
      return null;
    }
    if (c === 0x7c || c === 0x3e) return this.parseBlockScalar(p, indent);
    if (c === LBRACKET || c === LBRACE) {
      this.pos = p;
      const value = this.parseFlow(indent);
      this.finishLine(this.pos);
      return value;
    }
    if (c === SQUOTE || c === DQUOTE) {
      const s = this.parseQuoted(p);
      this.finishLine(this.pos);
      return s;
    }
    this.vetPlainStart(p, false);
    const end = this.scanPlain(p, false);
    // `a: b: c`: a compact nested mapping, which YAML refuses.
    if (this.stop === Stop.Colon) outside();
    const value = resolvePlain(src.slice(p, end));
    this.finishLine(end);
    return value;
  }

  /** A block sequence whose first `-` is at `pos`, column `indent`. */
  private parseSeq(indent: number): unknown[] {
    const src = this.src;
    const lines = this.claimLines();
    this.enter();
    const seq: unknown[] = [];
    for (;;) {
      let p = this.pos + 1;
      let c = src.charCodeAt(p);
      while (c === SP) c = src.charCodeAt(++p);
      if (c === TAB) outside();
      if (c === LF || c === CR || c === HASH || p >= this.len) {
        const dashLine = this.line;
        this.finishLine(p);
        if (this.indent > indent) {
          lines?.push(this.line);
          seq.push(this.parseNode(this.indent, indent, false));
        } else {
          lines?.push(dashLine);
          seq.push(null);
        }
      } else {
        lines?.push(this.line);
        this.pos = p;
        seq.push(this.parseNode(p - this.lineStart, indent, true));
      }
      if (this.indent !== indent) {
        if (this.indent > indent) outside();
        break;
      }
      const q = this.pos;
      if (src.charCodeAt(q) !== DASH || !isBlankOrEnd(src.charCodeAt(q + 1))) break;
    }
    this.leave();
    return seq;
  }
}
