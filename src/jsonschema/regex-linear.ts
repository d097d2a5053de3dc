/**
 * Patterns V8's own (backtracking) engine provably runs in linear time, so they need not pay
 * re2js's ~1 µs a call and ~150 ns a character (bench:jsonschema, pattern-heavy). Not a
 * heuristic screen: a syntactic class with a proof, and everything outside it goes to re2js.
 *
 * The class: a sequence of atoms that each match exactly one code point (a character, an
 * escape, a class, `.`, `\d` …), each with an optional greedy quantifier; a group of
 * alternatives that are fixed sequences of such atoms starting with pairwise disjoint sets
 * (`(Face|Edge|Vertex)`, no quantifier on it); a group of quantified atoms, plain or optional
 * (`(?:-[0-9a-z]+)?`, holding a mandatory atom); optionally opened by `^` and closed by `$`;
 * nothing nested, no assertions. A Unicode property escape is a class of the code points V8
 * gives it (regex-properties.ts). It is deterministic: at every choice
 * point (a variable atom; an optional group: enter or skip) the set it may consume is disjoint
 * from every atom the other side can consume first, up to the first mandatory atom (an
 * alternation counts by its first sets, an optional group by its atoms up to its first
 * mandatory one), and at most one alternative can start. Then at every choice point of the backtracking search
 * ("one more" or "move on") at most one side can consume the next character, so a failing
 * side fails within one pass over the atoms, and a match attempt costs O(n · atoms).
 * A pattern with a variable atom must open with `^` (no `m` flag here), so there is one
 * attempt, not one per start position; one without must be short (FIXED_UNANCHORED), so
 * each of the n attempts is short.
 */
import { fixedEscape } from "./regex-translate.js";
import { propertyEscape } from "./regex-properties.js";

type Ranges = Array<readonly [number, number]>;

interface Atom {
  /** For a group: the union of its alternatives' first sets. */
  readonly set: Ranges;
  readonly min: number;
  readonly max: number;
  /** Code points it consumes when it matches once (a group: its longest alternative). */
  readonly width: number;
  /** 0 at the top level; k > 0 inside the k-th optional group `(?:…)?`. */
  readonly group: number;
}

/** Longest fixed-length unanchored pattern admitted: n attempts of this many steps each. */
const FIXED_UNANCHORED = 64;

/** Longest fixed tail after an overlapping variable atom (fixedTail): n retries of this many steps. */
const FIXED_TAIL = 16;

const DIGIT: Ranges = [[0x30, 0x39]];
const WORD: Ranges = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
const SPACE: Ranges = [
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a],
  [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
];
const DOT_EXCLUDES: Ranges = [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]];

function normalise(r: Ranges): Ranges {
  const s = [...r].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [a, b] of s) {
    const last = out[out.length - 1];
    if (last !== undefined && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

function complement(r: Ranges): Ranges {
  const out: Ranges = [];
  let next = 0;
  for (const [a, b] of normalise(r)) {
    if (a > next) out.push([next, a - 1]);
    next = b + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}

function disjoint(x: Ranges, y: Ranges): boolean {
  for (const [a, b] of x) for (const [c, d] of y) if (a <= d && c <= b) return false;
  return true;
}

/** Thrown inside the parser when the pattern is outside the class. */
class Outside {}

class AtomParser {
  i = 0;
  private groups = 0;
  /** Groups quantified by `*` or `+`: after their last atom they may start again. */
  readonly loops = new Set<number>();
  constructor(private readonly p: string) {}

  atoms(): Atom[] {
    const out: Atom[] = [];
    const p = this.p;
    while (this.i < p.length) {
      if (p[this.i] === "$" && this.i === p.length - 1) break;
      if (p[this.i] === "(") {
        const start = this.i;
        const sequence = this.sequenceGroup();
        if (sequence !== null) out.push(...sequence);
        else {
          this.i = start;
          out.push(this.group());
        }
        continue;
      }
      const set = this.atom();
      const [min, max] = this.quantifier();
      out.push({ set, min, max, width: 1, group: 0 });
    }
    return out;
  }

  /**
   * `(?:…)` / `(…)` holding a sequence of quantified atoms: inline when unquantified, an
   * optional group when followed by `?`; null when it holds an alternation (see group).
   */
  private sequenceGroup(): Atom[] | null {
    const p = this.p;
    this.i += p.startsWith("(?:", this.i) ? 3 : 1;
    if (p[this.i] === "?") throw new Outside();
    const inner: Array<{ set: Ranges; min: number; max: number }> = [];
    while (p[this.i] !== ")") {
      if (p[this.i] === "|") return null;
      const set = this.atom();
      const [min, max] = this.quantifier();
      inner.push({ set, min, max });
    }
    this.i++;
    if (inner.length === 0) throw new Outside();
    const q = p[this.i];
    if (q !== "?" && q !== "*" && q !== "+") {
      if (q === "{") throw new Outside();
      return inner.map((a) => ({ ...a, width: 1, group: 0 }));
    }
    this.i++;
    if (p[this.i] === "?") throw new Outside();
    const group = ++this.groups;
    // `+` is proved as `*`: its one mandatory pass only removes a choice.
    if (q !== "?") this.loops.add(group);
    return inner.map((a) => ({ ...a, width: 1, group }));
  }

  /** `(a|b…)` / `(?:a|b…)` of fixed sequences with disjoint first sets, unquantified. */
  private group(): Atom {
    const p = this.p;
    this.i += p.startsWith("(?:", this.i) ? 3 : 1;
    if (p[this.i] === "?") throw new Outside();
    const firsts: Ranges[] = [];
    let width = 0;
    let n = 0;
    for (;;) {
      const c = p[this.i];
      if (c === "|" || c === ")") {
        if (n === 0) throw new Outside();
        width = Math.max(width, n);
        n = 0;
        this.i++;
        if (c === ")") break;
        continue;
      }
      const set = this.atom();
      if (n === 0) {
        for (const f of firsts) if (!disjoint(f, set)) throw new Outside();
        firsts.push(set);
      }
      n++;
    }
    if (this.i < p.length && "*+?{".includes(p[this.i]!)) throw new Outside();
    return { set: normalise(firsts.flat()), min: 1, max: 1, width, group: 0 };
  }

  private atom(): Ranges {
    const p = this.p;
    const c = p[this.i]!;
    if ("()|^$*+?{}]".includes(c)) throw new Outside();
    if (c === ".") {
      this.i++;
      return complement(DOT_EXCLUDES);
    }
    if (c === "[") return this.charClass();
    if (c === "\\") {
      const set = this.classEscape();
      if (set !== null) return set;
      const cp = this.escapedCodePoint(false);
      return [[cp, cp]];
    }
    const cp = p.codePointAt(this.i)!;
    this.i += cp > 0xffff ? 2 : 1;
    return [[cp, cp]];
  }

  private classEscape(): Ranges | null {
    const e = this.p[this.i + 1]!;
    if (e === "p" || e === "P") {
      // One code point of a set V8 defines, like a class (regex-properties.ts).
      const found = propertyEscape(this.p, this.i);
      if (found === null) throw new Outside();
      this.i = found.end;
      return [...found.ranges];
    }
    const base = e === "d" || e === "D" ? DIGIT : e === "w" || e === "W" ? WORD : e === "s" || e === "S" ? SPACE : null;
    if (base === null) return null;
    this.i += 2;
    return e === e.toUpperCase() ? complement(base) : base;
  }

  private escapedCodePoint(inClass: boolean): number {
    const fixed = fixedEscape(this.p, this.i);
    const e = this.p[this.i + 1]!;
    this.i = fixed?.end ?? this.i + 2;
    if (fixed !== null) return fixed.cp;
    switch (e) {
      case "b":
        if (inClass) return 0x08;
        throw new Outside();
      case "u":
      case "c":
      case "B":
      case "k":
        // Surrogate-pair and braced forms, controls, assertions, backreferences:
        // rare in schemas, left to re2js rather than modelled here.
        throw new Outside();
      default:
        if (/[1-9]/.test(e)) throw new Outside();
        return this.p.codePointAt(this.i - 1)!;
    }
  }

  private charClass(): Ranges {
    const p = this.p;
    this.i++;
    const negated = p[this.i] === "^";
    if (negated) this.i++;
    const parts: Ranges = [];
    while (p[this.i] !== "]") {
      const first = this.classAtom();
      if (typeof first === "number" && p[this.i] === "-" && p[this.i + 1] !== "]") {
        this.i++;
        const last = this.classAtom() as number;
        parts.push([first, last]);
      } else if (typeof first === "number") parts.push([first, first]);
      else parts.push(...first);
    }
    this.i++;
    return negated ? complement(parts) : normalise(parts);
  }

  private classAtom(): number | Ranges {
    const p = this.p;
    if (p[this.i] !== "\\") {
      const cp = p.codePointAt(this.i)!;
      this.i += cp > 0xffff ? 2 : 1;
      return cp;
    }
    return this.classEscape() ?? this.escapedCodePoint(true);
  }

  /** [min, max] of a greedy quantifier; a lazy one is outside (never seen in schemas). */
  private quantifier(): [number, number] {
    const p = this.p;
    const c = p[this.i];
    let q: [number, number];
    if (c === "*") q = [0, Infinity];
    else if (c === "+") q = [1, Infinity];
    else if (c === "?") q = [0, 1];
    else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(this.i))!;
      this.i += m[0].length - 1;
      q = [Number(m[1]), m[2] === undefined ? Number(m[1]) : m[3] === "" ? Infinity : Number(m[3])];
    } else return [1, 1];
    this.i++;
    if (p[this.i] === "?") throw new Outside();
    return q;
  }
}

/**
 * Whether `set` is disjoint from every atom a choice point at `from` can reach before
 * consuming a mandatory one: the scan stops at a mandatory atom of the top level or of the
 * choice's own group (`view`); a mandatory atom of another optional group ends the scan of
 * that group only (the rest of it is reached through that atom), and the scan goes on after it.
 */
function followersDisjoint(atoms: readonly Atom[], from: number, set: Ranges, view: number): boolean {
  let skipped = -1;
  for (let j = from; j < atoms.length; j++) {
    const b = atoms[j]!;
    if (b.group !== 0 && b.group === skipped) continue;
    if (!disjoint(set, b.set)) return false;
    if (b.min >= 1) {
      if (b.group === 0 || b.group === view) return true;
      skipped = b.group;
    }
  }
  return true;
}

/**
 * Whether the atoms from `from` on are a short fixed tail: no choice point but alternations
 * (decided by their first character), at most FIXED_TAIL code points. The one variable atom
 * before such a tail may overlap it (`^[a-z0-9_]*_MTL$`): it gives back one character at a
 * time, each retry costs one pass over the tail, and the choice points before it stay
 * deterministic, so the attempt is O(n · FIXED_TAIL).
 */
function fixedTail(atoms: readonly Atom[], from: number): boolean {
  let width = 0;
  for (let j = from; j < atoms.length; j++) {
    const b = atoms[j]!;
    if (b.group !== 0 || b.min !== b.max) return false;
    width += b.min * b.width;
  }
  return width <= FIXED_TAIL;
}

/**
 * Whether the variable atom at `i` overlaps nothing but a short fixed tail: at the top level,
 * everything after it is that tail; in a group, the group's own atoms after it are disjoint
 * from it and everything after the group is that tail. Each character it gives back then
 * costs one pass over the tail, a dead end with no choice point of its own, and the choices
 * before it stay deterministic.
 */
function overlapsOnlyTail(atoms: readonly Atom[], i: number): boolean {
  const a = atoms[i]!;
  if (a.group === 0) return fixedTail(atoms, i + 1);
  let end = i;
  while (end + 1 < atoms.length && atoms[end + 1]!.group === a.group) {
    end++;
    if (!disjoint(a.set, atoms[end]!.set)) return false;
  }
  return fixedTail(atoms, end + 1);
}

/** Whether group `atoms[i].group` has a mandatory atom after position i. */
function mandatoryAfter(atoms: readonly Atom[], i: number): boolean {
  for (let j = i + 1; j < atoms.length && atoms[j]!.group === atoms[i]!.group; j++) if (atoms[j]!.min >= 1) return true;
  return false;
}

/** What a pass through `group` can consume first: its atoms up to its first mandatory one. */
function firstOfGroup(atoms: readonly Atom[], group: number): Ranges {
  const out: Ranges = [];
  for (const a of atoms) {
    if (a.group !== group) continue;
    out.push(...a.set);
    if (a.min >= 1) break;
  }
  return out;
}

/** True when V8 runs `pattern` (already accepted with the `u` flag) in linear time, by the proof above. */
export function linearOnBacktracking(pattern: string): boolean {
  const anchored = pattern.startsWith("^");
  const parser = new AtomParser(pattern);
  if (anchored) parser.i = 1;
  let atoms: Atom[];
  try {
    atoms = parser.atoms();
  } catch (e) {
    if (e instanceof Outside) return false;
    throw e;
  }
  let variable = false;
  let length = 0;
  for (let i = 0; i < atoms.length; i++) {
    const a = atoms[i]!;
    length += a.min * a.width;
    if (a.group !== 0 && (i === 0 || atoms[i - 1]!.group !== a.group)) {
      // The group's own choice point: enter it (its first set) or skip past it.
      variable = true;
      let end = i;
      while (end + 1 < atoms.length && atoms[end + 1]!.group === a.group) end++;
      const first: Ranges = [];
      let mandatory = false;
      for (let k = i; k <= end && !mandatory; k++) {
        first.push(...atoms[k]!.set);
        mandatory = atoms[k]!.min >= 1;
      }
      // A group that can match empty nests one optional loop in another: not modelled.
      // Overlapping only a fixed tail, skipping the group costs one pass over the tail.
      if (!mandatory || (!followersDisjoint(atoms, end + 1, first, 0) && !fixedTail(atoms, end + 1))) return false;
    }
    if (a.min === a.max) continue;
    variable = true;
    if (!followersDisjoint(atoms, i + 1, a.set, a.group) && !overlapsOnlyTail(atoms, i)) return false;
    // In a loop with no mandatory atom after this one, the next pass may start right here.
    if (parser.loops.has(a.group) && !mandatoryAfter(atoms, i) && !disjoint(a.set, firstOfGroup(atoms, a.group))) return false;
  }
  return variable ? anchored : anchored || length <= FIXED_UNANCHORED;
}
