/** assemble.ts: node fast paths and the leaf tests property/item loops run inline. */
import { describe, expect, it } from "vitest";
import { compileGraph } from "../../src/jsonschema/compile.js";
import { leafPasses } from "../../src/jsonschema/assemble.js";
import { collectingState } from "../../src/jsonschema/context.js";
import { DEFAULT_MAX_STEPS } from "../../src/jsonschema/steps.js";
import { accepts } from "./helpers.js";

function leaf(schema: unknown) {
  const g = compileGraph(schema);
  if (!g.ok) throw new Error("refused");
  return g.root.leaf;
}

describe("leaf tests", () => {
  it("are built only for a scalar type with bounds, length, pattern, or scalar enum/const", () => {
    expect(leaf({ type: "integer", minimum: 0 })).not.toBeNull();
    expect(leaf({ type: "string", pattern: "^a", maxLength: 3 })).not.toBeNull();
    expect(leaf({ enum: ["a", 1, null] })).not.toBeNull();
    expect(leaf({ const: true })).not.toBeNull();
    expect(leaf({ type: "boolean" })).not.toBeNull();
    expect(leaf({ pattern: "^a" })).toBeNull(); // applies to strings only: other values pass
    expect(leaf({ minimum: 1 })).toBeNull();
    expect(leaf({ type: "number", multipleOf: 2 })).toBeNull();
    expect(leaf({ type: ["string", "null"] })).toBeNull();
    expect(leaf({ type: "object" })).toBeNull();
    expect(leaf({ enum: [[1]] })).toBeNull();
    expect(leaf({ type: "string", $ref: "#/$defs/a", $defs: { a: {} } })).toBeNull();
  });

  it("answer as the node does", () => {
    const schemas = [
      { type: "integer", minimum: 0, exclusiveMaximum: 10 },
      { type: "string", pattern: "^[a-z]+$", minLength: 2 },
      { enum: ["a", 1, null, false] },
      { const: 0 },
      { type: "number", enum: [1, 2.5, "x"] },
      { type: "null" },
    ];
    const values = [0, -0, 1, 1.0, 2.5, 9.99, 10, -1, "", "a", "ab", "aB", "😀😀", null, false, true, [], {}, "x"];
    for (const s of schemas) {
      const l = leaf(s);
      if (l === null) throw new Error(`no leaf for ${JSON.stringify(s)}`);
      const ok = accepts(s);
      for (const v of values) expect(leafPasses(l, v, collectingState(true, 0, 512, DEFAULT_MAX_STEPS)), JSON.stringify({ s, v })).toBe(ok(v));
    }
  });

  it("are used inside property and item loops", () => {
    const ok = accepts({
      type: "object",
      properties: { a: { type: "string", pattern: "^x" }, b: { enum: [1, 2] }, c: { type: "array", items: { const: "k" } } },
      additionalProperties: false,
    });
    expect(ok({ a: "xy", b: 2, c: ["k", "k"] })).toBe(true);
    expect(ok({ a: "yx", b: 2 })).toBe(false);
    expect(ok({ a: "x", b: 3 })).toBe(false);
    expect(ok({ c: ["k", "j"] })).toBe(false);
    expect(ok({ b: [1] })).toBe(false);
  });
});
