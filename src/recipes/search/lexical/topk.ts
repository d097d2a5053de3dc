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
