/**
 * The fast path (js-yaml) must agree with the `yaml`
 * package (data and entry lines) wherever it answers, and step aside wherever
 * exact diagnostics or alias caps matter.
 */
import fs from "node:fs";
import path from "node:path";
import fg from "fast-glob";
import { isSeq, LineCounter, parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { parsePackFast, parsePlainFast } from "../../src/skills/yaml-fast.js";
import { EXAMPLE_SKILLS } from "../e2e/harness.js";
import { REAL_SKILLS, requireShared } from "../helpers/shared.js";

function exact(text: string): { data: unknown; lines: number[] | null } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true });
  const seq = doc.get("recipes", true);
  const lines = isSeq(seq) ? seq.items.map((n) => lineCounter.linePos((n as { range: number[] }).range[0]!).line) : null;
  return { data: doc.toJS(), lines };
}

/** A pack opening with a multi-line plain description (what a plain-subset parser would not cover). */
const OUTSIDE_SUBSET = "recipes:\n  - name: x\n    description: a\n      b\n";

const hasReal = requireShared(REAL_SKILLS, "the fast parsers on the real packs");
const realFiles = (patterns: string[]): string[] => (hasReal ? fg.sync(patterns, { cwd: REAL_SKILLS, absolute: true }) : []);

const packs = realFiles(["**/*.yaml", "**/*.yml"]).concat(
  fg.sync(["**/*.yaml", "**/*.yml"], { cwd: EXAMPLE_SKILLS, absolute: true }),
);

describe("parsePackFast", () => {
  it.each(packs.map((p) => [path.basename(path.dirname(p)) + "/" + path.basename(p), p]))(
    "agrees with the yaml package on %s",
    (_name, file) => {
      const text = fs.readFileSync(file, "utf8");
      const fast = parsePackFast(text);
      expect(fast).not.toBeNull();
      const reference = exact(text);
      expect(fast!.data).toEqual(reference.data);
      expect(fast!.recipeLines).toEqual(reference.lines);
    },
  );

  it.each([
    ["an anchor and alias", "base: &b { dcc: maya }\nrecipes:\n  - name: a\n    <<: *b\n"],
    ["an alias bomb", "a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nrecipes: []\n"],
    ["a duplicate key", "recipes:\n  - name: a\n    name: b\n"],
    ["an unknown tag", "recipes:\n  - name: !custom x\n"],
    ["two documents", "recipes: []\n---\nrecipes: []\n"],
    ["broken syntax", "recipes: [\n  - name: x\n"],
    ["an underscored number", `${OUTSIDE_SUBSET}    n: 1_000\n`],
    ["a binary number", `${OUTSIDE_SUBSET}    n: 0b11\n`],
    ["an underscored hex number", `${OUTSIDE_SUBSET}    n: 0x_1F\n`],
    ["a signed leading-dot float", `${OUTSIDE_SUBSET}    n: +.5\n`],
  ])("steps aside for %s", (_name, text) => {
    expect(parsePackFast(text)).toBeNull();
  });

  it("answers plain packs with js-yaml", () => {
    const plain = `${OUTSIDE_SUBSET}    n: 7\n`;
    expect(parsePackFast(plain)).toStrictEqual({ data: exact(plain).data, recipeLines: exact(plain).lines });
  });

  it("leaves every scalar js-yaml types differently to the yaml package", () => {
    for (const value of ["1_000", "0b11", "0x_1F", "+.5", "-.5", "2024_01"]) {
      expect(parsePackFast(`recipes:\n  - name: x\n    n: ${value}\n`)).toBeNull();
    }
  });

  it("regression: a value never changes type with the parser (no divergent scalar reaches js-yaml)", async () => {
    const { parseRecipePack } = await import("../../src/recipes/packs/yaml-pack.js");
    for (const value of ["1_000", "0b11", "0x_1F", "+.5", "-.5", "2024_01"]) {
      const plain = parseRecipePack(`recipes:\n  - name: x\n    n: ${value}\n`, "p.yaml");
      const anchored = parseRecipePack(`a: &k 1\nrecipes:\n  - name: x\n    n: ${value}\n`, "p.yaml");
      expect(plain.ok && anchored.ok).toBe(true);
      if (plain.ok && anchored.ok) expect(plain.entries[0]!.entry.n).toStrictEqual(anchored.entries[0]!.entry.n);
    }
  });

  it("keeps YAML 1.2 core types (dates stay strings, no merge keys)", () => {
    const fast = parsePackFast("recipes:\n  - name: 2024-01-01\n    n: 0o17\n    f: .inf\n    b: yes\n");
    expect(fast?.data).toEqual({ recipes: [{ name: "2024-01-01", n: 15, f: Infinity, b: "yes" }] });
  });

  it("keeps a __proto__ key as data without touching prototypes", () => {
    const fast = parsePackFast("recipes:\n  - name: x\n    __proto__: { polluted: true }\n");
    const entry = (fast?.data as { recipes: Array<Record<string, unknown>> }).recipes[0]!;
    expect(Object.hasOwn(entry, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

/** The YAML between a SKILL.md's opening and closing `---`, as frontmatter.ts splits it. */
function frontmatterOf(file: string): string | null {
  const lines = fs.readFileSync(file, "utf8").replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").split("\n");
  if (lines[0]?.trimEnd() !== "---") return null;
  const end = lines.findIndex((l, i) => i > 0 && l.trimEnd() === "---");
  return end > 0 ? lines.slice(1, end).join("\n") : null;
}

const skillFiles = realFiles(["**/SKILL.md"]).concat(fg.sync(["**/SKILL.md"], { cwd: EXAMPLE_SKILLS, absolute: true }));

describe("parsePlainFast", () => {
  it.each(skillFiles.map((p) => [path.relative(path.dirname(path.dirname(p)), p), p]))(
    "agrees with the yaml package on the frontmatter of %s",
    (_name, file) => {
      const yaml = frontmatterOf(file);
      if (yaml === null) return; // a legacy SKILL.md without frontmatter: nothing to parse
      const reference = parseDocument(yaml, { uniqueKeys: true });
      const fast = parsePlainFast(yaml);
      if (reference.errors.length > 0) expect(fast).toBeNull();
      else expect(fast?.data).toEqual(reference.toJS());
    },
  );

  it.each([
    ["an anchor and alias", "a: &x 1\nb: *x\n"],
    ["a duplicate key", "name: a\nname: b\n"],
    ["an underscored number", "d: 'multi\n  line'\nversion: 1_000\n"],
    ["a signed leading-dot float", "d: 'multi\n  line'\nn: -.5\n"],
    ["broken syntax", "name: [a\n"],
  ])("steps aside for %s", (_name, text) => {
    expect(parsePlainFast(text)).toBeNull();
  });

  it("regression: the cheap divergence hint never hides a divergent scalar", () => {
    // Each hides a divergent scalar after text that passes the hint alone.
    for (const text of ["a: x\nn: 1_0\n", "a: [0b1]\n", "a: {k: 0x_F}\n", "a: +.5 # c\n"]) {
      expect(parsePlainFast(`d: 'multi\n  line'\n${text}`)).toBeNull();
      expect(parsePlainFast(text)).toBeNull();
    }
  });
});
