import { createHash } from "node:crypto";
import { processTerm, tokenize } from "../tokenize.js";
import { normalise, type EmbeddingProvider } from "../types.js";

/**
 * Deterministic bag-of-words embedding: each processed term is hashed to a
 * bucket with a ±1 sign, the vector is L2-normalised. No model, no I/O, a few
 * microseconds per text — for tests and benches that exercise the plumbing
 * (cache, warm-up, fusion) rather than meaning.
 */
interface HashingProviderOptions {
  readonly dimension?: number;
  /** Distinguishes two "models" in cache tests. */
  readonly seed?: string;
  /** Artificial latency per call, to make warm-up observable in tests. */
  readonly delayMs?: number;
  /** Throw on the nth call (1-based), to exercise failure handling. */
  readonly failOnCall?: number;
  /** Exposed as the provider's `ready` (a model still loading, or one that never will). */
  readonly ready?: Promise<unknown>;
}

export function createHashingProvider(options: HashingProviderOptions = {}): EmbeddingProvider & { readonly calls: number; readonly texts: number } {
  const dimension = options.dimension ?? 256;
  const seed = options.seed ?? "0";
  let calls = 0;
  let texts = 0;
  const bucket = (term: string): [number, number] => {
    const h = createHash("md5").update(seed).update(term).digest();
    return [h.readUInt32LE(0) % dimension, h[4]! & 1 ? 1 : -1];
  };
  return {
    id: `hashing:${dimension}:${seed}`,
    dimension,
    ...(options.ready ? { ready: options.ready } : {}),
    get calls() {
      return calls;
    },
    get texts() {
      return texts;
    },
    async embed(input, signal) {
      calls++;
      if (options.failOnCall !== undefined && calls === options.failOnCall) throw new Error("hashing provider: induced failure");
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      signal?.throwIfAborted();
      texts += input.length;
      return input.map((text) => {
        const v = new Float32Array(dimension);
        for (const token of tokenize(text)) {
          const term = processTerm(token);
          if (!term) continue;
          const [i, sign] = bucket(term);
          v[i]! += sign;
        }
        return normalise(v);
      });
    },
    async close() {},
  };
}
