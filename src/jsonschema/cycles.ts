/**
 * Finds a cycle among in-place edges ($ref, allOf, anyOf, oneOf, not, if/then/else,
 * dependentSchemas): such a cycle re-enters a schema on the same instance location and
 * would never terminate. Iterative DFS: a ref chain may be thousands of links long.
 */
export function findCycle(edges: ReadonlyMap<string, readonly string[]>): string | null {
  if (edges.size === 0) return null;
  const state = new Map<string, 1 | 2>(); // 1 = on the current path, 2 = done
  for (const start of edges.keys()) {
    if (state.has(start)) continue;
    const stack: Array<[string, number]> = [[start, 0]];
    state.set(start, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const next = edges.get(top[0]);
      if (next === undefined || top[1] >= next.length) {
        state.set(top[0], 2);
        stack.pop();
        continue;
      }
      const to = next[top[1]++]!;
      const s = state.get(to);
      if (s === 1) return to;
      if (s === undefined) {
        state.set(to, 1);
        stack.push([to, 0]);
      }
    }
  }
  return null;
}
