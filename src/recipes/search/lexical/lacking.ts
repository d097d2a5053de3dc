import { popcount } from "./bm25.js";
import { END, SLACK, type Walk } from "./walk-state.js";

/**
 * Offers the documents missing some query word, MaxScore style: once the
 * weakest kept score exceeds what a document holding only the lists of
 * least maxima could reach (their maxima summed, times the words they stand
 * for), those lists stop proposing documents and are only looked up for
 * the ones the others propose, and a document is dropped as soon as its sum
 * so far plus the maxima of the lists not yet looked up cannot reach it.
 */
export function lacking(w: Walk): void {
  const { m, source, max, top, all } = w;
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
  const rank = new Int32Array(m);
  order.forEach((i, t) => (rank[i] = t));
  let essential = 0;
  while (essential < m && bound[essential]! < top.floor) essential++;
  for (let slot = w.next((i) => rank[i]! >= essential); slot !== END; slot = w.next((i) => rank[i]! >= essential)) {
    let present = 0;
    let partial = 0;
    let words = 0;
    for (let t = essential; t < m; t++) {
      const i = order[t]!;
      if (!w.probe(i, slot)) continue;
      present |= 1 << i;
      partial += w.contrib[i]!;
      words |= source[i]!;
    }
    let dropped = false;
    for (let t = essential - 1; t >= 0 && !dropped; t--) {
      dropped = (partial + below[t]!) * popcount(words | belowWords[t]!) * SLACK < top.floor;
      const i = order[t]!;
      if (dropped || !w.probe(i, slot)) continue;
      present |= 1 << i;
      partial += w.contrib[i]!;
      words |= source[i]!;
    }
    // Documents holding every word were offered already.
    if (dropped || words === all) continue;
    w.offer(slot, present, words);
    while (essential < m && bound[essential]! < top.floor) essential++;
  }
}
