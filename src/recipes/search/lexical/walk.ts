import { popcount } from "./bm25.js";
import type { TermList } from "./term-lists.js";
import type { TopK } from "./topk.js";

/** One derived term's main postings as the walk reads them. */
export interface Walked {
  readonly list: TermList;
  /** Multiplies each score: a kept list holds weight-1 sums that an expansion scales; 1 for a list built with the weight. */
  readonly scale: number;
  readonly source: number;
  readonly exact: number;
  readonly prefix: number;
}

/** Per slot: the query-word bits of the documents the walk ranked (read back for the kept ones only). */
export interface WalkBits {
  source: Int32Array;
  exact: Int32Array;
  prefix: Int32Array;
}

const END = 0x7fffffff;

/**
 * Ranks the documents of `lists` (each in slot order) by walking them side
 * by side: a document's whole score is known when the walk reaches it, so
 * nothing is accumulated per slot, and only the documents `top` keeps leave
 * their bits behind. Each document's sum adds its terms in list order, as
 * the per-slot accumulation does, so the scores are the same to the bit.
 */
export function walk(lists: readonly Walked[], top: TopK, ids: readonly string[], accept: (id: string) => boolean, bits: WalkBits): void {
  const m = lists.length;
  const pos = new Int32Array(m);
  const head = new Int32Array(m);
  let slot = END;
  for (let i = 0; i < m; i++) {
    const slots = lists[i]!.list.slots;
    head[i] = slots.length > 0 ? slots[0]! : END;
    if (head[i]! < slot) slot = head[i]!;
  }
  while (slot !== END) {
    let sum = 0;
    let source = 0;
    let exact = 0;
    let prefix = 0;
    let next = END;
    for (let i = 0; i < m; i++) {
      let h = head[i]!;
      if (h === slot) {
        const w = lists[i]!;
        const p = pos[i]!;
        sum += w.scale * w.list.scores[p]!;
        source |= w.source;
        exact |= w.exact;
        prefix |= w.prefix;
        pos[i] = p + 1;
        h = head[i] = p + 1 < w.list.slots.length ? w.list.slots[p + 1]! : END;
      }
      if (h < next) next = h;
    }
    const score = sum * popcount(source);
    if (score >= top.floor && top.admits(score, slot) && accept(ids[slot]!)) {
      top.push(score, slot);
      bits.source[slot] = source;
      bits.exact[slot] = exact;
      bits.prefix[slot] = prefix;
    }
    slot = next;
  }
}
