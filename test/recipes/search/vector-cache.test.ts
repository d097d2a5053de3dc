import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { VectorCache } from "../../../src/recipes/search/vector-cache.js";
import { VectorStore } from "../../../src/recipes/search/vector-store.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "vector-cache-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const hash = (i: number): string => i.toString(16).padStart(32, "0");
function vectors(n: number, dim: number): VectorStore {
  return VectorStore.from(Array.from({ length: n }, (_, i) => [hash(i), Float32Array.from({ length: dim }, (_, d) => (i + 1) * 0.001 + d * 0.5)]));
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
    expect(loaded.store.size).toBe(50);
    expect([...loaded.store.get(hash(7))!]).toEqual([...v.get(hash(7))!]);
  });

  it("writes only the live rows of a store with dropped vectors, in their order", async () => {
    const store = vectors(6, 8);
    store.retain((h) => h !== hash(1) && h !== hash(4));
    await new VectorCache(dir, "model-a", () => 8).save(store);
    const loaded = await new VectorCache(dir, "model-a", () => 8).load();
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.store.entries().map(([h]) => h)).toEqual([0, 2, 3, 5].map(hash));
    for (const i of [0, 2, 3, 5]) expect([...loaded.store.get(hash(i))!]).toEqual([...store.get(hash(i))!]);
  });

  it("loads the vectors as one aligned block that a store can grow from", async () => {
    await new VectorCache(dir, "model-a", () => 8).save(vectors(3, 8));
    const loaded = await new VectorCache(dir, "model-a", () => 8).load();
    if (!loaded.ok) throw new Error("expected a load");
    const store = loaded.store;
    expect(store.matrix.byteOffset % 4).toBe(0);
    expect(store.add(hash(9), Float32Array.from({ length: 8 }, (_, d) => d))).toBe(true);
    expect([...store.get(hash(2))!]).toEqual([...vectors(3, 8).get(hash(2))!]);
    expect([...store.get(hash(9))!]).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it.each([
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
  ])("discards a cache holding %s even when its checksum matches", async (_name, bad) => {
    const store = vectors(2, 8);
    store.add(hash(1), Float32Array.from({ length: 8 }, (_, d) => (d === 3 ? bad : d)));
    await new VectorCache(dir, "model-a", () => 8).save(store);
    expect(await new VectorCache(dir, "model-a", () => 8).load()).toMatchObject({ ok: false, reason: "corrupt", detail: "non-finite vector" });
  });

  it("reads the format-1 file of an older version as corrupt, not as vectors", async () => {
    const cache = new VectorCache(dir, "model-a", () => 8);
    await cache.save(vectors(2, 8));
    const file = await theFile();
    const buf = await readFile(file);
    buf.write("RSVEC1\n", 0, "latin1");
    await writeFile(file, buf);
    expect(await cache.load()).toMatchObject({ ok: false, reason: "corrupt", detail: "bad magic" });
  });

  it("loads the same vectors when the file is read in a worker thread, and discards a damaged one there too", async () => {
    await new VectorCache(dir, "model-a", () => 8).save(vectors(20, 8));
    const loaded = await new VectorCache(dir, "model-a", () => 8, 0).load();
    if (!loaded.ok) throw new Error(`expected a load, got ${loaded.reason}`);
    expect(loaded.store.entries()).toEqual(vectors(20, 8).entries());
    for (let i = 0; i < 20; i++) expect([...loaded.store.get(hash(i))!]).toEqual([...vectors(20, 8).get(hash(i))!]);
    const file = await theFile();
    const buf = await readFile(file);
    buf[buf.length - 40] = buf[buf.length - 40]! ^ 1;
    await writeFile(file, buf);
    expect(await new VectorCache(dir, "model-a", () => 8, 0).load()).toMatchObject({ ok: false, reason: "corrupt", detail: "checksum mismatch" });
    expect(await new VectorCache(dir, "model-a", () => 8, 0).load()).toEqual({ ok: false, reason: "missing" });
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
    expect(loaded.ok && loaded.store.get(hash(3))!.length).toBe(5);
  });

  it("writes atomically under concurrent saves and leaves no temp files", async () => {
    const cache = new VectorCache(dir, "model-a", () => 8);
    await Promise.all(Array.from({ length: 8 }, (_, i) => cache.save(vectors(i + 1, 8))));
    expect(await readdir(dir)).toHaveLength(1);
    const loaded = await cache.load();
    expect(loaded.ok).toBe(true);
  });
});
