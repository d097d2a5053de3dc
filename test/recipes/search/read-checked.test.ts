import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readChecked } from "../../../src/recipes/search/read-checked.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "read-checked-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const bounds = { min: 8, max: 1 << 20, trailer: 4 };

describe.each([
  ["on this thread", Number.POSITIVE_INFINITY],
  ["in a worker", 0],
])("readChecked %s", (_where, offThreadFrom) => {
  const options = { ...bounds, offThreadFrom };

  it("returns the whole file at offset 0 and the sha256 of all but the trailer", async () => {
    const bytes = Buffer.from(Array.from({ length: 5_001 }, (_, i) => (i * 7) & 255));
    const file = path.join(dir, "f.bin");
    await writeFile(file, bytes);
    const read = await readChecked(file, options);
    expect(read).not.toBeNull();
    expect(read!.buf.equals(bytes)).toBe(true);
    expect(read!.buf.byteOffset).toBe(0);
    expect(read!.buf.buffer.byteLength).toBe(bytes.length);
    expect(read!.sum.equals(createHash("sha256").update(bytes.subarray(0, bytes.length - 4)).digest())).toBe(true);
  });

  it("answers null for a size outside the bounds", async () => {
    const file = path.join(dir, "small.bin");
    await writeFile(file, Buffer.alloc(7));
    expect(await readChecked(file, options)).toBeNull();
    await writeFile(file, Buffer.alloc(64));
    expect(await readChecked(file, { ...options, max: 63 })).toBeNull();
  });

  it("rejects a missing file with ENOENT and a directory with an error", async () => {
    await expect(readChecked(path.join(dir, "nope.bin"), options)).rejects.toMatchObject({ code: "ENOENT" });
    await expect(readChecked(dir, { ...options, min: 0 })).rejects.toThrow();
  });

  it("serves concurrent reads of different files", async () => {
    const files = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const file = path.join(dir, `c${i}.bin`);
        await writeFile(file, Buffer.alloc(100 + i, i));
        return file;
      }),
    );
    const reads = await Promise.all(files.map((f) => readChecked(f, options)));
    reads.forEach((r, i) => expect(r!.buf.equals(Buffer.alloc(100 + i, i))).toBe(true));
  });
});
