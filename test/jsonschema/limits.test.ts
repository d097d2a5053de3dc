/** Schema and instance bounds: 128 levels, 10,000 nodes, 1 MiB of schema JSON. */
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/jsonschema/index.js";
import fc from "fast-check";
import { measure, measureSchema } from "../../src/jsonschema/limits.js";
import { compiled, refusal } from "./helpers.js";

/** `levels` nested `not` objects: each is one container level. */
function nestedSchema(levels: number): unknown {
  let s: unknown = {};
  for (let i = 1; i < levels; i++) s = { not: s };
  return s;
}

function nestedArray(levels: number): unknown {
  let v: unknown = [];
  for (let i = 1; i < levels; i++) v = [v];
  return v;
}

describe("schema limits", () => {
  it("accepts 128 levels and refuses 129", () => {
    expect(compileSchema(nestedSchema(128)).ok).toBe(true);
    expect(refusal(nestedSchema(129)).code).toBe("too_deep");
  });

  it("refuses a 100,000-level schema without overflowing", () => {
    expect(refusal(nestedSchema(100_000)).code).toBe("too_deep");
  });

  it("accepts 10,000 nodes and refuses 10,001", () => {
    // root object + "enum" array + n-2 items = n JSON values
    const withNodes = (n: number) => ({ enum: Array.from({ length: n - 2 }, (_, i) => i) });
    expect(compileSchema(withNodes(10_000)).ok).toBe(true);
    expect(refusal(withNodes(10_001)).code).toBe("too_many_nodes");
  });

  it("accepts 1 MiB of JSON and refuses 1 MiB + 1 byte", () => {
    const overhead = JSON.stringify({ description: "" }).length;
    const sized = (bytes: number) => ({ description: "x".repeat(bytes - overhead) });
    expect(JSON.stringify(sized(1024 * 1024)).length).toBe(1024 * 1024);
    expect(compileSchema(sized(1024 * 1024)).ok).toBe(true);
    expect(refusal(sized(1024 * 1024 + 1)).code).toBe("too_large");
  });

  it("counts UTF-8 bytes, not UTF-16 units", () => {
    const overhead = JSON.stringify({ description: "" }).length;
    // "é" is 2 bytes: half as many characters reach the same size.
    const twoByte = { description: "é".repeat((1024 * 1024 - overhead) / 2 + 1) };
    expect(refusal(twoByte).code).toBe("too_large");
  });

  it("honours lower limits from options", () => {
    const r = compileSchema(nestedSchema(5), { maxDepth: 4 });
    expect(r.ok ? null : r.error.code).toBe("too_deep");
  });

  it("refuses values JSON cannot express", () => {
    expect(refusal({ minimum: Number.NaN }).code).toBe("malformed");
    expect(refusal({ const: undefined }).code).toBe("malformed");
    expect(refusal({ default: new Date(0) }).code).toBe("malformed");
    expect(refusal(() => true).code).toBe("malformed");
    expect(refusal("string").code).toBe("malformed");
    expect(refusal(null).code).toBe("malformed");
  });
});

describe("instance limits", () => {
  it("accepts 128 levels and rejects 129 with an error", () => {
    const v = compiled({});
    expect(v.validate(nestedArray(128)).valid).toBe(true);
    expect(v.validate(nestedArray(129))).toEqual({
      valid: false,
      errors: [{ instancePath: "", keywordLocation: "", keyword: "maxDepth", message: "Value nests deeper than 128 levels" }],
    });
  });

  it("rejects a 10,000-level instance against a recursive schema without a RangeError", () => {
    const v = compiled({ type: "array", items: { $ref: "#" } });
    const r = v.validate(nestedArray(10_000));
    expect(r.valid).toBe(false);
    expect(r.errors[0]!.keyword).toBe("maxDepth");
    let deepObject: unknown = {};
    for (let i = 0; i < 10_000; i++) deepObject = { a: deepObject };
    expect(compiled({ properties: { a: { $ref: "#" } } }).validate(deepObject).valid).toBe(false);
  });

  it("accepts 10,000 nodes and rejects 10,001", () => {
    const v = compiled({ type: "array" });
    expect(v.validate(Array.from({ length: 9_999 }, () => 0)).valid).toBe(true);
    const r = v.validate(Array.from({ length: 10_000 }, () => 0));
    expect(r.valid).toBe(false);
    expect(r.errors[0]!.message).toBe("Value has more than 10000 nodes");
  });

  it("counts object members and nested containers", () => {
    expect(measure({ a: [1, 2], b: { c: null } }, 128, 6, false)).toBeNull();
    expect(measure({ a: [1, 2], b: { c: null } }, 128, 5, false)).toBe("too_many_nodes");
    expect(measure([[[]]], 3, 100, false)).toBeNull();
    expect(measure([[[]]], 2, 100, false)).toBe("too_deep");
    expect(measure(1, 0, 1, false)).toBeNull();
  });

  it("measure's walk (one function per kind of container) gives the plain recursive definition's answer", () => {
    // The definition: a container at level > maxDepth is too deep, checked on entering it;
    // an array counts all its items before visiting any, an object counts each member just
    // before visiting it; the first bound crossed in that order is the answer.
    const definition = (value: unknown, maxDepth: number, maxNodes: number): string | null => {
      let budget = maxNodes - 1;
      const visit = (v: unknown, depth: number): string | null => {
        if (typeof v !== "object" || v === null) return null;
        if (depth > maxDepth) return "too_deep";
        if (Array.isArray(v)) {
          if ((budget -= v.length) < 0) return "too_many_nodes";
          for (const x of v) {
            const f = visit(x, depth + 1);
            if (f !== null) return f;
          }
          return null;
        }
        for (const k in v) {
          if (--budget < 0) return "too_many_nodes";
          const f = visit((v as Record<string, unknown>)[k], depth + 1);
          if (f !== null) return f;
        }
        return null;
      };
      if (typeof value !== "object" || value === null) return maxNodes < 1 ? "too_many_nodes" : null;
      // The root is a node too: with no budget left for it, an empty root is already too many.
      return visit(value, 1) ?? (budget < 0 ? "too_many_nodes" : null);
    };
    const json = fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof(
        { depthSize: "small" },
        fc.constantFrom<unknown>(1, "a", null, true),
        fc.array(tie("v"), { maxLength: 4 }),
        fc.dictionary(fc.constantFrom("a", "b", "c", "__proto__"), tie("v"), { maxKeys: 3 }),
      ),
    })).v;
    let faults = 0;
    fc.assert(
      fc.property(json, fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 20 }), (v, maxDepth, maxNodes) => {
        const want = definition(v, maxDepth, maxNodes);
        if (want !== null) faults++;
        expect(measure(v, maxDepth, maxNodes, false), JSON.stringify({ v, maxDepth, maxNodes })).toBe(want);
      }),
      { numRuns: 3000, seed: 20_261_130 },
    );
    expect(faults).toBeGreaterThan(500);
  });

  it("bounds deep equality: enum/const/uniqueItems never see past the depth limit", () => {
    const deep = nestedArray(200);
    expect(compiled({ const: [] }).validate(deep).valid).toBe(false);
    expect(compiled({ uniqueItems: true }).validate([deep, deep]).errors[0]!.keyword).toBe("maxDepth");
  });
});

describe("measureSchema (one walk for levels, nodes, size and special keys)", () => {
  const utf8 = (v: unknown) => Buffer.byteLength(JSON.stringify(v), "utf8");

  it("refuses too_large exactly when the JSON text passes maxBytes", () => {
    const json = fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof(
        { depthSize: "small" },
        fc.oneof(fc.string({ unit: "binary" }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null)),
        fc.array(tie("v"), { maxLength: 4 }),
        fc.dictionary(fc.string({ unit: "binary", maxLength: 4 }), tie("v"), { maxKeys: 4 }),
      ),
    })).v.map((v) => JSON.parse(JSON.stringify(v)) as unknown);
    fc.assert(
      fc.property(json, fc.integer({ min: -2, max: 2 }), (v, delta) => {
        const limit = Math.max(0, utf8(v) + delta);
        expect(measureSchema(v, 128, 10_000, limit).fault === "too_large").toBe(utf8(v) > limit);
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it("escapes and lone surrogates count as JSON.stringify writes them", () => {
    const v = { description: "\u0001\n\"\\\ud800é😀" };
    expect(measureSchema(v, 128, 10_000, utf8(v)).fault).toBeNull();
    expect(measureSchema(v, 128, 10_000, utf8(v) - 1).fault).toBe("too_large");
  });

  it("flags keys the anchor walk must see; a root $schema alone is not one", () => {
    const special = (v: unknown) => measureSchema(v, 128, 10_000, 1 << 20).special;
    expect(special({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" })).toBe(false);
    expect(special({ properties: { a: { $anchor: "a" } } })).toBe(true);
    expect(special({ items: { $schema: "x" } })).toBe(true);
    expect(special({ $defs: { a: { $id: "x" } } })).toBe(true);
    expect(special({ properties: { a: { $ref: "#/$defs/b" } } })).toBe(false);
  });

  it("still finds anchors and refuses nested $id, $dynamicRef and foreign $schema", () => {
    expect(compileSchema({ properties: { a: { $ref: "#x" } }, $defs: { b: { $anchor: "x", type: "string" } } }).ok).toBe(true);
    expect(refusal({ items: { $id: "urn:x" } }).code).toBe("id_unsupported");
    expect(refusal({ items: { $dynamicRef: "#x" } }).code).toBe("dynamic_ref_unsupported");
    expect(refusal({ items: { $schema: "http://json-schema.org/draft-07/schema#" } }).code).toBe("unsupported_dialect");
    expect(refusal({ $schema: "http://json-schema.org/draft-06/schema#" }).code).toBe("unsupported_dialect");
    expect(compileSchema({ enum: [{ $id: "data, not a schema" }] }).ok).toBe(true);
  });
});

describe("schema depth counts schema levels, not JSON nesting", () => {
  /** `levels` schema levels as a chain of `properties`: two JSON levels each. */
  const propertiesChain = (levels: number): unknown => {
    let s: unknown = { type: "string" };
    for (let i = 1; i < levels; i++) s = { type: "object", properties: { next: s } };
    return s;
  };
  const instanceChain = (levels: number): unknown => {
    let v: unknown = "leaf";
    for (let i = 1; i < levels; i++) v = { next: v };
    return v;
  };

  it("a chain of 64 properties levels is accepted (129 JSON levels)", () => {
    const v = compiled(propertiesChain(64));
    expect(v.validate(instanceChain(64)).valid).toBe(true);
  });

  it("128 schema levels are accepted, 129 refused with the level's pointer", () => {
    expect(compileSchema(propertiesChain(128)).ok).toBe(true);
    const e = refusal(propertiesChain(129));
    expect(e.code).toBe("too_deep");
    expect(e.message).toBe("Schema nests deeper than 128 schema levels");
    expect(e.schemaPath).toBe(`${"/properties/next".repeat(128)}`);
  });

  it("instances keep their own 128-level bound", () => {
    const v = compiled(propertiesChain(128));
    // instanceChain(n) nests n - 1 objects around its string.
    expect(v.validate(instanceChain(128)).valid).toBe(true);
    expect(v.validate(instanceChain(130)).errors).toEqual([expect.objectContaining({ keyword: "maxDepth", message: "Value nests deeper than 128 levels" })]);
  });

  it("ref targets count the levels of their position", () => {
    let deep: unknown = { type: "null" };
    for (let i = 0; i < 127; i++) deep = { not: { not: deep } };
    // The target sits at level 2 ($defs/t); its own chain adds 254 more: refused there.
    expect(refusal({ $ref: "#/$defs/t", $defs: { t: deep } }).code).toBe("too_deep");
    expect(compileSchema({ $ref: "#/$defs/t", $defs: { t: { not: { not: { type: "null" } } } } }).ok).toBe(true);
  });

  it("JSON nesting past 4 x maxDepth (data below a schema) is refused by the walk's own bound", () => {
    expect(refusal({ const: nestedArray(513) }).message).toBe("Schema JSON nests deeper than 512 levels");
    expect(compileSchema({ const: nestedArray(300) }).ok).toBe(true);
  });
});
