/**
 * ECMAScript Unicode (`u`) patterns rewritten into the RE2 syntax re2js runs in linear time
 * (docs/jsonschema.md), keeping ECMA-262 meaning where the two dialects differ: `\s` and `.` name
 * ECMA's sets (RE2's are smaller), `\v`, `\0`, `\cX`, `\uXXXX`, `[\b]`, `[^]`, `[]` become
 * code points or explicit ranges, Unicode property escapes become the ranges V8 gives them
 * (regex-properties.ts), and capture groups become non-capturing (only a yes/no is asked). What a
 * finite automaton cannot run (backreferences, lookaround) is refused with the reason.
 *
 * Runs only on patterns `new RegExp(p, "u")` accepted, so the syntax is trusted: a u-mode
 * pattern has no octal escapes, no lone `{` `}` `]`, no identity escape of a letter, and
 * no class escape as a range bound.
 */
import { propertyEscape, type Ranges } from "./regex-properties.js";

export type Translation = { readonly ok: true; readonly source: string } | { readonly ok: false; readonly reason: string };

/** RE2's largest repetition count; a larger one is refused rather than rewritten. */
const MAX_REPEAT = 1000;

/** ECMA-262 WhiteSpace and LineTerminator: what `\s` matches (RE2's `\s` is [\t\n\f\r ]). */
const WHITESPACE: ReadonlyArray<readonly [number, number]> = [
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a],
  [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
];
/** What `.` matches without the `s` flag: everything but the line terminators. */
const LINE_TERMINATORS: ReadonlyArray<readonly [number, number]> = [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]];

class Refusal {
  constructor(readonly reason: string) {}
}

export function translatePattern(pattern: string): Translation {
  try {
    return { ok: true, source: new Translator(pattern).run() };
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, reason: e.reason };
    throw e;
  }
}

function hex(cp: number): string {
  return `\\x{${cp.toString(16)}}`;
}

/** A code point as RE2 source: ASCII letters and digits as they are, everything else by number. */
function literal(cp: number): string {
  return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp === 0x5f ? String.fromCharCode(cp) : hex(cp);
}

function rangesSource(ranges: Ranges): string {
  return ranges.map(([a, b]) => (a === b ? hex(a) : `${hex(a)}-${hex(b)}`)).join("");
}

/** The complement of sorted, disjoint ranges over all code points. */
function complement(ranges: ReadonlyArray<readonly [number, number]>): Array<readonly [number, number]> {
  const out: Array<readonly [number, number]> = [];
  let next = 0;
  for (const [a, b] of ranges) {
    if (a > next) out.push([next, a - 1]);
    next = b + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}

const NOT_WHITESPACE = complement(WHITESPACE);

class Translator {
  private i = 0;
  private out = "";
  constructor(private readonly p: string) {}

  run(): string {
    const p = this.p;
    while (this.i < p.length) {
      const c = p[this.i]!;
      if (c === "(") this.group();
      else if (c === "[") this.out += this.charClass();
      else if (c === "\\") this.out += this.atomEscape();
      else if (c === ".") {
        this.i++;
        this.out += `[^${rangesSource(LINE_TERMINATORS)}]`;
      } else if (c === "{") this.quantifierBraces();
      else if ("|)^$*+?".includes(c)) {
        this.out += c;
        this.i++;
      } else {
        const cp = p.codePointAt(this.i)!;
        this.i += cp > 0xffff ? 2 : 1;
        this.out += literal(cp);
      }
    }
    return this.out;
  }

  private group(): void {
    const rest = this.p.slice(this.i + 1, this.i + 4);
    if (rest.startsWith("?=") || rest.startsWith("?!")) throw new Refusal("lookahead assertions ((?= … ), (?! … )) cannot be matched in linear time");
    if (rest.startsWith("?<=") || rest.startsWith("?<!")) throw new Refusal("lookbehind assertions ((?<= … ), (?<! … )) cannot be matched in linear time");
    if (rest.startsWith("?:")) this.i += 3;
    else if (rest.startsWith("?<")) this.i = this.p.indexOf(">", this.i) + 1;
    else if (rest.startsWith("?")) throw new Refusal("this group syntax is not supported");
    else this.i += 1;
    // Captures are never read: a test only asks whether the pattern matches.
    this.out += "(?:";
  }

  private quantifierBraces(): void {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i));
    // u mode admits `{` only as a quantifier, so the match cannot fail.
    const text = m![0];
    for (const n of [m![1], m![3]]) {
      if (n !== undefined && n !== "" && Number(n) > MAX_REPEAT) throw new Refusal(`repetition counts above ${MAX_REPEAT} are not supported`);
    }
    this.out += text;
    this.i += text.length;
  }

  /** An escape outside a class. */
  private atomEscape(): string {
    const e = this.p[this.i + 1]!;
    if (e === "b" || e === "B") {
      // Same ASCII word characters in both dialects (no `i` flag here).
      this.i += 2;
      return `\\${e}`;
    }
    if (/[1-9]/.test(e) || e === "k") throw new Refusal("backreferences cannot be matched in linear time");
    if (e === "s" || e === "S") {
      this.i += 2;
      return `[${rangesSource(e === "s" ? WHITESPACE : NOT_WHITESPACE)}]`;
    }
    if (e === "p" || e === "P") {
      const ranges = this.property();
      return ranges.length === 0 ? `[^${hex(0)}-${hex(0x10ffff)}]` : `[${rangesSource(ranges)}]`;
    }
    return this.commonEscape();
  }

  /** Escapes with one meaning in and out of classes: class escapes and single code points. */
  private commonEscape(): string {
    const e = this.p[this.i + 1]!;
    if (e === "d" || e === "D" || e === "w" || e === "W") {
      // ASCII in both dialects without the `i` flag.
      this.i += 2;
      return `\\${e}`;
    }
    return literal(this.escapedCodePoint());
  }

  /**
   * `\\p{…}` / `\\P{…}` as the code points V8 gives it (regex-properties.ts), so re2js's
   * own Unicode tables (another version, fewer properties) never decide.
   */
  private property(): Ranges {
    const found = propertyEscape(this.p, this.i);
    // V8 accepted the pattern, so it accepts the escape: no refusal is reachable here.
    if (found === null) throw new Refusal("this Unicode property escape is not supported");
    this.i = found.end;
    return found.ranges;
  }

  /** A single-code-point escape (the caller handled class escapes and assertions). */
  private escapedCodePoint(): number {
    const p = this.p;
    const fixed = fixedEscape(p, this.i);
    if (fixed !== null) {
      this.i = fixed.end;
      return fixed.cp;
    }
    const e = p[this.i + 1]!;
    this.i += 2;
    switch (e) {
      case "c": return p.charCodeAt(this.i++) % 32;
      case "u": {
        if (p[this.i] === "{") {
          const end = p.indexOf("}", this.i);
          const cp = parseInt(p.slice(this.i + 1, end), 16);
          this.i = end + 1;
          return cp;
        }
        const hi = parseInt(p.slice(this.i, this.i + 4), 16);
        this.i += 4;
        // u mode reads an escaped surrogate pair as the one code point it encodes.
        if (hi >= 0xd800 && hi <= 0xdbff && /^\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(p.slice(this.i, this.i + 6))) {
          const lo = parseInt(p.slice(this.i + 2, this.i + 6), 16);
          this.i += 6;
          return 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
        }
        return hi;
      }
      default: {
        // An identity escape of a syntax character (or `-` in a class): the character itself.
        const cp = p.codePointAt(this.i - 1)!;
        if (cp > 0xffff) this.i++;
        return cp;
      }
    }
  }

  private charClass(): string {
    const p = this.p;
    this.i++;
    const negated = p[this.i] === "^";
    if (negated) this.i++;
    let body = "";
    while (p[this.i] !== "]") {
      const first = this.classAtom();
      if (typeof first === "number" && p[this.i] === "-" && p[this.i + 1] !== "]") {
        // A range: u mode puts a single code point on both sides.
        this.i++;
        body += `${literal(first)}-${literal(this.classAtom() as number)}`;
      } else body += typeof first === "number" ? literal(first) : first;
    }
    this.i++;
    // `[]` matches nothing and `[^]` anything; RE2 has no empty class syntax.
    if (body === "") return negated ? `[${hex(0)}-${hex(0x10ffff)}]` : `[^${hex(0)}-${hex(0x10ffff)}]`;
    return `[${negated ? "^" : ""}${body}]`;
  }

  /** One member of a class: a code point, or a set's source (class escapes). */
  private classAtom(): number | string {
    const p = this.p;
    if (p[this.i] !== "\\") {
      const cp = p.codePointAt(this.i)!;
      this.i += cp > 0xffff ? 2 : 1;
      return cp;
    }
    const e = p[this.i + 1]!;
    if (e === "s" || e === "S") {
      this.i += 2;
      return rangesSource(e === "s" ? WHITESPACE : NOT_WHITESPACE);
    }
    if (e === "b") {
      // Backspace inside a class.
      this.i += 2;
      return 0x08;
    }
    if (e === "p" || e === "P") return rangesSource(this.property());
    if ("dDwW".includes(e)) return this.commonEscape();
    return this.escapedCodePoint();
  }
}

/**
 * The ECMA-262 escapes that stand for one fixed code point (`\t` … `\0`,
 * `\xHH`), shared by the pattern translator and the linear-class check,
 * which must read them alike.
 */
const SINGLE_CODE_POINT_ESCAPES: ReadonlyMap<string, number> = new Map([
  ["t", 0x09],
  ["n", 0x0a],
  ["v", 0x0b],
  ["f", 0x0c],
  ["r", 0x0d],
  ["0", 0x00],
]);

/** The escape whose backslash is at `p[i]`: its code point and where it ends, or null when it is not a fixed one. */
export function fixedEscape(p: string, i: number): { readonly cp: number; readonly end: number } | null {
  const e = p[i + 1]!;
  const cp = SINGLE_CODE_POINT_ESCAPES.get(e);
  if (cp !== undefined) return { cp, end: i + 2 };
  return e === "x" ? { cp: parseInt(p.slice(i + 2, i + 4), 16), end: i + 4 } : null;
}
