import { fuzzyScan } from "./fuzzy.js";

/**
 * Term dictionary: processed term <-> dense id, plus the terms in code-unit
 * order for prefix ranges and the fuzzy scan. New terms go to an unsorted
 * tail that is merged in the first time an expansion needs the order, so a
 * bulk load sorts once and a hot reload merges a handful.
 */
export class TermDictionary {
  private ids = new Map<string, number>();
  private texts: string[] = [];
  /** Ids in code-unit order of their text; covers every id below `sortedUpTo`. */
  private sorted = new Uint32Array(0);
  private sortedUpTo = 0;

  get count(): number {
    return this.texts.length;
  }

  id(term: string): number | undefined {
    return this.ids.get(term);
  }

  text(id: number): string {
    return this.texts[id]!;
  }

  /** The id of `term`, adding it when new. */
  intern(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.texts.length;
      this.ids.set(term, id);
      this.texts.push(term);
    }
    return id;
  }

  /**
   * Keeps only the ids `keep` accepts, renumbered densely in their old order;
   * returns old id -> new id (-1 = dropped).
   */
  retain(keep: (id: number) => boolean): Int32Array {
    const map = new Int32Array(this.texts.length).fill(-1);
    const texts: string[] = [];
    const ids = new Map<string, number>();
    for (let id = 0; id < this.texts.length; id++) {
      if (!keep(id)) continue;
      map[id] = texts.length;
      ids.set(this.texts[id]!, texts.length);
      texts.push(this.texts[id]!);
    }
    // Renumbering keeps id order, so the sorted prefix stays sorted and the
    // unsorted tail (the highest ids) stays the tail.
    let n = 0;
    const sorted = new Uint32Array(this.sortedUpTo);
    for (let i = 0; i < this.sortedUpTo; i++) {
      const to = map[this.sorted[i]!]!;
      if (to >= 0) sorted[n++] = to;
    }
    this.texts = texts;
    this.ids = ids;
    this.sorted = sorted.subarray(0, n);
    this.sortedUpTo = n;
    return map;
  }

  /** Merges terms added since the last call into the sorted order. */
  ensureSorted(): void {
    if (this.sortedUpTo === this.texts.length) return;
    const base = this.sorted.subarray(0, this.sortedUpTo);
    const tail: number[] = [];
    for (let id = this.sortedUpTo; id < this.texts.length; id++) tail.push(id);
    const texts = this.texts;
    tail.sort((a, b) => (texts[a]! < texts[b]! ? -1 : 1));
    const merged = new Uint32Array(base.length + tail.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < base.length && j < tail.length) merged[k++] = texts[base[i]!]! < texts[tail[j]!]! ? base[i++]! : tail[j++]!;
    while (i < base.length) merged[k++] = base[i++]!;
    while (j < tail.length) merged[k++] = tail[j++]!;
    this.sorted = merged;
    this.sortedUpTo = this.texts.length;
  }

  /** Calls `visit` for every term that starts with `prefix` (itself included), in order. */
  withPrefix(prefix: string, visit: (id: number, text: string) => void): void {
    this.ensureSorted();
    const { sorted, texts } = this;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (texts[sorted[mid]!]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < sorted.length; i++) {
      const text = texts[sorted[i]!]!;
      if (!text.startsWith(prefix)) break;
      visit(sorted[i]!, text);
    }
  }

  /** Terms within `maxDistance` Levenshtein edits (UTF-16 code units) of `query`. */
  fuzzy(query: string, maxDistance: number, visit: (id: number, text: string, distance: number) => void): void {
    this.ensureSorted();
    fuzzyScan(this.sorted, this.texts, query, maxDistance, visit);
  }
}
