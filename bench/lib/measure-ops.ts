/** Store benches' one measuring loop: `ops` calls of `op` from `callers` concurrent loops. */
export interface OpFigures {
  readonly opsPerSec: number;
  /** Latency percentiles, ms. */
  readonly p50: number;
  readonly p99: number;
}

export async function measureOps(ops: number, callers: number, op: (i: number) => Promise<void>): Promise<OpFigures> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < ops) {
        const i = next++;
        const t0 = performance.now();
        await op(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { opsPerSec: ops / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** The p-th percentile of ascending `sorted` (0 when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
