/**
 * Merges the (slot, meta) pairs of main[2*from, 2*mid) and main[2*mid, 2*to),
 * each in slot order and sharing no slot, into one run in slot order; a
 * slot's pairs keep their order.
 */
export function mergeRuns(main: Uint32Array, from: number, mid: number, to: number): void {
  if (mid === from || mid === to || main[2 * mid - 2]! < main[2 * mid]!) return;
  const right = main.slice(2 * mid, 2 * to);
  let i = 2 * mid - 2;
  let j = right.length - 2;
  for (let w = 2 * to - 2; j >= 0; w -= 2) {
    if (i >= 2 * from && main[i]! > right[j]!) {
      main[w] = main[i]!;
      main[w + 1] = main[i + 1]!;
      i -= 2;
    } else {
      main[w] = right[j]!;
      main[w + 1] = right[j + 1]!;
      j -= 2;
    }
  }
}
