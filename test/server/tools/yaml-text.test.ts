import { readFileSync } from "node:fs";
import fg from "fast-glob";
import jsyaml from "js-yaml";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { entryAsYaml, isPlainScalar } from "../../../src/server/tools/yaml-text.js";
import { REAL_SKILLS, requireShared } from "../../helpers/shared.js";

/** Read back as the daemon reads packs (YAML 1.2 core) and as a YAML 1.1 reader would. */
function readBack(text: string): { core: unknown; v11: unknown; js: unknown } {
  return {
    core: YAML.parse(text, { schema: "core", uniqueKeys: true }),
    v11: YAML.parse(text, { version: "1.1" }),
    js: jsyaml.load(text, { schema: jsyaml.CORE_SCHEMA }),
  };
}

function expectRoundTrip(value: unknown): void {
  const text = entryAsYaml(value);
  const back = readBack(text);
  expect(back.core, text).toEqual(value);
  expect(back.js, text).toEqual(value);
  // YAML 1.1 turns `-0.0` and a few numbers into other types; strings and structure must hold.
  if (!JSON.stringify(value).match(/-?\d/)) expect(back.v11, text).toEqual(value);
}

const TRICKY_STRINGS = [
  "", " ", "  lead", "trail ", "a  b", "yes", "No", "ON", "off", "y", "n", "null", "Null", "~", "true", "False",
  "1", "1.5", "-1", "+1", "0x1F", "0o17", "1e3", ".inf", "-.inf", ".nan", ".5", "1_000",
  "- item", "-x", "? q", ": c", "key: value", "a:b", "a #b", "#c", "a#b", "&anchor", "*alias", "!tag", "|", ">", "%dir", "@at", "`tick",
  "'single'", '"double"', "it's", "${target}", "${a.b}", "{x}", "[x]", "a, b", "<<", "=", "/path/to", "$HOME",
  "line1\nline2", "line1\nline2\n", "line1\n\n", "\nlead newline", "  indented\nsecond", "tab\tinside", "trailing \nspace",
  "crlf\r\nline", "nel\u0085x", "ls\u2028x", "ps\u2029x", "del\u007fx", "c1\u0090x", "bom\ufeffx", "nonchar\uffffx", "nul\u0000x",
  "emoji 🙂 text", "日本語", "lone \ud800 surrogate".replace("\ud800", "\ud800"),
];

describe("entryAsYaml", () => {
  it("reads back as the same value for every tricky string, as a value, a key and an item", () => {
    for (const s of TRICKY_STRINGS) {
      if (/[\ud800-\udfff]/.test(s.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ""))) continue; // a lone surrogate is not text YAML can carry
      expectRoundTrip({ value: s });
      expectRoundTrip({ [s]: 1 });
      expectRoundTrip({ list: [s, { nested: s }] });
    }
  });

  it("keeps numbers, booleans, null and empty collections", () => {
    expectRoundTrip({ a: 0, b: -3, c: 1.25, d: 1e21, e: 1e-7, f: true, g: false, h: null, i: {}, j: [], k: [[]], l: [{}] });
    const special = readBack(entryAsYaml({ inf: Infinity, ninf: -Infinity, nan: NaN, nzero: -0 })).core as Record<string, number>;
    expect(special.inf).toBe(Infinity);
    expect(special.ninf).toBe(-Infinity);
    expect(special.nan).toBeNaN();
    expect(Object.is(special.nzero, -0)).toBe(true);
  });

  it("writes nested sequences and mappings in block style with literal blocks for prose", () => {
    const entry = { name: "bevel", steps: [{ tool: "maya__bevel", arguments: { target: "${target}", list: [1, [2, 3]] } }], notes: "first\nsecond\n" };
    expect(entryAsYaml(entry)).toBe(
      [
        "name: bevel",
        "steps:",
        "  - tool: maya__bevel",
        "    arguments:",
        "      target: ${target}",
        "      list:",
        "        - 1",
        "        - - 2",
        "          - 3",
        "notes: |",
        "  first",
        "  second",
        "",
      ].join("\n"),
    );
    expectRoundTrip(entry);
  });

  it("round-trips random JSON-like values (seeded)", () => {
    let state = 42;
    const next = (): number => ((state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32);
    const pieces = [...TRICKY_STRINGS.filter((s) => !/[\ud800-\udfff]/.test(s)), "plain", "two words", "x"];
    const value = (depth: number): unknown => {
      const r = next();
      if (depth > 4 || r < 0.35) return pieces[Math.floor(next() * pieces.length)];
      if (r < 0.45) return Math.round((next() - 0.5) * 1e6) / (next() < 0.5 ? 1 : 1000);
      if (r < 0.5) return next() < 0.5;
      if (r < 0.55) return null;
      if (r < 0.75) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, () => [pieces[Math.floor(next() * pieces.length)]!, value(depth + 1)]));
    };
    for (let i = 0; i < 400; i++) expectRoundTrip({ root: value(0) });
  });

  const realSkills = REAL_SKILLS;
  const haveShared = requireShared(realSkills, "the real-pack round trip");
  it.skipIf(!haveShared)("round-trips every entry of the real packs", () => {
    const files = fg.sync("**/*.{yaml,yml}", { cwd: realSkills, absolute: true });
    let entries = 0;
    for (const file of files) {
      let data: unknown;
      try {
        data = YAML.parse(readFileSync(file, "utf8"), { schema: "core" });
      } catch {
        continue; // hostile fixtures: not packs
      }
      const recipes = (data as { recipes?: unknown } | null)?.recipes;
      if (!Array.isArray(recipes)) continue;
      for (const entry of recipes) {
        expectRoundTrip(entry);
        entries += 1;
      }
    }
    expect(entries).toBeGreaterThan(20);
  });
});

describe("isPlainScalar", () => {
  // The definition the table-driven check implements.
  const PLAIN = /^[A-Za-z_$/][\w \-.$/(){}=+<>@%~,'"!?*&|^`[\]]*$/;
  const RESERVED = /^(?:y|yes|n|no|true|false|on|off|null)$/i;
  const byDefinition = (s: string): boolean =>
    PLAIN.test(s) && !RESERVED.test(s) && !s.endsWith(" ") && !s.includes("  ") && !s.includes(" #");

  it("equals its regex definition on the tricky strings and on random ones (seeded)", () => {
    for (const s of [...TRICKY_STRINGS, "Yes", "NULL", "nULl", "yess", "offf", "o", "a b", "a b ", "x\n", "\u0130", "K\u212A"]) {
      expect(isPlainScalar(s), JSON.stringify(s)).toBe(byDefinition(s));
    }
    let state = 7;
    const next = (): number => ((state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32);
    const alphabet = "aAzZ09_ -.$/(){}=+<>@%~,'\"!?*&|^`[]:#\t\n\u00e9\u0085\u2028yesnotrulfo";
    for (let i = 0; i < 20_000; i += 1) {
      let s = "";
      const length = Math.floor(next() * 8);
      for (let j = 0; j < length; j += 1) s += alphabet[Math.floor(next() * alphabet.length)];
      expect(isPlainScalar(s), JSON.stringify(s)).toBe(byDefinition(s));
    }
  });
});
