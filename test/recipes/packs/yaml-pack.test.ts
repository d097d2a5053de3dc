import { describe, expect, it } from "vitest";
import { MAX_RECIPE_FILE_BYTES, MAX_YAML_DEPTH, parseRecipePack } from "../../../src/recipes/packs/yaml-pack.js";

const codes = (r: ReturnType<typeof parseRecipePack>): string[] => r.diagnostics.map((d) => d.code);

describe("parseRecipePack", () => {
  it("returns entries with lines and keeps pack-level keys", () => {
    const r = parseRecipePack(
      "pack:\n  name: p\ntool_routing:\n  tools: {a: b}\nrecipes:\n  - name: one\n    undo: none\n\n  - name: two\n    toolset_profile: mesh\n",
      "R.yaml",
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.pack).toEqual({ pack: { name: "p" }, tool_routing: { tools: { a: "b" } } });
    expect(r.entries.map((e) => [e.entry["name"], e.line])).toEqual([
      ["one", 6],
      ["two", 9],
    ]);
    expect(r.entries[0]!.entry["undo"]).toBe("none");
    expect(r.entries[1]!.entry["toolset_profiles"]).toEqual(["mesh"]);
    expect(r.diagnostics).toEqual([]);
  });

  it("toolset_profiles string becomes a one-item list; a list is kept; a mapping is refused with a warning", () => {
    const r = parseRecipePack(
      "recipes:\n  - {name: a, toolset_profiles: x}\n  - {name: b, toolset_profiles: [x, y]}\n  - {name: c, toolset_profiles: {x: 1}}\n",
      "R.yaml",
    );
    if (!r.ok) throw new Error("expected ok");
    expect(r.entries.map((e) => e.entry["toolset_profiles"])).toEqual([["x"], ["x", "y"], []]);
    expect(codes(r)).toEqual(["recipe_invalid_entry"]);
    expect(r.diagnostics[0]!.severity).toBe("warning");
  });

  it("skips entries without a non-empty string name and keeps the rest", () => {
    const r = parseRecipePack("recipes:\n  - name: ok\n  - description: no name\n  - name: ''\n  - name: 42\n  - just a string\n", "R.yaml");
    if (!r.ok) throw new Error("expected ok");
    expect(r.entries.map((e) => e.entry["name"])).toEqual(["ok"]);
    expect(codes(r)).toEqual(Array(4).fill("recipe_invalid_entry"));
    expect(r.diagnostics.map((d) => d.line)).toEqual([3, 4, 5, 6]);
  });

  it("duplicate keys are an error with the line", () => {
    const r = parseRecipePack("recipes:\n  - name: a\n    name: b\n", "R.yaml");
    expect(r.ok).toBe(false);
    expect(codes(r)).toContain("yaml_duplicate_key");
    expect(r.diagnostics.find((d) => d.code === "yaml_duplicate_key")!.line).toBe(3);
  });

  it("malformed YAML is a parse error, never Markdown", () => {
    const r = parseRecipePack("recipes:\n  - name: [unclosed\n## heading\n", "R.yaml");
    expect(r.ok).toBe(false);
    expect(codes(r)[0]).toBe("yaml_parse_error");
    expect(r.diagnostics[0]!.file).toBe("R.yaml");
  });

  it("billion laughs is refused by the alias cap", () => {
    let y = "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    for (let i = 1; i <= 9; i++) y += `l${i}: &l${i} [${Array(10).fill(`*l${i - 1}`).join(", ")}]\n`;
    y += "recipes:\n  - name: boom\n    steps: *l9\n";
    const r = parseRecipePack(y, "bomb.yaml");
    expect(r.ok).toBe(false);
    expect(codes(r)).toEqual(["yaml_alias_limit"]);
  });

  it("a few aliases are fine", () => {
    const r = parseRecipePack("common: &c {type: object}\nrecipes:\n  - name: a\n    inputs_schema: *c\n", "R.yaml");
    if (!r.ok) throw new Error("expected ok");
    expect(r.entries[0]!.entry["inputs_schema"]).toEqual({ type: "object" });
  });

  it("1 MiB exactly is accepted, one byte more refused", () => {
    const head = "recipes:\n  - name: big\n# ";
    const exact = head + "x".repeat(MAX_RECIPE_FILE_BYTES - head.length - 1) + "\n";
    expect(Buffer.byteLength(exact)).toBe(MAX_RECIPE_FILE_BYTES);
    expect(parseRecipePack(exact, "R.yaml").ok).toBe(true);
    const over = parseRecipePack(exact + "\n", "R.yaml");
    expect(over.ok).toBe(false);
    expect(codes(over)).toEqual(["file_too_large"]);
  });

  it.each([
    ["empty file", ""],
    ["top-level list", "- name: a\n"],
    ["scalar", "just text\n"],
    ["recipes not a list", "recipes: {name: a}\n"],
    ["no recipes key", "pack: {name: p}\n"],
    ["recipes: 42", "recipes: 42\n"],
  ])("%s is pack_missing_recipes", (_label, text) => {
    const r = parseRecipePack(text, "R.yaml");
    expect(r.ok).toBe(false);
    expect(codes(r)).toEqual(["pack_missing_recipes"]);
  });

  it("multiple YAML documents are refused", () => {
    expect(parseRecipePack("recipes: []\n---\nrecipes: []\n", "R.yaml").ok).toBe(false);
  });

  it("an empty recipes list is a valid pack with nothing in it", () => {
    const r = parseRecipePack("recipes: []\n", "R.yaml");
    expect(r.ok && r.entries.length === 0).toBe(true);
  });

  it("a __proto__ key stays data and does not re-prototype the entry", () => {
    const r = parseRecipePack("recipes:\n  - name: a\n    __proto__: {polluted: true}\n", "R.yaml");
    if (!r.ok) throw new Error("expected ok");
    const e = r.entries[0]!.entry;
    expect(Object.getPrototypeOf(e)).toBe(Object.prototype);
    expect((e as { polluted?: boolean }).polluted).toBeUndefined();
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("tolerates a BOM and CRLF", () => {
    const r = parseRecipePack("\uFEFFrecipes:\r\n  - name: a\r\n", "R.yaml");
    expect(r.ok).toBe(true);
  });
});

describe("nesting depth", () => {
  const flow = (depth: number): string => `recipes:\n  - name: deep\n    x: ${"[".repeat(depth)}1${"]".repeat(depth)}\n`;
  // The document's own levels: root mapping, recipes list, entry, then x's arrays.
  const own = 3;

  it("accepts a pack nested exactly MAX_YAML_DEPTH levels and refuses one level more", () => {
    expect(parseRecipePack(flow(MAX_YAML_DEPTH - own), "p.yaml").ok).toBe(true);
    const deeper = parseRecipePack(flow(MAX_YAML_DEPTH - own + 1), "p.yaml");
    expect(deeper.ok).toBe(false);
    expect(deeper.diagnostics.map((d) => [d.code, d.message])).toEqual([["yaml_parse_error", `p.yaml nests deeper than ${MAX_YAML_DEPTH} levels`]]);
  });

  it.each([3_000, 20_000])("regression: %i levels give the same stable diagnostic, never a stack-dependent one", (depth) => {
    const result = parseRecipePack(flow(depth), "p.yaml");
    expect(result.diagnostics.map((d) => d.message)).toEqual([`p.yaml nests deeper than ${MAX_YAML_DEPTH} levels`]);
  });
});
