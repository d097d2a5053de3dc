/**
 * A parse worker's reply crosses threads as pack-wire.ts encodes it: what
 * arrives must equal what the calling thread would have parsed itself, for
 * every pack a load can meet, good or bad.
 */
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { deserialize, serialize } from "node:v8";
import fg from "fast-glob";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parsePackFile } from "../../../src/recipes/packs/pack-file.js";
import { fileResultFromWire, fileResultToWire, recordFromWire, recordToWire } from "../../../src/recipes/packs/pack-wire.js";
import { parsePack } from "../../../src/recipes/packs/parsed-pack.js";
import { EXAMPLE_SKILLS, REAL_SKILLS } from "../../e2e/harness.js";

const hasReal = existsSync(REAL_SKILLS);
if (!hasReal) console.warn(`pack-wire tests on the real packs skipped: ${REAL_SKILLS} not found`);

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
  let tmp: string;
  beforeEach(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "pack-wire-"));
  });
  afterEach(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });

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
