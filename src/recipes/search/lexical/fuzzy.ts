/**
 * Bounded Levenshtein search over a sorted term list: the list walked in
 * order is a depth-first walk of the terms' trie, so consecutive terms share
 * the matrix rows of their common prefix, and once a prefix's best row
 * exceeds the bound every term carrying that prefix is skipped with one
 * binary search. Distances are over UTF-16 code units (as MiniSearch's).
 */
export function fuzzyScan(
  sorted: Uint32Array,
  texts: readonly string[],
  query: string,
  maxDistance: number,
  visit: (id: number, text: string, distance: number) => void,
): void {
  if (maxDistance < 0) return;
  const n = query.length + 1;
  // Rows 0..maxRow: a term longer than the query by more than the bound never matches.
  const maxRow = query.length + maxDistance;
  const big = maxDistance + 1;
  const matrix = new Uint8Array((maxRow + 1) * n).fill(big);
  for (let j = 0; j < n; j++) matrix[j] = j;
  for (let i = 1; i <= maxRow; i++) matrix[i * n] = Math.min(i, big);
  const q: number[] = [];
  for (let j = 0; j < query.length; j++) q.push(query.charCodeAt(j));

  let previous = "";
  /** Rows 1..valid hold the matrix for previous's first `valid` characters. */
  let valid = 0;
  let index = 0;
  while (index < sorted.length) {
    const id = sorted[index]!;
    const text = texts[id]!;
    let depth = 0;
    const shared = Math.min(valid, text.length);
    while (depth < shared && text.charCodeAt(depth) === previous.charCodeAt(depth)) depth++;
    let prunedAt = 0;
    for (; depth < text.length; depth++) {
      const row = depth + 1;
      if (row > maxRow) {
        prunedAt = row;
        break;
      }
      const c = text.charCodeAt(depth);
      const here = row * n;
      const above = here - n;
      let best = matrix[here]!;
      const jmin = Math.max(0, row - maxDistance - 1);
      const jmax = Math.min(n - 1, row + maxDistance);
      for (let j = jmin; j < jmax; j++) {
        const replace = matrix[above + j]! + (c === q[j] ? 0 : 1);
        const remove = matrix[above + j + 1]! + 1;
        const insert = matrix[here + j]! + 1;
        let d = replace < remove ? replace : remove;
        if (insert < d) d = insert;
        if (d > big) d = big;
        matrix[here + j + 1] = d;
        if (d < best) best = d;
      }
      if (best > maxDistance) {
        prunedAt = row;
        break;
      }
    }
    previous = text;
    if (prunedAt === 0) {
      valid = text.length;
      const distance = matrix[text.length * n + n - 1]!;
      if (distance <= maxDistance) visit(id, text, distance);
      index++;
      continue;
    }
    // Every term starting with text[0, prunedAt) is out of reach: skip past them.
    valid = prunedAt - 1;
    const prefix = text.slice(0, prunedAt);
    let lo = index + 1;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (texts[sorted[mid]!]!.startsWith(prefix)) lo = mid + 1;
      else hi = mid;
    }
    index = lo;
  }
}
