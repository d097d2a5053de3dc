/**
 * Scheduling many async tasks: at most `limit` in flight (mapLimit), one at
 * a time per key (KeyedMutex), and a turn for other queued work now and
 * then (createPacer).
 */

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

/** Resolves after other queued work ran, when `budgetMs` passed since the last yield. */
export function createPacer(budgetMs: number): () => Promise<void> {
  let last = performance.now();
  return async () => {
    if (performance.now() - last < budgetMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    last = performance.now();
  };
}

/**
 * Per-key serialization: tasks with the same key run one after another in
 * call order; tasks with different keys run concurrently. A failing task does
 * not break the chain for the tasks queued behind it.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    // Drop the entry once this task is the last one, so idle keys cost nothing.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Resolves when every task queued so far (and any queued meanwhile) has settled. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) {
      await Promise.all([...this.tails.values()]);
    }
  }

  get size(): number {
    return this.tails.size;
  }
}
