import { popcount } from "./bm25.js";
import type { TermList } from "./term-lists.js";
import type { TopK } from "./topk.js";

/** One derived term's main postings as the walk reads them. */
export interface Walked {
  readonly list: TermList;
  /** Multiplies each score: a kept list holds weight-1 sums that an expansion scales; 1 for a list built with the weight. */
  readonly scale: number;
  /** The query word it stands for (one bit); a plan lists each word's terms next to each other. */
  readonly source: number;
  readonly exact: number;
  readonly prefix: number;
}

/** Per-slot arrays a scorer keeps for its walks (sized to the store's slots). */
export interface WalkScratch {
  /** Query-word bits of the documents offered to the top k: only the kept ones are read back, so never cleared. */
  source: Int32Array;
  exact: Int32Array;
  prefix: Int32Array;
  /**
   * Per slot, side by side: the stamp of the last query word the document
   * was found to hold (stamps only grow, so never cleared either) and its
   * index in the list marked last.
   */
  mark: Int32Array;
  stamp: number;
}

export const END = 0x7fffffff;
/**
 * Bounds are sums of the lists' maxima taken in another order than a
 * document's own sum: a margin far above the rounding of 31 additions keeps
 * them upper bounds.
 */
export const SLACK = 1 + 1e-9;

/** First index at or after `from` whose slot is not below `slot` (galloping). */
export function seek(slots: Int32Array, from: number, slot: number): number {
  const n = slots.length;
  if (from >= n || slots[from]! >= slot) return from;
  let lo = from;
  let step = 1;
  while (lo + step < n && slots[lo + step]! < slot) {
    lo += step;
    step *= 2;
  }
  let hi = Math.min(n, lo + step);
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (slots[mid]! < slot) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The lists' arrays and read positions, and where each document's terms are gathered. */
export class Walk {
  readonly m: number;
  readonly slotsOf: Int32Array[];
  readonly scoresOf: Float64Array[];
  readonly scale: Float64Array;
  readonly source: Int32Array;
  /** scale * list.max: the most a list adds to any document. */
  readonly max: Float64Array;
  readonly pos: Int32Array;
  readonly contrib: Float64Array;
  /** Every query word a list stands for. */
  readonly all: number;

  constructor(
    readonly lists: readonly Walked[],
    readonly top: TopK,
    readonly ids: readonly string[],
    readonly accept: (id: string) => boolean,
    readonly scratch: WalkScratch,
  ) {
    this.m = lists.length;
    this.slotsOf = lists.map((w) => w.list.slots);
    this.scoresOf = lists.map((w) => w.list.scores);
    this.scale = Float64Array.from(lists, (w) => w.scale);
    this.source = Int32Array.from(lists, (w) => w.source);
    this.max = Float64Array.from(lists, (w) => w.scale * w.list.max);
    this.pos = new Int32Array(this.m);
    this.contrib = new Float64Array(this.m);
    this.all = this.source.reduce((a, b) => a | b, 0);
  }

  /** Looks list i up at `slot` from its read position on; returns the bit it sets in `present`. */
  probe(i: number, slot: number): number {
    const slots = this.slotsOf[i]!;
    const p = seek(slots, this.pos[i]!, slot);
    if (p < slots.length && slots[p] === slot) {
      this.contrib[i] = this.scale[i]! * this.scoresOf[i]![p]!;
      this.pos[i] = p + 1;
      return 1 << i;
    }
    this.pos[i] = p;
    return 0;
  }

  /**
   * Offers a document whose terms are gathered: its sum adds them in list
   * order, as per-slot accumulation does, so the score is the same to the bit.
   */
  offer(slot: number, present: number, words: number): void {
    const { m, contrib, top } = this;
    let sum = 0;
    for (let i = 0; i < m; i++) if (present & (1 << i)) sum += contrib[i]!;
    const score = sum * popcount(words);
    if (score >= top.floor && top.admits(score, slot) && this.accept(this.ids[slot]!)) this.keep(score, slot, present, words);
  }

  keep(score: number, slot: number, present: number, words: number): void {
    this.top.push(score, slot);
    let exact = 0;
    let prefix = 0;
    for (let i = 0; i < this.m; i++) {
      if (present & (1 << i)) {
        exact |= this.lists[i]!.exact;
        prefix |= this.lists[i]!.prefix;
      }
    }
    this.scratch.source[slot] = words;
    this.scratch.exact[slot] = exact;
    this.scratch.prefix[slot] = prefix;
  }
}
