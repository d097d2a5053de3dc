import { popcount } from "./bm25.js";
import { lacking, lackingPair } from "./lacking.js";
import type { TopK } from "./topk.js";
import { END, SLACK, Walk, type WalkScratch, type Walked } from "./walk-state.js";

export type { WalkScratch, Walked } from "./walk-state.js";

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
