import { describe, expect, it } from "vitest";
import { PostingStore } from "../../../../src/recipes/search/lexical/postings.js";

function prng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32;
}

describe("PostingStore compaction", () => {
  it("lists each term's documents in slot order with every live posting, through puts, removals and term renumbering", () => {
    const r = prng(3);
    const store = new PostingStore(3);
    let termCount = 40;
    /** id -> its postings as [term, field, tf]. */
    const live = new Map<string, [number, number, number][]>();
    const put = (id: string): void => {
      const old = store.slotOf.get(id);
      if (old !== undefined) store.kill(old);
      const slot = store.openSlot(id);
      const postings: [number, number, number][] = [];
      for (let f = 0; f < 3; f++) {
        store.setLength(slot, f, 1);
        const terms = new Set(Array.from({ length: Math.floor(r() * 5) }, () => Math.floor(r() * (termCount + 2))));
        for (const t of terms) {
          termCount = Math.max(termCount, t + 1);
          // Mostly small, some at and past what a posting's meta byte holds (31 and up sit beside it).
          const tf = r() < 0.15 ? [30, 31, 32, 1000, 0x1fffffff][Math.floor(r() * 5)]! : 1 + Math.floor(r() * 3);
          store.addPosting(t, slot, f, tf);
          postings.push([t, f, tf]);
        }
      }
      live.set(id, postings);
    };
    const key = (t: number, f: number, tf: number): string => `${t}:${f}:${tf}`;
    const check = (): void => {
      const seen = new Map<string, string[]>();
      for (let t = 0; t < store.mainTerms; t++) {
        let previous = -1;
        for (let p = store.offsets[t]!; p < store.offsets[t + 1]!; p++) {
          const slot = store.mainSlots[p]!;
          expect(slot, `term ${t}`).toBeGreaterThanOrEqual(previous);
          previous = slot;
          const meta = store.mainMetaAt(p);
          const id = store.ids[slot]!;
          seen.set(id, [...(seen.get(id) ?? []), key(t, meta & 7, meta >>> 3)]);
        }
      }
      const want = new Map([...live].filter(([, list]) => list.length > 0).map(([id, list]) => [id, list.map(([t, f, tf]) => key(t, f, tf)).sort()]));
      expect(new Map([...seen].map(([id, list]) => [id, list.sort()]))).toEqual(want);
      // Slots keep the order documents were put in; the rank follows their ids.
      expect([...store.ids].sort()).toEqual([...live.keys()].sort());
      const byRank: string[] = [];
      store.ids.forEach((id, slot) => (byRank[store.rank[slot]!] = id));
      expect(byRank).toEqual([...store.ids].sort());
      expect(store.orderedSlots).toBe(store.ids.length);
    };
    for (let round = 0; round < 9; round++) {
      const adds = round === 0 ? 150 : 10 + Math.floor(r() * 40);
      for (let i = 0; i < adds; i++) put(`doc${Math.floor(r() * 200)}`);
      for (let i = 0; i < 12; i++) {
        const id = `doc${Math.floor(r() * 200)}`;
        const slot = store.slotOf.get(id);
        if (slot === undefined) continue;
        store.kill(slot);
        live.delete(id);
      }
      let termMap: Int32Array | null = null;
      const count = termCount;
      if (round % 3 === 2) {
        // Drop the terms no live document holds, renumbering in order, as the dictionary does.
        const used = new Set([...live.values()].flatMap((list) => list.map(([t]) => t)));
        termMap = new Int32Array(count).fill(-1);
        let next = 0;
        for (let t = 0; t < count; t++) if (used.has(t)) termMap[t] = next++;
        const map = termMap;
        for (const [id, list] of live) live.set(id, list.map(([t, f, tf]) => [map[t]!, f, tf]));
        termCount = next;
      }
      store.compact(count, termMap);
      check();
    }
  });

  it("reads the delta back as (term, slot, meta) in put order from the slots' forward entries, before and after a compaction that drops nothing", () => {
    const store = new PostingStore(2);
    /** What each put adds, as [term, slot, meta]. */
    const put = (id: string, postings: [number, number, number][]): [number, number, number][] => {
      const slot = store.openSlot(id);
      store.setLength(slot, 0, postings.length);
      store.setLength(slot, 1, 0);
      return postings.map(([term, field, tf]) => {
        store.addPosting(term, slot, field, tf);
        return [term, slot, field | (tf << 3)];
      });
    };
    const delta = (): [number, number, number][] => {
      const out: [number, number, number][] = [];
      store.eachDelta((term, slot, meta) => out.push([term, slot, meta]));
      return out;
    };
    const first = [...put("b", [[0, 0, 2], [3, 0, 1], [1, 1, 4]]), ...put("a", []), ...put("c", [[3, 0, 1], [0, 1, 1]])];
    expect(delta()).toEqual(first);
    expect(store.deltaCount).toBe(first.length);
    // A load's first compaction: no slot removed, no term renumbered.
    store.compact(4, null);
    expect(delta()).toEqual([]);
    expect(store.deltaCount).toBe(0);
    expect([...store.ids]).toEqual(["b", "a", "c"]);
    const mainOf = (t: number): number[] => {
      const out: number[] = [];
      for (let p = store.offsets[t]!; p < store.offsets[t + 1]!; p++) out.push(store.mainSlots[p]!, store.mainMetaAt(p));
      return out;
    };
    expect(mainOf(0)).toEqual([0, 0 | (2 << 3), 2, 1 | (1 << 3)]);
    expect(mainOf(3)).toEqual([0, 1 << 3, 2, 1 << 3]);
    // The delta after it starts at the slots opened since; a removed one is still listed (the scorer skips it) until compaction drops it.
    const second = [...put("d", [[2, 0, 3]]), ...put("e", [[0, 0, 1], [2, 1, 2]])];
    expect(delta()).toEqual(second);
    store.kill(store.slotOf.get("b")!);
    expect(delta()).toEqual(second);
    store.compact(4, null);
    expect([...store.ids]).toEqual(["a", "c", "d", "e"]);
    expect(mainOf(0)).toEqual([1, 1 | (1 << 3), 3, 1 << 3]);
    expect(mainOf(2)).toEqual([2, 3 << 3, 3, 1 | (2 << 3)]);
    expect(mainOf(3)).toEqual([1, 1 << 3]);
    expect(delta()).toEqual([]);
    const third = put("f", [[1, 0, 1]]);
    expect(delta()).toEqual([[1, 4, 1 << 3]]);
    expect(third).toEqual([[1, 4, 1 << 3]]);
  });

  it("keeps a term frequency past what a meta byte holds, in the delta and through compactions", () => {
    const store = new PostingStore(3);
    const tfs = [30, 31, 32, 255, 70_000, 0x1fffffff];
    const put = (id: string): void => {
      const slot = store.openSlot(id);
      store.setLength(slot, 0, 1);
      tfs.forEach((tf, t) => store.addPosting(t, slot, t % 3, tf));
    };
    const want = (slot: number): [number, number, number][] => tfs.map((tf, t) => [t, slot, ((t % 3) | (tf << 3)) >>> 0]);
    const delta = (): [number, number, number][] => {
      const out: [number, number, number][] = [];
      store.eachDelta((term, slot, meta) => out.push([term, slot, meta]));
      return out;
    };
    const mainMetas = (): number[] => Array.from({ length: store.mainCount }, (_, i) => store.mainMetaAt(i));
    put("a");
    put("b");
    expect(delta()).toEqual([...want(0), ...want(1)]);
    store.compact(tfs.length, null);
    expect(mainMetas()).toEqual(tfs.flatMap((tf, t) => [((t % 3) | (tf << 3)) >>> 0, ((t % 3) | (tf << 3)) >>> 0]));
    // A removal renumbers the slots and moves the postings: each keeps its own tf.
    store.kill(store.slotOf.get("a")!);
    put("c");
    expect(delta()).toEqual(want(2));
    store.compact(tfs.length, null);
    expect(mainMetas()).toEqual(tfs.flatMap((tf, t) => [((t % 3) | (tf << 3)) >>> 0, ((t % 3) | (tf << 3)) >>> 0]));
    expect([...store.mainSlots]).toEqual(tfs.flatMap(() => [0, 1]));
  });
});
