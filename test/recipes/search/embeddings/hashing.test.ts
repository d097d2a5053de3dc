import { describe, expect, it } from "vitest";
import { createHashingProvider } from "../../../../src/recipes/search/embeddings/hashing.js";

const norm = (v: Float32Array): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe("hashing provider (deterministic test provider)", () => {
  it("returns one normalised vector per text, in order, deterministically", async () => {
    const p = createHashingProvider({ dimension: 64 });
    const [a, b, c] = await p.embed(["bevel the edges", "bevel edges", "export to fbx"]);
    expect(a).toHaveLength(64);
    expect(norm(a!)).toBeCloseTo(1, 5);
    expect(dot(a!, b!)).toBeCloseTo(1, 5);
    expect(dot(a!, c!)).toBeLessThan(0.5);
    const [again] = await createHashingProvider({ dimension: 64 }).embed(["bevel the edges"]);
    expect([...again!]).toEqual([...a!]);
  });

  it("gives a zero vector for text without terms and differs by seed", async () => {
    const [empty] = await createHashingProvider().embed([""]);
    expect(empty!.every((x) => x === 0)).toBe(true);
    const p1 = createHashingProvider({ seed: "a" });
    const p2 = createHashingProvider({ seed: "b" });
    expect(p1.id).not.toBe(p2.id);
    const [x] = await p1.embed(["mesh"]);
    const [y] = await p2.embed(["mesh"]);
    expect([...x!]).not.toEqual([...y!]);
  });

  it("counts calls and can be told to fail", async () => {
    const p = createHashingProvider({ failOnCall: 2 });
    await p.embed(["a b"]);
    await expect(p.embed(["c"])).rejects.toThrow(/induced failure/);
    expect(p.calls).toBe(2);
    expect(p.texts).toBe(1);
  });
});
