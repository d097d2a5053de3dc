/**
 * A parse job. parsePackFile: a pack from its path, as a parse worker reads
 * it; every outcome is data, and the key is the one ParseCache.keyOf gives
 * the same bytes (a cold load's keys must be hit by the next start's
 * lookups). And a worker's reply as it crosses threads: what arrives must
 * equal what the calling thread would have parsed itself, for every pack a
 * load can meet, good or bad.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { deserialize, serialize } from "node:v8";
import fg from "fast-glob";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileResultFromWire, fileResultToWire, parsePackFile, recordFromWire, recordToWire } from "../../../src/recipes/packs/parse-job.js";
import { packCacheKey, ParseCache } from "../../../src/recipes/packs/parse-cache.js";
import { parsePack } from "../../../src/recipes/packs/parsed-pack.js";
import { MAX_RECIPE_FILE_BYTES } from "../../../src/recipes/packs/yaml-pack.js";
import { EXAMPLE_SKILLS } from "../../e2e/harness.js";
import { REAL_SKILLS, requireShared } from "../../helpers/shared.js";

const PACK = "recipes:\n  - name: bevel\n    description: bevel edges\n    steps: [{ tool: bevel }]\n";

let tmp: string;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "parse-job-"));
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

const hasReal = requireShared(REAL_SKILLS, "parse job wire tests on the real packs");

/** What a thread hop does to a value: a structured clone (v8's serializer is the same one). */
const hop = <T>(value: T): T => deserialize(serialize(value)) as T;

const HOSTILE: Record<string, string> = {
  "broken.yaml": "recipes:\n  - name: [unclosed\n",
  "not-a-list.yaml": "recipes: 5\n",
  "entries.yaml":
    "recipes:\n" +
    "  - name: ok\n    description: \"quote \\\" and \\u2028 and \\ud83d\\ude00\"\n    steps: [{ tool: a }]\n" +
    "  - name: bad_schema\n    inputs_schema: { $dynamicRef: '#x' }\n    output_contract: { type: 12 }\n" +
    "  - name: no_steps\n    steps: nope\n    toolset_profiles: [a, b]\n    dcc: ' Maya '\n" +
    "  - 12\n" +
    "  - name: far\n    limit: .inf\n    neg: -0\n",
  "empty.yaml": "",
};

describe("pack wire", () => {
  it("a record that crosses threads equals the one parsed in place, hostile packs included", () => {
    for (const [name, text] of Object.entries(HOSTILE)) {
      const parsed = parsePack(text, name);
      expect(recordFromWire(hop(recordToWire(parsed))), name).toEqual(parsed);
    }
    // The cases above reach the paths they are named for.
    const entries = parsePack(HOSTILE["entries.yaml"]!, "entries.yaml");
    expect(entries.entries.find((e) => e.name === "bad_schema")?.verdicts.input?.code).toBe("dynamic_ref_unsupported");
    expect(entries.diagnostics.length).toBeGreaterThan(0);
    expect(parsePack(HOSTILE["broken.yaml"]!, "broken.yaml").ok).toBe(false);
  });

  it("a file result crosses threads whole, failures included", async () => {
    await fs.writeFile(path.join(tmp, "good.yaml"), HOSTILE["entries.yaml"]!);
    await fs.writeFile(path.join(tmp, "latin1.yaml"), Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x3a, 0x20, 0xe9, 0x0a]));
    await fs.mkdir(path.join(tmp, "dir.yaml"));
    const kinds: string[] = [];
    for (const name of ["good.yaml", "latin1.yaml", "dir.yaml", "missing.yaml"]) {
      const result = parsePackFile(tmp, path.join(tmp, name), name, "fp");
      kinds.push(result.kind);
      expect(fileResultFromWire(hop(fileResultToWire(result))), name).toEqual(result);
    }
    expect(kinds).toEqual(["parsed", "not_utf8", "unreadable", "unreadable"]);
  });

  it.skipIf(!hasReal)("every YAML pack of the real skill packs and the examples crosses threads unchanged", async () => {
    const files = await fg(["**/*.{yaml,yml}"], { cwd: REAL_SKILLS, absolute: true, ignore: ["**/.git/**"] });
    files.push(...(await fg(["**/*.{yaml,yml}"], { cwd: EXAMPLE_SKILLS, absolute: true })));
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const file of files) {
      const result = parsePackFile(path.dirname(file), file, path.basename(file), "fp");
      expect(fileResultFromWire(hop(fileResultToWire(result))), file).toEqual(result);
    }
  });
});
