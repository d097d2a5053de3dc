import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { VectorCache } from "../../../src/recipes/search/vector-cache.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "vector-cache-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const hash = (i: number): string => i.toString(16).padStart(32, "0");
function vectors(n: number, dim: number): Map<string, Float32Array> {
  return new Map(Array.from({ length: n }, (_, i) => [hash(i), Float32Array.from({ length: dim }, (_, d) => (i + 1) * 0.001 + d * 0.5)]));
}
async function theFile(): Promise<string> {
  const files = await readdir(dir);
  expect(files).toHaveLength(1);
  return path.join(dir, files[0]!);
}

describe("vector cache", () => {
  it("round-trips vectors for the same provider", async () => {
    const cache = new VectorCache(dir, "model-a", () => 8);
    const v = vectors(50, 8);
    await cache.save(v);
    const loaded = await new VectorCache(dir, "model-a", () => 8).load();
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.vectors.size).toBe(50);
    expect([...loaded.vectors.get(hash(7))!]).toEqual([...v.get(hash(7))!]);
  });

  it("writes vectors that are views into one shared array (as the semantic index holds them)", async () => {
    const dim = 8;
    const all = Float32Array.from({ length: 3 * dim + 1 }, (_, i) => i * 0.25);
    // Offset by one float so no view starts at the buffer's beginning.
    const views = new Map([0, 1, 2].map((i) => [hash(i), all.subarray(1 + i * dim, 1 + (i + 1) * dim)] as const));
    await new VectorCache(dir, "model-a", () => dim).save(views);
    const loaded = await new VectorCache(dir, "model-a", () => dim).load();
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    for (const [h, v] of views) expect([...loaded.vectors.get(h)!]).toEqual([...v]);
  });

  it("reports a missing file as missing", async () => {
    expect(await new VectorCache(dir, "model-a", () => 8).load()).toEqual({ ok: false, reason: "missing" });
  });

  it("keeps one file per provider and treats another model's file as foreign", async () => {
    await new VectorCache(dir, "model-a", () => 8).save(vectors(3, 8));
    await new VectorCache(dir, "model-b", () => 8).save(vectors(3, 8));
    expect(await readdir(dir)).toHaveLength(2);
    // Same file name (same id) but a different vector size: discarded.
    const file = await theFileOf("model-a");
    const other = new VectorCache(dir, "model-a", () => 16);
    expect((await other.load()).ok).toBe(false);
    expect(await readdir(dir)).not.toContain(path.basename(file));
  });

  async function theFileOf(id: string): Promise<string> {
    return path.join(dir, new VectorCache(dir, id, () => 8).fileName);
  }

  it.each([
    ["a flipped byte", (b: Buffer) => ((b[b.length - 40] = b[b.length - 40]! ^ 0xff), b)],
    ["truncation", (b: Buffer) => b.subarray(0, b.length - 7)],
    ["garbage", () => Buffer.from("hello, not a cache")],
    ["an empty file", () => Buffer.alloc(0)],
  ])("discards a cache damaged by %s and deletes it", async (_name, damage) => {
    const cache = new VectorCache(dir, "model-a", () => 8);
    await cache.save(vectors(10, 8));
    const file = await theFile();
    await writeFile(file, damage(await readFile(file)));
    const loaded = await cache.load();
    expect(loaded).toMatchObject({ ok: false, reason: "corrupt" });
    expect(await readdir(dir)).toEqual([]);
  });

  it("does not trust a header whose checksum was recomputed over a bad length", async () => {
    const cache = new VectorCache(dir, "model-a", () => 8);
    await cache.save(vectors(2, 8));
    const buf = await readFile(await theFile());
    const headerLength = buf.readUInt32LE(7);
    const header = buf.subarray(11, 11 + headerLength).toString("utf8").replace('"count":2', '"count":9');
    expect(header.length).toBe(headerLength);
    const { createHash } = await import("node:crypto");
    const body = Buffer.concat([buf.subarray(0, 11), Buffer.from(header), buf.subarray(11 + headerLength, buf.length - 32)]);
    await writeFile(await theFile(), Buffer.concat([body, createHash("sha256").update(body).digest()]));
    expect(await cache.load()).toMatchObject({ ok: false, reason: "corrupt" });
  });

  it("learns the dimension from the file when the provider does not know it yet", async () => {
    await new VectorCache(dir, "endpoint", () => 0).save(vectors(4, 5));
    const loaded = await new VectorCache(dir, "endpoint", () => 0).load();
    expect(loaded.ok && loaded.vectors.get(hash(3))!.length).toBe(5);
  });

  it("writes atomically under concurrent saves and leaves no temp files", async () => {
    const cache = new VectorCache(dir, "model-a", () => 8);
    await Promise.all(Array.from({ length: 8 }, (_, i) => cache.save(vectors(i + 1, 8))));
    expect(await readdir(dir)).toHaveLength(1);
    const loaded = await cache.load();
    expect(loaded.ok).toBe(true);
  });
});
