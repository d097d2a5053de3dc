/**
 * Flow collections (`[a, b]`, `{k: v}`) of the plain YAML subset, nested and
 * spread over lines, with plain or quoted scalars inside. Multi-line plain
 * scalars, implicit pairs in sequences (`[a: b]`), empty entries and keys
 * that are collections leave the subset.
 */
import {
  COLON,
  COMMA,
  CR,
  Cursor,
  DASH,
  DOT,
  DQUOTE,
  HASH,
  isBlankOrEnd,
  isFlowIndicator,
  LBRACE,
  LBRACKET,
  LF,
  MAX_KEY_SPAN,
  RBRACE,
  RBRACKET,
  SP,
  SQUOTE,
  Stop,
  TAB,
} from "./yaml-subset-cursor.js";
import { outside, resolvePlain, setKey } from "./yaml-subset-scalars.js";

export class FlowParser extends Cursor {
  /** Set by the root mapping just before its `recipes` value: if that value is a sequence, it records its items' lines. */
  protected trackNext = false;
  /** 1-based line of each item of the root `recipes` sequence. */
  recipeLines: number[] | null = null;

  /** Every collection calls this on entry, so only the direct value of `recipes` can take the request. */
  protected claimLines(): number[] | null {
    if (!this.trackNext) return null;
    this.trackNext = false;
    const lines: number[] = [];
    this.recipeLines = lines;
    return lines;
  }

  /** Refuses a plain scalar starting at `p` with an indicator or anything else the subset leaves to the exact parser. */
  protected vetPlainStart(p: number, inFlow: boolean): void {
    const c = this.src.charCodeAt(p);
    // Letters and digits: by far the most common, never an indicator.
    const lower = c | 0x20;
    if ((lower >= 0x61 && lower <= 0x7a) || (c >= 0x30 && c <= 0x39)) return;
    switch (c) {
      case DASH: {
        const n = this.src.charCodeAt(p + 1);
        if (isBlankOrEnd(n) || (inFlow && isFlowIndicator(n))) outside();
        return;
      }
      case 0x3f: // ?
      case COLON:
      case COMMA:
      case LBRACKET:
      case RBRACKET:
      case LBRACE:
      case RBRACE:
      case HASH:
      case 0x26: // &
      case 0x2a: // *
      case 0x21: // !
      case 0x7c: // |
      case 0x3e: // >
      case SQUOTE:
      case DQUOTE:
      case 0x25: // %
      case 0x40: // @
      case 0x60: // `
        outside();
        break;
      default:
        // Control characters, white space, end of text (NaN).
        if (!(c > SP)) outside();
    }
  }

  /** A flow collection at `pos` (`[` or `{`) inside a block node indented `blockIndent`; leaves `pos` after its close. */
  protected parseFlow(blockIndent: number): unknown {
    const src = this.src;
    const isSeq = src.charCodeAt(this.pos) === LBRACKET;
    const lines = isSeq ? this.claimLines() : null;
    this.trackNext = false;
    this.enter();
    const close = isSeq ? RBRACKET : RBRACE;
    const seq: unknown[] | null = isSeq ? [] : null;
    const map: Record<string, unknown> | null = isSeq ? null : {};
    this.pos += 1;
    for (;;) {
      this.skipFlowSpace(blockIndent);
      let c = src.charCodeAt(this.pos);
      if (c === close) break;
      if (seq !== null) {
        lines?.push(this.line);
        seq.push(this.flowItem(blockIndent));
      } else {
        this.flowPair(map!, blockIndent);
      }
      this.skipFlowSpace(blockIndent);
      c = src.charCodeAt(this.pos);
      if (c === COMMA) {
        this.pos += 1;
        continue;
      }
      if (c === close) break;
      outside();
    }
    this.pos += 1;
    this.leave();
    return seq ?? map;
  }

  private flowItem(blockIndent: number): unknown {
    const src = this.src;
    const start = this.pos;
    const c = src.charCodeAt(start);
    if (c === LBRACKET || c === LBRACE) return this.parseFlow(blockIndent);
    if (c === SQUOTE || c === DQUOTE) return this.parseQuoted(start);
    this.vetPlainStart(start, true);
    const end = this.scanPlain(start, true);
    return resolvePlain(src.slice(start, end));
  }

  /** `key: value`, `key:` or a lone `key` in a flow mapping. */
  private flowPair(map: Record<string, unknown>, blockIndent: number): void {
    const src = this.src;
    const keyStart = this.pos;
    let c = src.charCodeAt(keyStart);
    let key: string;
    const quoted = c === SQUOTE || c === DQUOTE;
    if (quoted) {
      key = this.parseQuoted(keyStart);
    } else {
      this.vetPlainStart(keyStart, true);
      const end = this.scanPlain(keyStart, true);
      // A key running into a comment or the next line is an implicit multi-line key.
      if (this.stop === Stop.Eol || this.stop === Stop.Comment) outside();
      key = this.plainKeyAt(keyStart, end);
    }
    let p = this.pos;
    c = src.charCodeAt(p);
    while (c === SP || c === TAB) c = src.charCodeAt(++p);
    let value: unknown = null;
    if (c === COLON) {
      if (p - keyStart > MAX_KEY_SPAN) outside();
      const n = src.charCodeAt(p + 1);
      this.pos = p + 1;
      if (isBlankOrEnd(n)) {
        this.skipFlowSpace(blockIndent);
        const v = src.charCodeAt(this.pos);
        if (v !== COMMA && v !== RBRACE) value = this.flowItem(blockIndent);
      } else if (quoted && n !== COMMA && n !== RBRACE) {
        // JSON-like `"key":value`.
        value = this.flowItem(blockIndent);
      } else {
        outside();
      }
    } else if (c === COMMA || c === RBRACE) {
      this.pos = p;
    } else {
      outside();
    }
    setKey(map, key, value);
  }

  /**
   * White space, comments and line breaks between flow tokens. A non-blank
   * continuation line must be indented deeper than the enclosing block node.
   */
  private skipFlowSpace(blockIndent: number): void {
    const src = this.src;
    let p = this.pos;
    // The common case: a few spaces, then the next token on the same line.
    let first = src.charCodeAt(p);
    while (first === SP) first = src.charCodeAt(++p);
    if (first > SP && first !== HASH) {
      this.pos = p;
      return;
    }
    for (;;) {
      const c = src.charCodeAt(p);
      if (c === SP || c === TAB || c === CR) {
        p++;
      } else if (c === HASH) {
        const prev = src.charCodeAt(p - 1);
        if (p !== this.lineStart && prev !== SP && prev !== TAB) outside();
        const nl = src.indexOf("\n", p);
        if (nl < 0) outside();
        p = nl;
      } else if (c === LF) {
        p++;
        this.line += 1;
        this.lineStart = p;
        let q = p;
        while (src.charCodeAt(q) === SP) q++;
        const d = src.charCodeAt(q);
        if (d === TAB) outside();
        if (d !== LF && d !== CR && q < this.len) {
          if (q - p <= blockIndent) outside();
          if (q === p && (d === DASH || d === DOT) && src.charCodeAt(q + 1) === d && src.charCodeAt(q + 2) === d) outside();
        }
        p = q;
      } else {
        break;
      }
    }
    this.pos = p;
  }
}
