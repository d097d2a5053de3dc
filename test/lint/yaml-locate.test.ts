import { describe, expect, it } from "vitest";
import { YamlSource } from "../../src/lint/yaml-locate.js";

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

  it("offsets lines for frontmatter and survives broken YAML", () => {
    expect(new YamlSource("a:\n  b: 1\n", 1).locate(["a", "b"], true)).toEqual({ line: 3, column: 3 });
    expect(() => new YamlSource("a: [\n").locate(["a"])).not.toThrow();
  });
});
