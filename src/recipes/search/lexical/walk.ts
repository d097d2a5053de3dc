import { popcount } from "./bm25.js";
import { type TermList } from "./plan.js";

/**
 * The best `k` of a stream of (slot, score), ranked by score and then by id
 * (ascending), without sorting the stream: a min-heap whose root is the
 * weakest kept entry.
 */
export class TopK {
  private readonly slots: number[] = [];
  private readonly scores: number[] = [];
  /** Score of the weakest kept entry once k are kept (-Infinity before): anything below it cannot enter. */
  floor = -Infinity;

  /**
   * `ids` by slot; slots below `ordered` have their position in id order in
   * `rank`, so two of them compare as numbers.
   */
  constructor(
    private readonly k: number,
    private readonly ids: readonly string[],
    private readonly ordered = 0,
    private readonly rank: Int32Array = new Int32Array(0),
  ) {}

  /** a ranks below b. */
  private below(scoreA: number, slotA: number, scoreB: number, slotB: number): boolean {
    if (scoreA !== scoreB) return scoreA < scoreB;
    if (slotA < this.ordered && slotB < this.ordered) return this.rank[slotA]! > this.rank[slotB]!;
    return this.ids[slotA]! > this.ids[slotB]!;
  }

  /** Whether an entry with this score would be kept (cheap test before the caller's filter). */
  admits(score: number, slot: number): boolean {
    return this.slots.length < this.k || this.below(this.scores[0]!, this.slots[0]!, score, slot);
  }

  push(score: number, slot: number): void {
    const { slots, scores } = this;
    if (slots.length < this.k) {
      slots.push(slot);
      scores.push(score);
      this.up(slots.length - 1);
      if (slots.length === this.k) this.floor = scores[0]!;
    } else if (this.below(scores[0]!, slots[0]!, score, slot)) {
      slots[0] = slot;
      scores[0] = score;
      this.down(0);
      this.floor = scores[0]!;
    }
  }

  /** Kept entries, best first. */
  drain(): { slot: number; score: number }[] {
    const out = this.slots.map((slot, i) => ({ slot, score: this.scores[i]! }));
    out.sort((a, b) => (this.below(a.score, a.slot, b.score, b.slot) ? 1 : this.below(b.score, b.slot, a.score, a.slot) ? -1 : 0));
    return out;
  }

  private swap(i: number, j: number): void {
    const { slots, scores } = this;
    [slots[i], slots[j]] = [slots[j]!, slots[i]!];
    [scores[i], scores[j]] = [scores[j]!, scores[i]!];
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.below(this.scores[i]!, this.slots[i]!, this.scores[parent]!, this.slots[parent]!)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.slots.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < n && this.below(this.scores[l]!, this.slots[l]!, this.scores[least]!, this.slots[least]!)) least = l;
      if (r < n && this.below(this.scores[r]!, this.slots[r]!, this.scores[least]!, this.slots[least]!)) least = r;
      if (least === i) return;
      this.swap(i, least);
      i = least;
    }
  }
}

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

const END = 0x7fffffff;
/**
 * Bounds are sums of the lists' maxima taken in another order than a
 * document's own sum: a margin far above the rounding of 31 additions keeps
 * them upper bounds.
 */
const SLACK = 1 + 1e-9;

/** First index at or after `from` whose slot is not below `slot` (galloping). */
function seek(slots: Int32Array, from: number, slot: number): number {
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
class Walk {
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

/**
 * Offers the documents of the lists whose words are not `skip` (the words
 * of the documents offered already; 0 for none), MaxScore style: once the
 * weakest kept score exceeds what a document holding only the lists of
 * least maxima could reach (their maxima summed, times the words they stand
 * for), those lists stop proposing documents and are only looked up for
 * the ones the others propose, and a document is dropped as soon as its sum
 * so far plus the maxima of the lists not yet looked up cannot reach it.
 * Declines (returns false, having offered nothing) when more than
 * `proposing` lists would propose from the start.
 */
function lacking(w: Walk, skip: number, proposing: number): boolean {
  const { m, source, max, top, slotsOf, scoresOf, scale, pos, contrib } = w;
  const order = Int32Array.from(w.lists.keys()).sort((a, b) => max[a]! - max[b]!);
  // below[t] / belowWords[t]: maxima summed and words of order[0..t]; bound[t]: what a document holding only those reaches.
  const below = new Float64Array(m);
  const belowWords = new Int32Array(m);
  const bound = new Float64Array(m);
  for (let t = 0, sum = 0, words = 0; t < m; t++) {
    sum += max[order[t]!]!;
    words |= source[order[t]!]!;
    below[t] = sum;
    belowWords[t] = words;
    bound[t] = sum * popcount(words) * SLACK;
  }
  let essential = 0;
  while (essential < m && bound[essential]! < top.floor) essential++;
  if (m - essential > proposing) return false;
  // heads[i]: the slot at list i's read position (END past its end).
  const heads = new Int32Array(m);
  for (let i = 0; i < m; i++) heads[i] = pos[i]! < slotsOf[i]!.length ? slotsOf[i]![pos[i]!]! : END;
  for (;;) {
    let slot = END;
    for (let t = essential; t < m; t++) if (heads[order[t]!]! < slot) slot = heads[order[t]!]!;
    if (slot === END) return true;
    let present = 0;
    let partial = 0;
    let words = 0;
    let dropped = false;
    for (let t = m - 1; t >= 0; t--) {
      const i = order[t]!;
      if (t < essential) {
        // Looked up only for a document that may still make the k.
        if ((partial + below[t]!) * popcount(words | belowWords[t]!) * SLACK < top.floor) {
          dropped = true;
          break;
        }
        if (heads[i]! < slot) {
          const p = seek(slotsOf[i]!, pos[i]!, slot);
          pos[i] = p;
          heads[i] = p < slotsOf[i]!.length ? slotsOf[i]![p]! : END;
        }
      }
      if (heads[i] !== slot) continue;
      const p = pos[i]!;
      const c = scale[i]! * scoresOf[i]![p]!;
      contrib[i] = c;
      present |= 1 << i;
      partial += c;
      words |= source[i]!;
      pos[i] = p + 1;
      heads[i] = p + 1 < slotsOf[i]!.length ? slotsOf[i]![p + 1]! : END;
    }
    if (dropped || words === skip) continue;
    w.offer(slot, present, words);
    while (essential < m && bound[essential]! < top.floor) essential++;
  }
}

/**
 * lacking for two lists, merged side by side: a document is in the first,
 * the second or both, and needs no lookup. Skips documents whose words are
 * `skip`, and stops once the floor passes what any document left can reach.
 */
function lackingPair(w: Walk, skip: number): void {
  const { top, ids, accept } = w;
  const [sa, sb] = w.slotsOf as [Int32Array, Int32Array];
  const [ca, cb] = w.scoresOf as [Float64Array, Float64Array];
  const scaleA = w.scale[0]!;
  const scaleB = w.scale[1]!;
  const wordsA = w.source[0]!;
  const wordsB = w.source[1]!;
  const both = wordsA | wordsB;
  // What a document in one list only / in both reaches at most.
  const onlyA = w.max[0]! * popcount(wordsA) * SLACK;
  const onlyB = w.max[1]! * popcount(wordsB) * SLACK;
  const bothMax = (w.max[0]! + w.max[1]!) * popcount(both) * SLACK;
  const na = sa.length;
  const nb = sb.length;
  let i = 0;
  let j = 0;
  while (i < na || j < nb) {
    if (bothMax < top.floor) return;
    const a = i < na ? sa[i]! : END;
    const b = j < nb ? sb[j]! : END;
    if (a < b) {
      // Scores as offer computes them: (0 + c) * words, and (0 + c0 + c1) * words.
      const score = scaleA * ca[i++]! * popcount(wordsA);
      if (score >= top.floor && onlyA >= top.floor && wordsA !== skip && top.admits(score, a) && accept(ids[a]!)) w.keep(score, a, 1, wordsA);
    } else if (b < a) {
      const score = scaleB * cb[j++]! * popcount(wordsB);
      if (score >= top.floor && onlyB >= top.floor && wordsB !== skip && top.admits(score, b) && accept(ids[b]!)) w.keep(score, b, 2, wordsB);
    } else {
      const score = (scaleA * ca[i++]! + scaleB * cb[j++]!) * popcount(both);
      if (score >= top.floor && both !== skip && top.admits(score, a) && accept(ids[a]!)) w.keep(score, a, 3, both);
    }
  }
}


/** What walk answers when it ranked every document of its lists. */
export const WALKED = -1;
/**
 * Lists that may propose documents for the walk to take the documents
 * missing a word: beyond, looking at every list for every document costs
 * more than accumulating per slot.
 */
const PROPOSING = 1;

/**
 * Ranks the documents of `lists` (each in slot order, at most 31: one bit
 * each in a document's mask) without accumulating anything per slot. A
 * document's sum is multiplied by the number of query words it holds, so
 * those holding every word usually fill the k on their own, far above
 * anything a document missing one can reach: they are found first (when
 * the lists' sizes make some likely), by marking the documents of each word
 * in turn and reading the marks from the lists of the word with the fewest
 * documents; the rest are walked only while the bound of a document missing
 * a word still reaches the kept k. Returns WALKED, or, when the rest is
 * better accumulated per slot, the words of the documents already offered
 * (0 when none were).
 */
export function walk(lists: readonly Walked[], top: TopK, ids: readonly string[], accept: (id: string) => boolean, scratch: WalkScratch): number {
  if (lists.length === 0) return WALKED;
  const w = new Walk(lists, top, ids, accept, scratch);
  const words = popcount(w.all);
  if (words === 1) {
    if (w.m === 1) oneList(w);
    else if (w.m === 2) lackingPair(w, 0);
    else if (!lacking(w, 0, PROPOSING)) return 0;
    return WALKED;
  }
  let offered = 0;
  if (likelyHoldingAll(w, ids.length)) {
    holdingAll(w);
    offered = w.all;
    let missing = 0;
    for (let word = 1; word !== 0 && word <= w.all >>> 0; word <<= 1) {
      if (!(w.all & word)) continue;
      let sum = 0;
      for (let i = 0; i < w.m; i++) if (w.source[i] !== word) sum += w.max[i]!;
      missing = Math.max(missing, sum * (words - 1) * SLACK);
    }
    if (missing < top.floor) return WALKED;
    w.pos.fill(0);
  }
  if (w.m === 2) {
    lackingPair(w, offered);
    return WALKED;
  }
  return lacking(w, offered, PROPOSING) ? WALKED : offered;
}

/**
 * Whether, were the words independent, at least one of `slots` documents
 * would hold them all: otherwise looking for such documents first costs
 * more than it may save.
 */
function likelyHoldingAll(w: Walk, slots: number): boolean {
  const size = new Float64Array(32);
  for (let i = 0; i < w.m; i++) size[31 - Math.clz32(w.source[i]!)] += w.slotsOf[i]!.length;
  let expected = slots;
  for (let b = 0; b < 32; b++) if (w.all & (1 << b)) expected *= Math.min(1, size[b]! / slots);
  return expected >= 1;
}

/** One list: each document offered straight from it. */
function oneList(w: Walk): void {
  const { top, ids, accept } = w;
  const slots = w.slotsOf[0]!;
  const scores = w.scoresOf[0]!;
  const scale = w.scale[0]!;
  const words = w.source[0]!;
  for (let p = 0; p < slots.length; p++) {
    // What offer computes for one term: (0 + c) * 1.
    const score = scale * scores[p]!;
    const slot = slots[p]!;
    if (score >= top.floor && top.admits(score, slot) && accept(ids[slot]!)) w.keep(score, slot, 1, words);
  }
}

/** Offers every document holding all the query words. */
function holdingAll(w: Walk): void {
  const { m, source, slotsOf, scratch, all } = w;
  // Per word (by bit index): its documents over all its lists.
  const size = new Float64Array(32);
  for (let i = 0; i < m; i++) size[31 - Math.clz32(source[i]!)] += slotsOf[i]!.length;
  const words: number[] = [];
  for (let b = 0; b < 32; b++) if (all & (1 << b)) words.push(b);
  words.sort((a, b) => size[a]! - size[b]!);
  if (size[words[0]!] === 0) return;
  // The smallest word proposes; the others mark, the largest last (its list index is kept).
  const driver = 1 << words[0]!;
  const others = words.slice(1).map((b) => 1 << b);
  if (scratch.stamp > 0x3fffffff) {
    scratch.mark.fill(0);
    scratch.stamp = 0;
  }
  const base = scratch.stamp;
  scratch.stamp += others.length + 1;
  const mark = scratch.mark;
  let atList = -1;
  others.forEach((word, j) => {
    const want = base + j;
    const set = want + 1;
    const mine: number[] = [];
    for (let i = 0; i < m; i++) if (source[i] === word) mine.push(i);
    const keepAt = j === others.length - 1 && mine.length === 1;
    if (keepAt) atList = mine[0]!;
    for (const i of mine) {
      const slots = slotsOf[i]!;
      if (keepAt) {
        for (let p = 0; p < slots.length; p++) {
          const s = 2 * slots[p]!;
          if (j === 0 || mark[s] === want) {
            mark[s] = set;
            mark[s + 1] = p;
          }
        }
      } else if (j === 0) {
        for (let p = 0; p < slots.length; p++) mark[2 * slots[p]!] = set;
      } else {
        for (let p = 0; p < slots.length; p++) if (mark[2 * slots[p]!] === want) mark[2 * slots[p]!] = set;
      }
    }
  });
  const full = base + others.length;
  const gather = (slot: number): void => {
    let present = 0;
    for (let i = 0; i < m; i++) {
      if (i !== atList) {
        present |= w.probe(i, slot);
        continue;
      }
      w.contrib[i] = w.scale[i]! * w.scoresOf[i]![mark[2 * slot + 1]!]!;
      present |= 1 << i;
    }
    w.offer(slot, present, all);
  };
  const drivers: number[] = [];
  for (let i = 0; i < m; i++) if (source[i] === driver) drivers.push(i);
  if (drivers.length === 1) {
    const d = drivers[0]!;
    const slots = slotsOf[d]!;
    for (let p = 0; p < slots.length; p++) {
      if (mark[2 * slots[p]!] !== full) continue;
      w.pos[d] = p;
      gather(slots[p]!);
    }
    return;
  }
  const heads = drivers.map(() => 0);
  for (;;) {
    let slot = END;
    drivers.forEach((i, h) => {
      if (heads[h]! < slotsOf[i]!.length && slotsOf[i]![heads[h]!]! < slot) slot = slotsOf[i]![heads[h]!]!;
    });
    if (slot === END) return;
    drivers.forEach((i, h) => {
      if (slotsOf[i]![heads[h]!] === slot) heads[h]!++;
    });
    if (mark[2 * slot] === full) gather(slot);
  }
}
