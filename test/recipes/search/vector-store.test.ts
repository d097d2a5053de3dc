import { describe, expect, it } from "vitest";
import { VectorStore } from "../../../src/recipes/search/vector-store.js";

const hash = (i: number): string => i.toString(16).padStart(32, "0");
const vec = (i: number, dim = 4): Float32Array => Float32Array.from({ length: dim }, (_, d) => i + d / 4);

describe("VectorStore", () => {
  it("learns its dimension from the first vector and refuses other lengths", () => {
    const store = new VectorStore();
    expect(store.dimension).toBe(0);
    expect(store.add(hash(1), vec(1))).toBe(true);
    expect(store.dimension).toBe(4);
    expect(store.add(hash(2), vec(2, 5))).toBe(false);
    expect(store.has(hash(2))).toBe(false);
    expect(store.add(hash(3), new Float32Array(0))).toBe(false);
    expect(store.size).toBe(1);
  });

  it("refuses an empty first vector instead of fixing dimension 0", () => {
    const store = new VectorStore();
    expect(store.add(hash(1), new Float32Array(0))).toBe(false);
    expect(store.add(hash(1), vec(1))).toBe(true);
  });

  it("grows past its capacity keeping every row, and overwrites a re-added hash in place", () => {
    const store = new VectorStore();
    for (let i = 0; i < 500; i++) store.add(hash(i), vec(i));
    const row = store.rowOf(hash(7));
    store.add(hash(7), vec(70));
    expect(store.rowOf(hash(7))).toBe(row);
    expect(store.size).toBe(500);
    expect([...store.get(hash(7))!]).toEqual([...vec(70)]);
    expect([...store.get(hash(499))!]).toEqual([...vec(499)]);
    expect(store.get(hash(500))).toBeUndefined();
  });

  it("keeps dead rows until they outnumber the live ones, then compacts without losing a vector", () => {
    const store = new VectorStore();
    for (let i = 0; i < 300; i++) store.add(hash(i), vec(i));
    expect(store.retain((h) => h !== hash(5))).toBe(1);
    const matrix = store.matrix;
    expect(store.matrix).toBe(matrix); // one dead row: no copy
    expect(store.retain((h) => parseInt(h, 16) % 10 === 0)).toBe(269);
    expect(store.matrix).not.toBe(matrix);
    expect(store.size).toBe(30);
    expect(store.entries().map(([, row]) => row)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    for (let i = 0; i < 300; i += 10) expect([...store.get(hash(i))!]).toEqual([...vec(i)]);
    expect(store.has(hash(5))).toBe(false);
  });

  it("takes rows from a buffer as they are and rejects a buffer too short for them", () => {
    const data = new Uint16Array([0x3c00, 0x4000, 0x4200, 0x4400]);
    const store = new VectorStore(2, [hash(1), hash(2)], data);
    expect(store.matrix).toBe(data);
    expect([...store.get(hash(2))!]).toEqual([3, 4]);
    expect(() => new VectorStore(2, [hash(1), hash(2), hash(3)], data)).toThrow(/shorter/);
  });

  it("offers its rows as 32-bit words only when every row starts on a word", () => {
    const even = VectorStore.from([[hash(1), vec(1)], [hash(2), vec(2)]]);
    const words = even.words!;
    expect(words).not.toBeNull();
    expect(words[2]! & 0xffff).toBe(even.matrix[4]);
    expect(words[2]! >>> 16).toBe(even.matrix[5]);
    even.add(hash(3), vec(3));
    expect(even.words).toBe(even.words); // one view per array
    expect(VectorStore.from([[hash(1), vec(1, 3)]]).words).toBeNull();
    const odd = new Uint16Array(9);
    expect(new VectorStore(4, [hash(1), hash(2)], odd.subarray(1)).words).toBeNull();
  });

  it("from() builds a store and refuses mixed lengths", () => {
    expect(VectorStore.from([[hash(1), vec(1)]]).size).toBe(1);
    expect(() => VectorStore.from([[hash(1), vec(1)], [hash(2), vec(2, 3)]])).toThrow();
  });
});
