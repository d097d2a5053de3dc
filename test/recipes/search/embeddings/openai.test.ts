import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createOpenAIProvider } from "../../../../src/recipes/search/embeddings/openai.js";

type Handler = (body: { model: string; input: string[] }, req: IncomingMessage, res: ServerResponse) => void;

interface Endpoint {
  url: string;
  requests: { body: { model: string; input: string[] }; auth: string | undefined; path: string | undefined }[];
  server: Server;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((s) => {
      // Silent-server tests leave requests hanging; drop them rather than wait.
      s.closeAllConnections();
      return new Promise((r) => s.close(r));
    }),
  );
});

async function endpoint(handler: Handler): Promise<Endpoint> {
  const requests: Endpoint["requests"] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = JSON.parse(raw) as { model: string; input: string[] };
      requests.push({ body, auth: req.headers.authorization, path: req.url });
      handler(body, req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
}

function ok(res: ServerResponse, input: string[], dim = 3): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ object: "list", data: input.map((t, index) => ({ object: "embedding", index, embedding: Array.from({ length: dim }, (_, d) => t.length + d + 1) })) }));
}

describe("openai-compatible provider", () => {
  it("posts model and input to /v1/embeddings with the bearer key and batches", async () => {
    const ep = await endpoint((body, _req, res) => ok(res, body.input));
    const p = createOpenAIProvider({ url: ep.url, model: "nomic-embed-text", apiKey: "sk-test", batchSize: 2 });
    expect(p.dimension).toBe(0);
    const out = await p.embed(["a", "bb", "ccc", "dddd", "eeeee"]);
    expect(out).toHaveLength(5);
    expect(p.dimension).toBe(3);
    expect(ep.requests.map((r) => r.body.input)).toEqual([["a", "bb"], ["ccc", "dddd"], ["eeeee"]]);
    expect(ep.requests.every((r) => r.path === "/v1/embeddings" && r.auth === "Bearer sk-test" && r.body.model === "nomic-embed-text")).toBe(true);
    const n = Math.hypot(...out[0]!);
    expect(n).toBeCloseTo(1, 5);
  });

  it("accepts a base URL that already ends in /v1 and keeps ids free of credentials", async () => {
    const ep = await endpoint((body, _req, res) => ok(res, body.input));
    const u = new URL(ep.url);
    const p = createOpenAIProvider({ url: `http://user:secret@${u.host}/v1/?token=x`, model: "m", retries: 0 });
    await p.embed(["x"]);
    expect(ep.requests[0]!.path).toBe("/v1/embeddings?token=x");
    expect(ep.requests[0]!.auth).toBe(`Basic ${Buffer.from("user:secret").toString("base64")}`);
    expect(p.id).not.toMatch(/secret|token/);
  });

  it("orders vectors by the index field", async () => {
    const ep = await endpoint((body, _req, res) => {
      res.end(JSON.stringify({ data: body.input.map((t, index) => ({ index, embedding: [t.length, 1] })).reverse() }));
    });
    const out = await createOpenAIProvider({ url: ep.url, model: "m" }).embed(["a", "bbbb"]);
    expect(out[0]![0]! / out[0]![1]!).toBeCloseTo(1);
    expect(out[1]![0]! / out[1]![1]!).toBeCloseTo(4);
  });

  it("retries 500s with backoff, then succeeds", async () => {
    let calls = 0;
    const ep = await endpoint((body, _req, res) => {
      if (++calls <= 2) {
        res.writeHead(500);
        res.end("overloaded");
      } else ok(res, body.input);
    });
    const out = await createOpenAIProvider({ url: ep.url, model: "m", backoffMs: 5 }).embed(["x"]);
    expect(out).toHaveLength(1);
    expect(calls).toBe(3);
  });

  it("gives up after the retries with the status and without the key", async () => {
    const ep = await endpoint((_b, _req, res) => {
      res.writeHead(503);
      res.end();
    });
    const p = createOpenAIProvider({ url: ep.url, model: "m", apiKey: "sk-secret", retries: 2, backoffMs: 1 });
    const err = await p.embed(["x"]).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/HTTP 503/);
    expect((err as Error).message).not.toMatch(/sk-secret/);
    expect(ep.requests).toHaveLength(3);
  });

  it("does not retry a 4xx", async () => {
    const ep = await endpoint((_b, _req, res) => {
      res.writeHead(401);
      res.end("{}");
    });
    await expect(createOpenAIProvider({ url: ep.url, model: "m", backoffMs: 1 }).embed(["x"])).rejects.toThrow(/HTTP 401/);
    expect(ep.requests).toHaveLength(1);
  });

  it("times out a silent server and retries the timeout", async () => {
    const ep = await endpoint(() => undefined);
    const p = createOpenAIProvider({ url: ep.url, model: "m", timeoutMs: 100, retries: 1, backoffMs: 1 });
    await expect(p.embed(["x"])).rejects.toThrow(/timed out after 100 ms/);
    // The retry's body may still be in flight on a loaded machine.
    await vi.waitFor(() => expect(ep.requests).toHaveLength(2));
  });

  it("fails clearly on bad JSON, wrong counts, bad vectors and dimension changes", async () => {
    const answers = [
      "not json{",
      JSON.stringify({ data: [] }),
      JSON.stringify({ data: [{ index: 0, embedding: ["a"] }] }),
      JSON.stringify({ data: [{ index: 7, embedding: [1] }] }),
      JSON.stringify({ nope: true }),
    ];
    let i = 0;
    const ep = await endpoint((_b, _req, res) => res.end(answers[i++]));
    const p = createOpenAIProvider({ url: ep.url, model: "m", backoffMs: 1 });
    await expect(p.embed(["x"])).rejects.toThrow(/invalid JSON/);
    await expect(p.embed(["x"])).rejects.toThrow(/without 1 embeddings/);
    await expect(p.embed(["x"])).rejects.toThrow(/malformed embedding/);
    await expect(p.embed(["x"])).rejects.toThrow(/bad index/);
    await expect(p.embed(["x"])).rejects.toThrow(/without 1 embeddings/);
    expect(ep.requests).toHaveLength(5);

    const ep2 = await endpoint((body, _req, res) => ok(res, body.input, ep2.requests.length === 1 ? 3 : 4));
    const p2 = createOpenAIProvider({ url: ep2.url, model: "m" });
    await p2.embed(["x"]);
    await expect(p2.embed(["x"])).rejects.toThrow(/4 dimensions, expected 3/);
  });

  it("retries a refused connection and reports it unreachable", async () => {
    const ep = await endpoint(() => undefined);
    const url = ep.url;
    await new Promise((r) => ep.server.close(r));
    servers.splice(servers.indexOf(ep.server), 1);
    await expect(createOpenAIProvider({ url, model: "m", retries: 2, backoffMs: 1 }).embed(["x"])).rejects.toThrow(/unreachable/);
  });

  it("stops on abort and on close", async () => {
    const ep = await endpoint(() => undefined);
    const p = createOpenAIProvider({ url: ep.url, model: "m", timeoutMs: 10_000 });
    const controller = new AbortController();
    const pending = p.embed(["x"], controller.signal);
    setTimeout(() => controller.abort(new Error("caller gave up")), 20);
    await expect(pending).rejects.toThrow(/caller gave up/);
    const second = p.embed(["y"]);
    setTimeout(() => void p.close(), 20);
    await expect(second).rejects.toThrow(/closed|aborted/);
    await expect(p.embed(["z"])).rejects.toThrow(/closed/);
  });

  it("serves concurrent callers", async () => {
    const ep = await endpoint((body, _req, res) => setTimeout(() => ok(res, body.input), 5));
    const p = createOpenAIProvider({ url: ep.url, model: "m" });
    const outs = await Promise.all(Array.from({ length: 20 }, (_, i) => p.embed([`t${"x".repeat(i)}`])));
    outs.forEach((o, i) => expect(o[0]![0]! / o[0]![1]!).toBeCloseTo((i + 2) / (i + 3)));
  });
});
