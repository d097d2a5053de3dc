/** A small parser for ECMAScript Unicode regexes, enough for the safety screen in regex-screen.ts. */

export type RNode =
  | { readonly k: "char"; readonly src: string }
  | { readonly k: "seq"; readonly items: RNode[] }
  | { readonly k: "alt"; readonly alts: RNode[] }
  | { readonly k: "group"; readonly body: RNode; readonly look: boolean }
  | { readonly k: "rep"; readonly body: RNode; readonly min: number; readonly max: number }
  | { readonly k: "assert" }
  | { readonly k: "backref" };

/** Deeper group nesting is refused rather than parsed. */
export const MAX_GROUP_DEPTH = 64;

/** Lenient recursive-descent parser: the pattern already compiled, so syntax is trusted. */
export class Parser {
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
