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

type RNode =
  | { readonly k: "char"; readonly src: string }
  | { readonly k: "seq"; readonly items: RNode[] }
  | { readonly k: "alt"; readonly alts: RNode[] }
  | { readonly k: "group"; readonly body: RNode; readonly look: boolean }
  | { readonly k: "rep"; readonly body: RNode; readonly min: number; readonly max: number }
  | { readonly k: "assert" }
  | { readonly k: "backref" };

export type ScreenVerdict = { readonly safe: true } | { readonly safe: false; readonly reason: string };

const SAMPLES = [
  "a", "z", "A", "Z", "m", "0", "5", "9", "_", " ", "\t", "\n", "\r", "\u00a0", "-", ".", ",", ":", ";", "/",
  "\\", "\"", "'", "@", "#", "+", "*", "(", ")", "[", "]", "{", "}", "!", "?", "=", "<", ">", "|", "$", "^",
  "~", "`", "&", "%", "é", "ß", "Ω", "Ж", "中", "٣", "😀", "\u0000", "\u2028", "\uffff",
];

const MAX_GROUP_DEPTH = 64;

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

/** Lenient recursive-descent parser: the pattern already compiled, so syntax is trusted. */
class Parser {
  private i = 0;
  private depth = 0;
  tooDeep = false;
  constructor(private readonly p: string) {}

  parseAlternation(): RNode {
    const alts = [this.parseSequence()];
    while (this.p[this.i] === "|") {
      this.i++;
      alts.push(this.parseSequence());
    }
    return alts.length === 1 ? alts[0]! : { k: "alt", alts };
  }

  private parseSequence(): RNode {
    const items: RNode[] = [];
    while (this.i < this.p.length && this.p[this.i] !== "|" && this.p[this.i] !== ")") {
      const atom = this.parseAtom();
      items.push(this.parseQuantifier(atom));
    }
    return { k: "seq", items };
  }

  private parseQuantifier(atom: RNode): RNode {
    const c = this.p[this.i];
    let min = -1;
    let max = -1;
    if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i));
      if (m === null) return atom;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    if (this.p[this.i] === "?") this.i++;
    return { k: "rep", body: atom, min, max };
  }

  private parseAtom(): RNode {
    const start = this.i;
    const c = this.p[this.i]!;
    if (c === "(") {
      this.i++;
      if (++this.depth > MAX_GROUP_DEPTH) {
        // Stop descending; the caller refuses the pattern.
        this.tooDeep = true;
        this.i = this.p.length;
        return { k: "assert" };
      }
      let look = false;
      if (this.p[this.i] === "?") {
        const rest = this.p.slice(this.i);
        if (rest.startsWith("?:")) this.i += 2;
        else if (rest.startsWith("?=") || rest.startsWith("?!")) [this.i, look] = [this.i + 2, true];
        else if (rest.startsWith("?<=") || rest.startsWith("?<!")) [this.i, look] = [this.i + 3, true];
        else if (rest.startsWith("?<")) this.i = this.p.indexOf(">", this.i) + 1;
      }
      const body = this.parseAlternation();
      this.depth--;
      if (this.p[this.i] === ")") this.i++;
      return { k: "group", body, look };
    }
    if (c === "[") {
      this.i++;
      if (this.p[this.i] === "^") this.i++;
      if (this.p[this.i] === "]") this.i++;
      while (this.i < this.p.length && this.p[this.i] !== "]") this.i += this.p[this.i] === "\\" ? 2 : 1;
      this.i++;
      return { k: "char", src: this.p.slice(start, this.i) };
    }
    if (c === "^" || c === "$") {
      this.i++;
      return { k: "assert" };
    }
    if (c === "\\") return this.parseEscape(start);
    const cp = this.p.codePointAt(this.i)!;
    this.i += cp > 0xffff ? 2 : 1;
    return { k: "char", src: this.p.slice(start, this.i) };
  }

  private parseEscape(start: number): RNode {
    const e = this.p[this.i + 1] ?? "";
    this.i += 2;
    if (e === "b" || e === "B") return { k: "assert" };
    if (/[1-9]/.test(e)) {
      while (/[0-9]/.test(this.p[this.i] ?? "")) this.i++;
      return { k: "backref" };
    }
    if (e === "k") {
      this.i = this.p.indexOf(">", this.i) + 1;
      return { k: "backref" };
    }
    if ((e === "p" || e === "P") && this.p[this.i] === "{") this.i = this.p.indexOf("}", this.i) + 1;
    else if (e === "u" && this.p[this.i] === "{") this.i = this.p.indexOf("}", this.i) + 1;
    else if (e === "u") this.i += 4;
    else if (e === "x") this.i += 2;
    else if (e === "c") this.i += 1;
    else if (e.length > 0 && e.charCodeAt(0) >= 0xd800 && e.charCodeAt(0) <= 0xdbff) this.i += 1;
    return { k: "char", src: this.p.slice(start, this.i) };
  }
}
