/**
 * The parse cache's frames (parse-cache-file.ts): records written through
 * the writer's one reused chunk, across chunk boundaries and larger than a
 * chunk, read back equal to a fresh parse; values whose lengths do not add
 * up are refused, never read out of bounds.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ParseCache } from "../../../src/recipes/packs/parse-cache.js";
import { decodeValue, encodeFrame, FRAME_HEAD, pendingFrame } from "../../../src/recipes/packs/parse-cache-file.js";
import { parsePack } from "../../../src/recipes/packs/parsed-pack.js";

/** A pack of `recipes` entries, each carrying `pad` characters of description. */
function pack(seed: number, recipes: number, pad = 40): string {
  const entries = Array.from(
    { length: recipes },
    (_, i) => `  - name: r${seed}_${i}\n    description: "${"é".repeat(pad)} ${seed}/${i}"\n    inputs_schema: { type: object, properties: { n: { type: number, maximum: ${i} } } }\n    steps: [{ tool: t_${i} }]\n`,
  );
  return `pack:\n  name: p${seed}\nrecipes:\n${entries.join("")}`;
}

/** One frame's value bytes, as readFrames would hand them to decodeValue. */
function valueOf(record: ReturnType<typeof parsePack>): Buffer {
  const frame = pendingFrame("key", record);
  const bytes = Buffer.alloc(frame.length);
  expect(encodeFrame(bytes, 0, frame)).toBe(frame.length);
  return bytes.subarray(bytes.readUInt32LE(0) + FRAME_HEAD);
}

describe("parse cache frames", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "parse-cache-file-"));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("round-trips packs that span many write chunks and one larger than a chunk, each equal to a fresh parse", async () => {
    const file = path.join(dir, "parsed-packs");
    const texts = new Map<string, string>();
    for (let i = 0; i < 60; i++) texts.set(`p${i}.yaml`, pack(i, 30));
    // Over the writer's 1 MB chunk once parsed (a file at most MAX_RECIPE_FILE_BYTES can be).
    texts.set("big.yaml", pack(999, 250, 1200));
    const first = new ParseCache(file);
    const keys = new Set<string>();
    for (const [name, text] of texts) {
      const key = first.keyOf(name, text);
      const record = parsePack(text, name);
      if (name === "big.yaml") expect(pendingFrame(key, record).length).toBeGreaterThan(1024 * 1024);
      first.set(key, record);
      keys.add(key);
    }
    await first.persist(keys);
    expect((await fs.stat(file)).size).toBeGreaterThan(2 * 1024 * 1024);

    const second = new ParseCache(file);
    await second.load();
    const buffers = new Set<ArrayBufferLike>();
    for (const [name, text] of texts) {
      const cached = second.get(second.keyOf(name, text))!;
      const fresh = parsePack(text, name);
      // The bytes compared as bytes (toEqual walks a megabyte element by element).
      expect({ ...cached, body: null, text: null }, name).toEqual({ ...fresh, body: null, text: null });
      expect(Buffer.compare(cached.body, fresh.body), name).toBe(0);
      expect(Buffer.compare(cached.text, fresh.text), name).toBe(0);
      buffers.add(cached.body.buffer).add(cached.text.buffer);
    }
    expect(second.stats()).toEqual({ hits: texts.size, misses: 0 });
    // Read back as views into the file's bytes, not copied per entry.
    expect(buffers.size).toBe(1);
  });

  it("regression: a value whose lengths do not add up is refused, not read past its end", () => {
    const value = valueOf(parsePack(pack(1, 3), "RECIPES.yaml"));
    expect(decodeValue(value)).not.toBeNull();
    const damaged = (at: number, n: number): Buffer => {
      const copy = Buffer.from(value);
      copy.writeUInt32LE(n, at);
      return copy;
    };
    expect(decodeValue(damaged(0, 2))).toBeNull(); // ok flag neither 0 nor 1
    expect(decodeValue(damaged(4, value.readUInt32LE(4) + 1))).toBeNull(); // summaries longer
    expect(decodeValue(damaged(8, 0xffffffff))).toBeNull(); // offsets count past the end
    expect(decodeValue(damaged(12, value.readUInt32LE(12) - 1))).toBeNull(); // body shorter
    expect(decodeValue(damaged(16, value.readUInt32LE(16) + 8))).toBeNull(); // text longer
    expect(decodeValue(value.subarray(0, 19))).toBeNull();
    expect(decodeValue(value.subarray(0, value.length - 1))).toBeNull();
  });

  it("summaries that are not JSON throw for the cache to count a miss", () => {
    const value = valueOf(parsePack(pack(1, 1), "RECIPES.yaml"));
    value[20] = "}".charCodeAt(0);
    expect(() => decodeValue(value)).toThrow(SyntaxError);
  });
});
