/**
 * Raw token spelling -> small id, looked up straight from a range of the
 * source text: hashing and comparing char codes in place means a token seen
 * before (nearly all of them) costs no string allocation, which is what made
 * indexing garbage-collector bound. Open addressing, linear probing.
 */
const EMPTY = -1;

/** `_ - ' .`: left out of a joined (whole-compound) token. */
function isSeparator(c: number): boolean {
  return c === 95 || c === 45 || c === 39 || c === 46;
}

export class TokenTable {
  /** Pairs (id, hash) side by side: a probe touches one cache line. */
  private slots: Int32Array = new Int32Array(2048).fill(EMPTY);
  private hashes: Int32Array = new Int32Array(256);
  private strings: string[] = [];

  get size(): number {
    return this.strings.length;
  }

  clear(): void {
    this.slots = new Int32Array(2048).fill(EMPTY);
    this.hashes = new Int32Array(256);
    this.strings = [];
  }

  /** Id of the token text[start, end) (separators skipped when `joined`), or -1. */
  find(text: string, start: number, end: number, joined: boolean): number {
    const hash = hashRange(text, start, end, joined);
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const id = slots[2 * at]!;
      if (id === EMPTY) return -1;
      if (slots[2 * at + 1] === hash && equalsRange(this.strings[id]!, text, start, end, joined)) return id;
    }
  }

  /** Adds a token known to be absent; returns its id. */
  add(token: string): number {
    const id = this.strings.length;
    const hash = hashRange(token, 0, token.length, false);
    if (id >= this.hashes.length) {
      const grown = new Int32Array(this.hashes.length * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[id] = hash;
    this.strings.push(token);
    // Load factor at most 1/2 (slots holds two numbers per entry).
    if ((id + 1) * 4 > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(id, hash);
    return id;
  }

  private place(id: number, hash: number): void {
    const mask = (this.slots.length >> 1) - 1;
    let at = hash & mask;
    while (this.slots[2 * at] !== EMPTY) at = (at + 1) & mask;
    this.slots[2 * at] = id;
    this.slots[2 * at + 1] = hash;
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size).fill(EMPTY);
    for (let id = 0; id < this.strings.length; id++) this.place(id, this.hashes[id]!);
  }
}

/** FNV-1a over the UTF-16 code units of the range. */
function hashRange(text: string, start: number, end: number, joined: boolean): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (joined && isSeparator(c)) continue;
    h = Math.imul(h ^ c, 0x01000193);
  }
  return h;
}

function equalsRange(token: string, text: string, start: number, end: number, joined: boolean): boolean {
  if (!joined) {
    if (token.length !== end - start) return false;
    for (let i = 0; i < token.length; i++) if (token.charCodeAt(i) !== text.charCodeAt(start + i)) return false;
    return true;
  }
  let j = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (isSeparator(c)) continue;
    if (j >= token.length || token.charCodeAt(j) !== c) return false;
    j++;
  }
  return j === token.length;
}
