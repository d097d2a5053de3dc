import { popcount } from "./bm25.js";
import { END, SLACK, seek, type Walk } from "./walk-state.js";

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
export function lacking(w: Walk, skip: number, proposing: number): boolean {
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
export function lackingPair(w: Walk, skip: number): void {
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
