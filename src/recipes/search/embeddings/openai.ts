import { normalise, type EmbeddingProvider } from "../types.js";

/**
 * OpenAI-compatible embeddings endpoint (`POST {url}/v1/embeddings`), as
 * served by OpenAI, Ollama, LM Studio, vLLM. Transient failures (network,
 * timeout, 429, 5xx) are retried with exponential backoff; anything else
 * fails at once with a message that names the status but never the key.
 */
export interface OpenAIProviderOptions {
  /** Base URL, e.g. http://127.0.0.1:11434 ; `/v1/embeddings` is appended. */
  readonly url: string;
  readonly model: string;
  /** Sent as a bearer token when present. */
  readonly apiKey?: string;
  /** Per request, default 30 s. */
  readonly timeoutMs?: number;
  /** Retries after the first attempt, default 3. */
  readonly retries?: number;
  /** First backoff delay, doubled each retry (default 250 ms). */
  readonly backoffMs?: number;
  /** Texts per request, default 64. */
  readonly batchSize?: number;
  /** Known vector size; otherwise learnt from the first answer. */
  readonly dimension?: number;
}

class RetryableError extends Error {}

/** The base URL without credentials or query, for ids and messages. */
function displayUrl(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    return "<invalid url>";
  }
}

/** Credentials in the URL become a Basic header: fetch refuses them inline. */
function basicAuth(raw: string): string | undefined {
  const u = new URL(raw);
  if (!u.username && !u.password) return undefined;
  const pair = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
  return `Basic ${Buffer.from(pair).toString("base64")}`;
}

function endpoint(raw: string): URL {
  const u = new URL(raw);
  u.username = "";
  u.password = "";
  const base = u.pathname.replace(/\/+$/, "");
  u.pathname = base.endsWith("/v1") ? `${base}/embeddings` : `${base}/v1/embeddings`;
  return u;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(t);
        reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
      },
      { once: true },
    );
  });
}

export function createOpenAIProvider(options: OpenAIProviderOptions): EmbeddingProvider {
  const url = endpoint(options.url);
  const authorization = options.apiKey ? `Bearer ${options.apiKey}` : basicAuth(options.url);
  const shown = displayUrl(options.url);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const retries = options.retries ?? 3;
  const backoffMs = options.backoffMs ?? 250;
  const batchSize = Math.max(1, options.batchSize ?? 64);
  let dimension = options.dimension ?? 0;
  let closed = false;
  const inflight = new Set<AbortController>();

  function parse(body: string, count: number): Float32Array[] {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new Error(`embeddings endpoint ${shown} answered with invalid JSON`);
    }
    const data = (json as { data?: unknown }).data;
    if (!Array.isArray(data) || data.length !== count) {
      throw new Error(`embeddings endpoint ${shown} answered without ${count} embeddings in "data"`);
    }
    const out = new Array<Float32Array>(count);
    data.forEach((item: unknown, position) => {
      const { embedding, index } = (item ?? {}) as { embedding?: unknown; index?: unknown };
      const at = typeof index === "number" ? index : position;
      if (!Number.isInteger(at) || at < 0 || at >= count || out[at]) throw new Error(`embeddings endpoint ${shown} answered with a bad index`);
      if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((x) => typeof x === "number" && Number.isFinite(x))) {
        throw new Error(`embeddings endpoint ${shown} answered with a malformed embedding`);
      }
      if (dimension === 0) dimension = embedding.length;
      if (embedding.length !== dimension) throw new Error(`embeddings endpoint ${shown} answered with ${embedding.length} dimensions, expected ${dimension}`);
      out[at] = normalise(Float32Array.from(embedding as number[]));
    });
    return out;
  }

  async function attempt(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const controller = new AbortController();
    inflight.add(controller);
    const timer = setTimeout(() => controller.abort(new RetryableError(`embeddings endpoint ${shown} timed out after ${timeoutMs} ms`)), timeoutMs);
    const onAbort = (): void => controller.abort(signal!.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      let res: Response;
      try {
        res = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(authorization ? { authorization } : {}),
          },
          body: JSON.stringify({ model: options.model, input: texts }),
          signal: controller.signal,
        });
      } catch (err) {
        if (signal?.aborted || closed) throw signal?.reason instanceof Error ? signal.reason : new Error("embedding request aborted");
        if (controller.signal.reason instanceof RetryableError) throw controller.signal.reason;
        // Only the error code: undici's messages can quote the full URL.
        const code = ((err as Error).cause as { code?: unknown } | undefined)?.code;
        throw new RetryableError(`embeddings endpoint ${shown} unreachable${typeof code === "string" ? ` (${code})` : ""}`);
      }
      let body: string;
      try {
        body = await res.text();
      } catch {
        if (controller.signal.reason instanceof RetryableError) throw controller.signal.reason;
        throw new RetryableError(`embeddings endpoint ${shown} dropped the response`);
      }
      if (res.status === 429 || res.status >= 500) throw new RetryableError(`embeddings endpoint ${shown} answered HTTP ${res.status}`);
      if (!res.ok) throw new Error(`embeddings endpoint ${shown} answered HTTP ${res.status}`);
      return parse(body, texts.length);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      inflight.delete(controller);
    }
  }

  async function request(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    for (let i = 0; ; i++) {
      try {
        return await attempt(texts, signal);
      } catch (err) {
        if (!(err instanceof RetryableError) || i >= retries || closed) throw err instanceof RetryableError ? new Error(err.message) : err;
        await sleep(backoffMs * 2 ** i, signal);
      }
    }
  }

  return {
    id: `openai:${shown}:${options.model}`,
    get dimension() {
      return dimension;
    },
    async embed(texts, signal) {
      if (closed) throw new Error("openai embedding provider is closed");
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) out.push(...(await request(texts.slice(i, i + batchSize), signal)));
      return out;
    },
    async close() {
      closed = true;
      for (const c of inflight) c.abort(new Error("openai embedding provider is closed"));
    },
  };
}
