/** Optimal-string-alignment distance (a swap of two neighbours costs 1), cut off above `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1);
    row[0] = i;
    rows.push(row);
  }
  for (let j = 0; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    let best = Infinity;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
      if (d < best) best = d;
    }
    if (best > max) return max + 1;
  }
  return rows[a.length]![b.length]!;
}

/** The candidate closest to `word` within `max` edits (ties: the first listed), or undefined. */
export function nearest(word: string, candidates: readonly string[], max: number): { match: string; distance: number } | undefined {
  let found: { match: string; distance: number } | undefined;
  for (const c of candidates) {
    const d = editDistance(word, c, max);
    if (d <= max && (found === undefined || d < found.distance)) found = { match: c, distance: d };
  }
  return found;
}
