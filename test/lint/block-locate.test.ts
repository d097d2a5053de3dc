import { readFileSync } from "node:fs";
import path from "node:path";
import fg from "fast-glob";
import { describe, expect, it } from "vitest";
import { blockLocate } from "../../src/lint/block-locate.js";
import { entrySlice, YamlSource } from "../../src/lint/yaml-locate.js";
import { parseRecipePack } from "../../src/recipes/packs/yaml-pack.js";
import { repoRoot } from "./helpers.js";
import { REAL_SKILLS, requireShared } from "../helpers/shared.js";

function paths(value: unknown, prefix: (string | number)[], out: (string | number)[][], depth = 0): void {
  if (depth > 40) return;
  if (Array.isArray(value)) value.forEach((v, i) => (out.push([...prefix, i]), paths(v, [...prefix, i], out, depth + 1)));
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.push([...prefix, k]);
      paths(v, [...prefix, k], out, depth + 1);
    }
  }
}

const packFiles = [
  ...fg.sync("skills-example/**/*.{yaml,yml}", { cwd: repoRoot, absolute: true }),
  ...(requireShared(REAL_SKILLS, "blockLocate on the real packs") ? fg.sync("**/*.{yaml,yml}", { cwd: REAL_SKILLS, absolute: true }) : []),
];

describe("blockLocate agrees with the yaml package", () => {
  it("on every node of every real and example pack, when it answers at all", () => {
    let answered = 0;
    let asked = 0;
    for (const file of packFiles) {
      const text = readFileSync(file, "utf8");
      const parsed = parseRecipePack(text, path.basename(file));
      if (!parsed.ok) continue;
      for (const { entry, line } of parsed.entries) {
        const slice = entrySlice(text, line)!;
        const full = new YamlSource(slice.text, slice.lineOffset);
        const all: (string | number)[][] = [[]];
        paths(entry, [], all);
        for (const p of all) {
          for (const atKey of [false, true]) {
            if (atKey && (p.length === 0 || typeof p.at(-1) === "number")) continue;
            asked++;
            const fast = blockLocate(slice.text, slice.lineOffset, p, atKey);
            if (fast === null) continue;
            answered++;
            expect(fast, `${path.basename(file)}:${line} ${JSON.stringify(p)} key=${atKey}`).toEqual(full.locate(p, atKey, true));
          }
        }
      }
    }
    expect(asked).toBeGreaterThan(1000);
    // Most lookups should not need the slow parse.
    expect(answered / asked).toBeGreaterThan(0.5);
  });

  it("declines what it cannot read for certain", () => {
    expect(blockLocate("a: {b: 1}", 0, ["a", "b"], false)).toBeNull();
    expect(blockLocate("a: &x\n  b: 1", 0, ["a", "b"], false)).toBeNull();
    expect(blockLocate("a:\n\t b: 1", 0, ["a", "b"], false)).toBeNull();
    expect(blockLocate("a:\n  -\n    b: 1", 0, ["a", 0, "b"], false)).toBeNull();
    expect(blockLocate("a: 1", 0, ["zz"], false)).toBeNull();
  });

  it("reads compact sequences, quoted keys and comments", () => {
    const t = "    # c\n    \"odd key\": 1\n    list:\n    - x\n    - y: 2\n      z: 3\n";
    expect(blockLocate(t, 10, ["odd key"], true)).toEqual({ line: 12, column: 5 });
    expect(blockLocate(t, 10, ["list", 1, "z"], true)).toEqual({ line: 16, column: 7 });
    expect(blockLocate(t, 10, [], false)).toEqual({ line: 12, column: 5 });
  });
});
