/**
 * parsePackFile: a pack from its path, as a parse worker reads it. Every
 * outcome is data, and the key is the one ParseCache.keyOf gives the same
 * bytes (a cold load's keys must be hit by the next start's lookups).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parsePackFile } from "../../../src/recipes/packs/pack-file.js";
import { packCacheKey, ParseCache } from "../../../src/recipes/packs/parse-cache.js";
import { parsePack } from "../../../src/recipes/packs/parsed-pack.js";
import { MAX_RECIPE_FILE_BYTES } from "../../../src/recipes/packs/yaml-pack.js";

const PACK = "recipes:\n  - name: bevel\n    description: bevel edges\n    steps: [{ tool: bevel }]\n";

let tmp: string;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "pack-file-"));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe("parsePackFile", () => {
  it("parses as parsePack does and keys the bytes as the parse cache does", async () => {
    const file = path.join(tmp, "RECIPES.yaml");
    await fs.writeFile(file, PACK);
    const cache = new ParseCache(null);
    const outcome = parsePackFile(tmp, file, "RECIPES.yaml", cache.keyFingerprint);
    expect(outcome.kind).toBe("parsed");
    if (outcome.kind !== "parsed") return;
    expect(outcome.key).toBe(cache.keyOf("RECIPES.yaml", Buffer.from(PACK)));
    expect(outcome.key).not.toBe(cache.keyOf("OTHER.yaml", Buffer.from(PACK)));
    expect({ ...outcome.record, body: [...outcome.record.body] }).toEqual({ ...parsePack(PACK, "RECIPES.yaml"), body: [...parsePack(PACK, "RECIPES.yaml").body] });
  });

  it("keys by fingerprint too: another build of the code never hits", () => {
    expect(packCacheKey("a", "f.yaml", PACK)).not.toBe(packCacheKey("b", "f.yaml", PACK));
    expect(packCacheKey("a", "f.yaml", PACK)).toBe(packCacheKey("a", "f.yaml", Buffer.from(PACK)));
  });

  it("reports a missing file, a directory and an oversized file as read failures", async () => {
    expect(parsePackFile(tmp, path.join(tmp, "nope.yaml"), "nope.yaml", "")).toEqual({ kind: "unreadable", read: { ok: false, reason: "missing", code: "ENOENT" } });
    await fs.mkdir(path.join(tmp, "dir.yaml"));
    expect(parsePackFile(tmp, path.join(tmp, "dir.yaml"), "dir.yaml", "")).toMatchObject({ kind: "unreadable", read: { reason: "not_file" } });
    await fs.writeFile(path.join(tmp, "big.yaml"), `# ${"x".repeat(MAX_RECIPE_FILE_BYTES)}\n`);
    expect(parsePackFile(tmp, path.join(tmp, "big.yaml"), "big.yaml", "")).toMatchObject({ kind: "unreadable", read: { reason: "too_large" } });
  });

  it("accepts a pack of exactly the size limit", async () => {
    const text = `${PACK}#${"x".repeat(MAX_RECIPE_FILE_BYTES - PACK.length - 2)}\n`;
    expect(Buffer.byteLength(text)).toBe(MAX_RECIPE_FILE_BYTES);
    await fs.writeFile(path.join(tmp, "edge.yaml"), text);
    expect(parsePackFile(tmp, path.join(tmp, "edge.yaml"), "edge.yaml", "").kind).toBe("parsed");
  });

  it("refuses bytes that are not UTF-8 without parsing them", async () => {
    await fs.writeFile(path.join(tmp, "latin1.yaml"), Buffer.concat([Buffer.from(PACK), Buffer.from([0xe9, 0x0a])]));
    expect(parsePackFile(tmp, path.join(tmp, "latin1.yaml"), "latin1.yaml", "")).toEqual({ kind: "not_utf8" });
  });

  it("does not block on a FIFO planted where a pack should be", async () => {
    const fifo = path.join(tmp, "fifo.yaml");
    try {
      execFileSync("mkfifo", [fifo]);
    } catch {
      console.warn("FIFO case skipped: mkfifo is not available here");
      return;
    }
    expect(parsePackFile(tmp, fifo, "fifo.yaml", "")).toMatchObject({ kind: "unreadable", read: { reason: "not_file" } });
  });

  it("keeps a parse error as a parsed record with its diagnostic (it is cached like any parse)", async () => {
    await fs.writeFile(path.join(tmp, "bad.yaml"), "recipes: [unclosed\n");
    const outcome = parsePackFile(tmp, path.join(tmp, "bad.yaml"), "bad.yaml", "");
    expect(outcome.kind).toBe("parsed");
    if (outcome.kind === "parsed") expect(outcome.record.diagnostics.map((d) => d.code)).toEqual(["yaml_parse_error"]);
  });
});
