/**
 * `Promise.all(items.map(fn))` with at most `limit` calls in flight. Loading
 * a thousand skills at once keeps every file's text and parse tree alive
 * together; a few at a time gives the same throughput on a small machine
 * with a fraction of the peak memory (and the garbage collection it costs).
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await fn(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
