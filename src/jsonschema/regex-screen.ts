/**
 * Static screen for patterns that backtrack catastrophically (SPEC §7). Run on patterns that
 * already compiled with the `u` flag. Refuses:
 *  - backreferences;
 *  - a repeated group holding a variable-length repetition (star height 2, `^(a+)+$`),
 *    unless every iteration contains a mandatory character that the inner repetitions can
 *    never match (`(?:-[a-z]+)*` is fine: the dash delimits iterations);
 *  - an alternation under a repetition whose alternatives can start with the same
 *    character (`(a|ab)*`, `(\r\n|\r|\n)*`).
 * Character sets are compared on a representative alphabet: the pattern's own characters
 * plus samples of every common class. Conservative by design: a refused safe pattern costs
 * a rewrite, an accepted unsafe one costs a hung daemon.
 */

import type { RNode } from "./regex-parse.js";
import { MAX_GROUP_DEPTH, Parser } from "./regex-parse.js";

export type ScreenVerdict = { readonly safe: true } | { readonly safe: false; readonly reason: string };

const SAMPLES = [
  "a", "z", "A", "Z", "m", "0", "5", "9", "_", " ", "\t", "\n", "\r", "\u00a0", "-", ".", ",", ":", ";", "/",
  "\\", "\"", "'", "@", "#", "+", "*", "(", ")", "[", "]", "{", "}", "!", "?", "=", "<", ">", "|", "$", "^",
  "~", "`", "&", "%", "é", "ß", "Ω", "Ж", "中", "٣", "😀", "\u0000", "\u2028", "\uffff",
];

export function screenPattern(pattern: string): ScreenVerdict {
  const parser = new Parser(pattern);
  const ast = parser.parseAlternation();
  if (parser.tooDeep) return { safe: false, reason: `groups nest deeper than ${MAX_GROUP_DEPTH} levels` };
  const alphabet = buildAlphabet(pattern);
  const sets = new CharsetCache(alphabet);
  const problem = inspect(ast, sets);
  return problem === null ? { safe: true } : { safe: false, reason: problem };
}

function inspect(node: RNode, sets: CharsetCache): string | null {
  switch (node.k) {
    case "backref":
      return "backreferences are not allowed";
    case "seq":
      for (const item of node.items) {
        const p = inspect(item, sets);
        if (p !== null) return p;
      }
      return null;
    case "alt":
      for (const alt of node.alts) {
        const p = inspect(alt, sets);
        if (p !== null) return p;
      }
      return null;
    case "group":
      return inspect(node.body, sets);
    case "rep": {
      if (node.max > 1) {
        const p = inspectRepeated(node.body, sets);
        if (p !== null) return p;
      }
      return inspect(node.body, sets);
    }
    default:
      return null;
  }
}

function inspectRepeated(body: RNode, sets: CharsetCache): string | null {
  const inner: RNode[] = [];
  collectVariableReps(body, inner);
  if (inner.length > 0) {
    const innerChars: string[] = [];
    for (const r of inner) collectChars(r, innerChars);
    const innerSet = sets.union(innerChars);
    const delimiters: string[] = [];
    collectMandatory(body, delimiters);
    const delimited = delimiters.some((d) => sets.disjoint(sets.of(d), innerSet));
    if (!delimited) return "nested quantifiers can backtrack exponentially";
  }
  const alts: RNode[] = [];
  collectAlternations(body, alts);
  for (const a of alts) {
    if (a.k !== "alt") continue;
    const firsts = a.alts.map((x) => {
      const chars: string[] = [];
      collectFirst(x, chars);
      return { set: sets.union(chars), nullable: nullable(x) };
    });
    for (let i = 0; i < firsts.length; i++) {
      if (firsts[i]!.nullable) return "an empty alternative under a quantifier can backtrack exponentially";
      for (let j = i + 1; j < firsts.length; j++) {
        if (!sets.disjoint(firsts[i]!.set, firsts[j]!.set)) {
          return "overlapping alternatives under a quantifier can backtrack exponentially";
        }
      }
    }
  }
  return null;
}

function collectVariableReps(node: RNode, out: RNode[]): void {
  switch (node.k) {
    case "rep":
      if (node.max > node.min || nullable(node.body)) out.push(node);
      collectVariableReps(node.body, out);
      return;
    case "seq":
      for (const i of node.items) collectVariableReps(i, out);
      return;
    case "alt":
      for (const a of node.alts) collectVariableReps(a, out);
      return;
    case "group":
      if (!node.look) collectVariableReps(node.body, out);
      return;
    default:
      return;
  }
}

function collectAlternations(node: RNode, out: RNode[]): void {
  switch (node.k) {
    case "alt":
      out.push(node);
      for (const a of node.alts) collectAlternations(a, out);
      return;
    case "seq":
      for (const i of node.items) collectAlternations(i, out);
      return;
    case "group":
      if (!node.look) collectAlternations(node.body, out);
      return;
    case "rep":
      collectAlternations(node.body, out);
      return;
    default:
      return;
  }
}

function collectChars(node: RNode, out: string[]): void {
  switch (node.k) {
    case "char":
      out.push(node.src);
      return;
    case "seq":
      for (const i of node.items) collectChars(i, out);
      return;
    case "alt":
      for (const a of node.alts) collectChars(a, out);
      return;
    case "group":
      if (!node.look) collectChars(node.body, out);
      return;
    case "rep":
      collectChars(node.body, out);
      return;
    default:
      return;
  }
}

/** Characters every match of the node must contain. */
function collectMandatory(node: RNode, out: string[]): void {
  switch (node.k) {
    case "char":
      out.push(node.src);
      return;
    case "seq":
      for (const i of node.items) collectMandatory(i, out);
      return;
    case "group":
      if (!node.look) collectMandatory(node.body, out);
      return;
    case "rep":
      if (node.min >= 1 && node.min === node.max) collectMandatory(node.body, out);
      return;
    default:
      return;
  }
}

function collectFirst(node: RNode, out: string[]): void {
  switch (node.k) {
    case "char":
      out.push(node.src);
      return;
    case "seq":
      for (const i of node.items) {
        collectFirst(i, out);
        if (!nullable(i)) return;
      }
      return;
    case "alt":
      for (const a of node.alts) collectFirst(a, out);
      return;
    case "group":
      if (!node.look) collectFirst(node.body, out);
      return;
    case "rep":
      collectFirst(node.body, out);
      return;
    default:
      return;
  }
}

function nullable(node: RNode): boolean {
  switch (node.k) {
    case "char":
      return false;
    case "seq":
      return node.items.every(nullable);
    case "alt":
      return node.alts.some(nullable);
    case "group":
      return node.look || nullable(node.body);
    case "rep":
      return node.min === 0 || nullable(node.body);
    default:
      return true;
  }
}

function buildAlphabet(pattern: string): string[] {
  const chars = new Set<string>(SAMPLES);
  for (const ch of pattern) chars.add(ch);
  const escapes = /\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})/g;
  for (const m of pattern.matchAll(escapes)) {
    const code = parseInt(m[1] ?? m[2] ?? m[3] ?? "0", 16);
    if (code <= 0x10ffff) chars.add(String.fromCodePoint(code));
  }
  return [...chars];
}

/** Membership of each atom over the alphabet, as a bit array. */
class CharsetCache {
  private readonly cache = new Map<string, Uint8Array>();
  constructor(private readonly alphabet: readonly string[]) {}

  of(src: string): Uint8Array {
    let set = this.cache.get(src);
    if (set !== undefined) return set;
    set = new Uint8Array(this.alphabet.length);
    let re: RegExp | null = null;
    try {
      re = new RegExp(`^(?:${src})$`, "u");
    } catch {
      re = null;
    }
    for (let i = 0; i < this.alphabet.length; i++) {
      // An atom we cannot evaluate alone is assumed to match everything (conservative).
      set[i] = re === null || re.test(this.alphabet[i]!) ? 1 : 0;
    }
    this.cache.set(src, set);
    return set;
  }

  union(srcs: readonly string[]): Uint8Array {
    const out = new Uint8Array(this.alphabet.length);
    for (const s of srcs) {
      const set = this.of(s);
      for (let i = 0; i < out.length; i++) out[i] = out[i]! | set[i]!;
    }
    return out;
  }

  disjoint(a: Uint8Array, b: Uint8Array): boolean {
    for (let i = 0; i < a.length; i++) if (a[i]! & b[i]!) return false;
    return true;
  }
}
