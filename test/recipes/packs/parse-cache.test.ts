import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ParseCache } from "../../../src/recipes/packs/parse-cache.js";
import { parsePack, readPackPart } from "../../../src/recipes/packs/parsed-pack.js";

const PACK = `pack:
  name: demo
recipes:
  - name: far
    description: A value YAML has and JSON has not
    limit: .inf
    __proto__: { polluted: true }
    inputs_schema: { type: object, properties: { n: { type: number } } }
  - name: broken
    inputs_schema: { type: object, $id: "https://example.com/x" }
`;

let dir: string;
let file: string;
const warnings: string[] = [];
const notes: string[] = [];
const logger = {
  info: (_obj: Record<string, unknown>, msg: string) => void notes.push(msg),
  warn: (_obj: Record<string, unknown>, msg: string) => void warnings.push(msg),
};

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "parse-cache-"));
  file = path.join(dir, "state", "parsed-packs");
  warnings.length = 0;
  notes.length = 0;
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** What the loader does: look up, parse on a miss, remember. */
function through(cache: ParseCache, name: string, text: string): { key: string; parsed: ReturnType<typeof parsePack> } {
  const key = cache.keyOf(name, text);
  let parsed = cache.get(key);
  if (parsed === undefined) {
    parsed = parsePack(text, name);
    cache.set(key, parsed);
  }
  return { key, parsed };
}

describe("ParseCache", () => {
  it("serves a pack parsed in an earlier process exactly as a fresh parse, verdicts included", async () => {
    const first = new ParseCache(file, logger);
    await first.load();
    const { key } = through(first, "RECIPES.yaml", PACK);
    expect(first.stats()).toEqual({ hits: 0, misses: 1 });
    await first.persist(new Set([key]));

    const second = new ParseCache(file, logger);
    await second.load();
    const cached = second.get(second.keyOf("RECIPES.yaml", PACK));
    expect(second.stats()).toEqual({ hits: 1, misses: 0 });
    const fresh = parsePack(PACK, "RECIPES.yaml");
    expect(cached).toEqual(fresh);
    expect(cached!.entries.map((e) => e.verdicts.input?.code ?? null)).toEqual([null, "id_unsupported"]);
    const entry = readPackPart(cached!, 1);
    expect(entry["limit"]).toBe(Infinity);
    expect(Object.hasOwn(entry, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it("misses when the text or the file name differs", async () => {
    const cache = new ParseCache(file, logger);
    through(cache, "RECIPES.yaml", PACK);
    expect(cache.get(cache.keyOf("RECIPES.yaml", PACK + "\n"))).toBeUndefined();
    expect(cache.get(cache.keyOf("other.yaml", PACK))).toBeUndefined();
  });

  it.each([
    ["a truncated file", "warn", (b: Buffer) => b.subarray(0, b.length - 3)],
    ["a file from another build", "info", (b: Buffer) => Buffer.concat([Buffer.from("recipe-server parse cache 1\n" + "x".repeat(43) + "\n"), b.subarray(b.indexOf(10, 30) + 1)])],
    ["garbage", "warn", () => Buffer.from("not a cache at all")],
    ["an entry whose bytes are not a serialised value", "none", (b: Buffer) => {
      const copy = Buffer.from(b);
      copy.fill(0xff, copy.length - 20);
      return copy;
    }],
  ])("discards %s and parses again (logged: %s)", async (_name, logged, damage) => {
    const first = new ParseCache(file, logger);
    const { key } = through(first, "RECIPES.yaml", PACK);
    await first.persist(new Set([key]));
    await fs.writeFile(file, damage(await fs.readFile(file)));

    const second = new ParseCache(file, logger);
    await second.load();
    const again = through(second, "RECIPES.yaml", PACK);
    expect(again.parsed).toEqual(parsePack(PACK, "RECIPES.yaml"));
    expect(second.stats().misses).toBe(1);
    // An upgrade is routine (info); damage is worth a warning; a bad entry is just a miss.
    expect([warnings.length > 0 ? "warn" : notes.length > 0 ? "info" : "none"]).toEqual([logged]);
  });

  it("keeps only the entries the catalog still serves", async () => {
    const cache = new ParseCache(file, logger);
    const a = through(cache, "a.yaml", PACK);
    through(cache, "b.yaml", PACK);
    await cache.persist(new Set([a.key]));

    const reread = new ParseCache(file, logger);
    await reread.load();
    expect(reread.get(reread.keyOf("b.yaml", PACK))).toBeUndefined();
    expect(reread.get(reread.keyOf("a.yaml", PACK))).toBeDefined();
  });

  it("does not rewrite an unchanged cache, and concurrent persists write once", async () => {
    const cache = new ParseCache(file, logger);
    const { key } = through(cache, "a.yaml", PACK);
    await Promise.all([cache.persist(new Set([key])), cache.persist(new Set([key]))]);
    const before = await fs.stat(file);
    await new Promise((r) => setTimeout(r, 20));
    await cache.persist(new Set([key]));
    expect((await fs.stat(file)).mtimeMs).toBe(before.mtimeMs);
    const entries = await fs.readdir(path.dirname(file));
    expect(entries).toEqual(["parsed-packs"]);
  });

  it("regression: a load with no packs still leaves a cache file, once, so the next start knows one finished here", async () => {
    const cache = new ParseCache(file, logger);
    await cache.load();
    await cache.persist(new Set());
    expect((await fs.stat(file)).isFile()).toBe(true);
    const before = await fs.stat(file);
    await new Promise((r) => setTimeout(r, 20));
    // Read back empty: nothing to write again, by this process or the next.
    await cache.persist(new Set());
    const next = new ParseCache(file, logger);
    await next.load();
    expect(next.isEmpty()).toBe(true);
    await next.persist(new Set());
    expect((await fs.stat(file)).mtimeMs).toBe(before.mtimeMs);
    expect(warnings).toEqual([]);
  });

  it("keeps working in memory when the cache cannot be written", async () => {
    await fs.writeFile(path.join(dir, "state"), "a file where the state dir should be");
    const cache = new ParseCache(file, logger);
    await cache.load();
    const { key } = through(cache, "a.yaml", PACK);
    await expect(cache.persist(new Set([key]))).resolves.toBeUndefined();
    expect(warnings.some((w) => w.includes("not written"))).toBe(true);
    expect(cache.get(key)).toBeDefined();
  });

  it("forgets parses the catalog no longer serves, without touching the file", async () => {
    const cache = new ParseCache(file, logger);
    const a = through(cache, "a.yaml", PACK);
    const b = through(cache, "b.yaml", PACK);
    await cache.persist(new Set([a.key, b.key]));
    const before = await fs.readFile(file);
    cache.forget(new Set([a.key]));
    expect(cache.get(b.key)).toBeUndefined();
    expect(cache.get(a.key)).toBeDefined();
    expect(await fs.readFile(file)).toEqual(before);
  });

  it("regression: a byte flipped inside an entry is a miss, never a recipe that differs from the file", async () => {
    const first = new ParseCache(file, logger);
    const { key } = through(first, "RECIPES.yaml", PACK);
    await first.persist(new Set([key]));
    const bytes = await fs.readFile(file);
    const at = bytes.indexOf("A value YAML has");
    expect(at).toBeGreaterThan(0);
    bytes[at] = "B".charCodeAt(0);
    await fs.writeFile(file, bytes);
    const second = new ParseCache(file, logger);
    await second.load();
    expect(second.get(key)).toBeUndefined();
  });

  it("regression: an entry of the wrong shape (sound bytes, foreign content) is a miss, not a crash at every start", async () => {
    const first = new ParseCache(file, logger);
    const key = first.keyOf("RECIPES.yaml", PACK);
    // Deliberately not a PackRecord's summaries: what another tool or an old format could leave behind.
    first.set(key, { ...parsePack(PACK, "RECIPES.yaml"), diagnostics: 5, entries: "x" } as unknown as ReturnType<typeof parsePack>);
    await first.persist(new Set([key]));
    const second = new ParseCache(file, logger);
    await second.load();
    expect(second.get(key)).toBeUndefined();
    expect(second.stats()).toEqual({ hits: 0, misses: 1 });
  });
});

describe("parse cache: entry parts", () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "parse-cache-parts-"));
    file = path.join(dir, "parsed-packs");
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("regression: offsets that do not delimit the body (or miss an entry) make the entry a miss, never a wrong recipe", async () => {
    const fresh = parsePack(PACK, "RECIPES.yaml");
    const broken = [
      { ...fresh, bodyOffsets: fresh.bodyOffsets.slice(0, -1) },
      { ...fresh, bodyOffsets: Uint32Array.from(fresh.bodyOffsets, (o, i) => (i === 1 ? o + 1_000_000 : o)) },
      { ...fresh, bodyOffsets: Uint32Array.from(fresh.bodyOffsets, (o, i) => (i === fresh.bodyOffsets.length - 1 ? o - 1 : o)) },
    ];
    for (const record of broken) {
      const first = new ParseCache(file, logger);
      const key = first.keyOf("RECIPES.yaml", PACK);
      first.set(key, record as unknown as ReturnType<typeof parsePack>);
      await first.persist(new Set([key]));
      const second = new ParseCache(file, logger);
      await second.load();
      expect(second.get(key)).toBeUndefined();
    }
  });

  it("keeps .inf, .nan and -0 exactly (those parts are not JSON)", () => {
    const record = parsePack("recipes:\n  - name: a\n    limits: [.inf, -.inf, .nan, -0.0, 1.5]\n  - name: b\n    n: 2\n", "RECIPES.yaml");
    const limits = readPackPart(record, 1)["limits"] as number[];
    expect(limits[0]).toBe(Infinity);
    expect(limits[1]).toBe(-Infinity);
    expect(limits[2]).toBeNaN();
    expect(Object.is(limits[3], -0)).toBe(true);
    // Only the part holding them is v8 bytes; the other stays JSON.
    expect(record.body[record.bodyOffsets[1]!]).toBe(0xff);
    expect(String.fromCharCode(record.body[record.bodyOffsets[2]!]!)).toBe("{");
  });

  it("each entry reads back on its own, part 0 being the pack-level keys", () => {
    const record = parsePack(PACK, "RECIPES.yaml");
    expect(record.bodyOffsets.length).toBe(record.entries.length + 2);
    record.entries.forEach((summary, i) => expect(readPackPart(record, i + 1)["name"]).toBe(summary.name));
    expect(Object.keys(readPackPart(record, 0))).not.toContain("recipes");
  });
});
