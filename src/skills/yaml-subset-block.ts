/**
 * Block scalars (`|`, `>`, with `-`/`+` chomping) of the plain YAML subset,
 * built as the `yaml` package builds them. Explicit indentation indicators,
 * tabs at a line's start, whitespace-only lines deeper than the content,
 * more-indented lines in folded scalars and scalars without content leave
 * the subset.
 */
import { CR, HASH, LF, SP, TAB } from "./yaml-subset-cursor.js";
import { FlowParser } from "./yaml-subset-flow.js";
import { outside } from "./yaml-subset-scalars.js";

const CLIP = 0;
const STRIP = 1;
const KEEP = 2;

function newlines(n: number): string {
  return n === 0 ? "" : n === 1 ? "\n" : "\n".repeat(n);
}

export class BlockScalarParser extends FlowParser {
  /**
   * The block scalar whose header is at `p`, the value of a node inside a
   * block collection indented `parentIndent`; leaves `pos` at the next
   * content line.
   */
  protected parseBlockScalar(p: number, parentIndent: number): string {
    const src = this.src;
    const folded = src.charCodeAt(p) === 0x3e;
    let chomp = CLIP;
    let c = src.charCodeAt(++p);
    if (c === 0x2d) {
      chomp = STRIP;
      c = src.charCodeAt(++p);
    } else if (c === 0x2b) {
      chomp = KEEP;
      c = src.charCodeAt(++p);
    }
    // Indentation indicators and anything glued to the header.
    if (!(c === SP || c === TAB || c === LF || c === CR || c === HASH || p >= this.len)) outside();
    if (c === HASH) outside();
    this.endLine(p);

    const len = this.len;
    let value = "";
    let contentIndent = -1;
    let leadingBlank = 0;
    let leadingMax = 0;
    let pendingBlank = 0;
    let q = this.pos;
    while (q < len) {
      const lineStart = q;
      while (src.charCodeAt(q) === SP) q++;
      const k = q - lineStart;
      c = src.charCodeAt(q);
      if (c === LF || c === CR) {
        if (contentIndent < 0) {
          leadingBlank++;
          if (k > leadingMax) leadingMax = k;
        } else {
          if (k > contentIndent) outside();
          pendingBlank++;
        }
        q = src.indexOf("\n", q) + 1;
        this.line += 1;
        continue;
      }
      if (q >= len) {
        // Trailing spaces without a line break: no line of their own for the value.
        if (contentIndent >= 0 && k > contentIndent) outside();
        q = lineStart;
        break;
      }
      if (c === TAB) outside();
      if (contentIndent < 0) {
        if (k <= parentIndent || leadingMax > k) outside();
        contentIndent = k;
      } else if (k < contentIndent) {
        q = lineStart;
        break;
      }
      if (folded && k > contentIndent) outside();
      let nl = src.indexOf("\n", q);
      if (nl < 0) nl = len;
      const end = src.charCodeAt(nl - 1) === CR ? nl - 1 : nl;
      const text = src.slice(lineStart + contentIndent, end);
      if (leadingBlank >= 0) {
        value = newlines(leadingBlank) + text;
        leadingBlank = -1;
      } else if (folded) {
        value += (pendingBlank === 0 ? " " : newlines(pendingBlank)) + text;
      } else {
        value += newlines(pendingBlank + 1) + text;
      }
      pendingBlank = 0;
      if (nl >= len) {
        q = len;
        break;
      }
      q = nl + 1;
      this.line += 1;
    }
    if (contentIndent < 0) outside();
    if (chomp === CLIP) value += "\n";
    else if (chomp === KEEP) value += newlines(pendingBlank + 1);
    this.pos = q;
    this.lineStart = q;
    this.nextContentLine();
    return value;
  }
}
