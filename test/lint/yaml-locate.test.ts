import { describe, expect, it } from "vitest";
import { entrySlice, YamlSource } from "../../src/lint/yaml-locate.js";

const text = "\uFEFFpack: {name: p}\nrecipes:\n  - name: a\n    inputs_schema: {type: object, properties: {n: {minimun: 1}}}\n  - name: b\n    steps:\n      - tool: t\n";

describe("YamlSource", () => {
  const src = new YamlSource(text);

  it("finds keys and values in block and flow style", () => {
    expect(src.locate(["recipes", 0, "inputs_schema", "properties", "n", "minimun"], true)).toEqual({ line: 4, column: 52 });
    expect(src.locate(["recipes", 1, "steps", 0, "tool"])).toEqual({ line: 7, column: 15 });
  });

  it("falls back to the deepest existing node, or undefined when exact", () => {
    expect(src.locate(["recipes", 1, "output_contract"])).toEqual({ line: 5, column: 5 });
    expect(src.locate(["recipes", 1, "output_contract"], false, true)).toBeUndefined();
    expect(src.locate(["recipes", 9])).toEqual({ line: 3, column: 3 });
  });

  it("maps an entry line back to its index", () => {
    expect(src.entryIndexAt(3)).toBe(0);
    expect(src.entryIndexAt(5)).toBe(1);
    expect(src.entryIndexAt(4)).toBeUndefined();
  });

  it("regression: tells flow-style (JSON-like) entries apart by name when their lines do not", () => {
    const flow = new YamlSource('{"recipes": [{"name": "one", "x": {"minimun": 1}}, {"name": "two", "x": {"requried": []}}]}');
    expect(flow.entryIndexAt(1)).toBe(0);
    expect(flow.entryIndexAt(1, "two")).toBe(1);
    expect(flow.entryIndexAt(1, "one")).toBe(0);
    expect(flow.entryIndexAt(1, "nope")).toBe(0);
    expect(flow.locate(["recipes", 1, "x", "requried"], true)).toEqual({ line: 1, column: 74 });
  });

  it("offsets lines for frontmatter and survives broken YAML", () => {
    expect(new YamlSource("a:\n  b: 1\n", 1).locate(["a", "b"], true)).toEqual({ line: 3, column: 3 });
    expect(() => new YamlSource("a: [\n").locate(["a"])).not.toThrow();
  });
});

describe("entrySlice", () => {
  const pack = "recipes:\n  - name: a\n    description: >-\n      long\n\n    # comment\n    steps: []\n  - name: b\n    steps: [x]\ntool_routing: {}\n";

  it("cuts one entry and keeps its lines and columns", () => {
    const a = entrySlice(pack, 2)!;
    expect(a.text).toBe("    name: a\n    description: >-\n      long\n\n    # comment\n    steps: []");
    expect(new YamlSource(a.text, a.lineOffset).locate(["steps"], true)).toEqual({ line: 7, column: 5 });
    const b = entrySlice(pack, 8)!;
    expect(new YamlSource(b.text, b.lineOffset).locate(["steps", 0])).toEqual({ line: 9, column: 13 });
  });

  it("handles a compact sequence at column 0 and refuses layouts it does not know", () => {
    const compact = "recipes:\n- name: a\n  steps: []\nother: 1\n";
    expect(entrySlice(compact, 2)!.text).toBe("  name: a\n  steps: []");
    expect(entrySlice("recipes: [{name: a}]\n", 1)).toBeNull();
    expect(entrySlice("recipes:\n  -\n    name: a\n", 3)).toBeNull();
    expect(entrySlice("x\n", 9)).toBeNull();
  });
});
