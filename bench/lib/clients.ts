/** Closed-loop load from N real SDK clients: calls/s and latency percentiles. */
import { setMaxListeners } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";

/** What a load needs of a client: either SDK line's Client. */
export interface LoadClient {
  callTool(call: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

// Each fetch a client transport makes adds an abort listener to that
// transport's one signal, removed only when its Request is garbage
// collected: thousands of calls between collections warn, and the warning
// (one line per listener past the limit) buried the bench's figures. Both
// servers' clients pay the same; it is not a leak in either server.
setMaxListeners(0);

export interface LoadResult {
  readonly clients: number;
  readonly calls: number;
  readonly errors: number;
  readonly seconds: number;
  readonly callsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  /** Every call's latency (ms), sorted: lets rounds be combined. */
  readonly latencies: readonly number[];
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function connectClients(url: string, count: number, headers: Record<string, string> = {}): Promise<Client[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const client = new Client({ name: `bench-${i}`, version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
      return client;
    }),
  );
}

/** v2 SDK clients pinned to 2026-07-28: no session, every call stands alone. */
export async function connectModernClients(url: string, count: number): Promise<LoadClient[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const client = new ModernClient({ name: `bench-v2-${i}`, version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
      await client.connect(new ModernTransport(new URL(url)));
      return client;
    }),
  );
}

/** Every client calls `next(i, n)` back to back for `seconds`. */
export async function runLoad(
  clients: readonly LoadClient[],
  seconds: number,
  next: (clientIndex: number, iteration: number) => { name: string; arguments: Record<string, unknown> },
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client, index) => {
      for (let iteration = 0; performance.now() < deadline; iteration += 1) {
        const call = next(index, iteration);
        const t0 = performance.now();
        try {
          const result = (await client.callTool(call)) as { isError?: unknown };
          if (result.isError === true) errors += 1;
        } catch {
          errors += 1;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    clients: clients.length,
    calls: latencies.length,
    errors,
    seconds: elapsed,
    callsPerSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    latencies,
  };
}

/** Several rounds of one load as one: calls over the summed time, percentiles over every call. */
export function combineLoads(rounds: readonly LoadResult[]): LoadResult {
  const latencies = rounds.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const seconds = rounds.reduce((sum, r) => sum + r.seconds, 0);
  return {
    clients: rounds[0]?.clients ?? 0,
    calls: latencies.length,
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    seconds,
    callsPerSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    latencies,
  };
}

export async function closeClients(clients: readonly LoadClient[]): Promise<void> {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
}
