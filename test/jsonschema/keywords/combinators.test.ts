import { describe, expect, it } from "vitest";
import { accepts, compiled, errorsOf, refusal } from "../helpers.js";

describe("allOf / anyOf / oneOf / not", () => {
  it("allOf needs every branch and reports their errors", () => {
    const schema = { allOf: [{ type: "number" }, { minimum: 3 }] };
    expect(accepts(schema)(4)).toBe(true);
    expect(accepts(schema)(2)).toBe(false);
    expect(errorsOf(schema, 2)[0]!.keywordLocation).toBe("/allOf/1/minimum");
  });

  it("anyOf needs one branch", () => {
    const ok = accepts({ anyOf: [{ type: "string" }, { minimum: 3 }] });
    expect(ok("a")).toBe(true);
    expect(ok(5)).toBe(true);
    expect(ok(1)).toBe(false);
    expect(errorsOf({ anyOf: [{ type: "string" }, { minimum: 3 }] }, 1)).toEqual([
      { instancePath: "", keywordLocation: "/anyOf", keyword: "anyOf", message: "Expected a value matching at least one schema in anyOf" },
    ]);
  });

  it("oneOf needs exactly one branch", () => {
    const ok = accepts({ oneOf: [{ type: "integer" }, { minimum: 2 }] });
    expect(ok(1)).toBe(true);
    expect(ok(2.5)).toBe(true);
    expect(ok(3)).toBe(false);
    expect(ok(1.5)).toBe(false);
    expect(errorsOf({ oneOf: [{ type: "integer" }, { minimum: 2 }] }, 3)[0]!.message).toBe(
      "Expected a value matching exactly one schema in oneOf, matched 2",
    );
  });

  it("not inverts", () => {
    expect(accepts({ not: { type: "string" } })(1)).toBe(true);
    expect(accepts({ not: { type: "string" } })("a")).toBe(false);
    expect(accepts({ not: {} })(1)).toBe(false);
  });

  it("annotations come only from valid branches", () => {
    const schema = {
      anyOf: [{ properties: { a: { type: "number" } }, required: ["a"] }, { properties: { b: {} }, required: ["b"] }],
      unevaluatedProperties: false,
    };
    expect(accepts(schema)({ a: 1, b: 1 })).toBe(true);
    // Branch 0 fails (a is not a number), so its annotation for "a" is discarded.
    expect(accepts(schema)({ a: "x", b: 1 })).toBe(false);
    expect(accepts({ not: { not: { properties: { a: {} } } }, unevaluatedProperties: false })({ a: 1 })).toBe(false);
  });

  it("refuses empty or non-array lists", () => {
    expect(refusal({ allOf: [] }).code).toBe("malformed");
    expect(refusal({ anyOf: {} }).code).toBe("malformed");
    expect(refusal({ not: 1 }).code).toBe("malformed");
  });
});

describe("$ref", () => {
  it("resolves root, pointers with ~0/~1 and percent-encoding, and anchors", () => {
    const schema = {
      $defs: { "a/b": { type: "string" }, "c~d": { type: "number" }, "e%f": { type: "boolean" }, g: { $anchor: "gee", type: "null" } },
      properties: {
        one: { $ref: "#/$defs/a~1b" },
        two: { $ref: "#/$defs/c~0d" },
        three: { $ref: "#/$defs/e%25f" },
        four: { $ref: "#gee" },
        self: { $ref: "#" },
      },
    };
    const ok = accepts(schema);
    expect(ok({ one: "x", two: 1, three: true, four: null, self: { one: "y" } })).toBe(true);
    expect(ok({ one: 1 })).toBe(false);
    expect(ok({ two: "x" })).toBe(false);
    expect(ok({ three: 1 })).toBe(false);
    expect(ok({ four: 1 })).toBe(false);
    expect(ok({ self: { one: 1 } })).toBe(false);
  });

  it("applies sibling keywords too", () => {
    const ok = accepts({ $defs: { n: { type: "number" } }, $ref: "#/$defs/n", minimum: 5 });
    expect(ok(6)).toBe(true);
    expect(ok(4)).toBe(false);
    expect(ok("6")).toBe(false);
  });

  it("follows recursive schemas with progress", () => {
    const tree = { type: "object", properties: { value: { type: "number" }, children: { type: "array", items: { $ref: "#" } } } };
    const ok = accepts(tree);
    expect(ok({ value: 1, children: [{ value: 2, children: [] }] })).toBe(true);
    expect(ok({ value: 1, children: [{ value: "2" }] })).toBe(false);
    expect(errorsOf(tree, { children: [{ children: [{ value: "x" }] }] })[0]!.instancePath).toBe("/children/0/children/0/value");
  });

  it("refuses refs that leave the document or point nowhere", () => {
    expect(refusal({ $ref: "other.json" }).code).toBe("external_ref");
    expect(refusal({ $ref: "http://localhost:1234/x.json" }).code).toBe("external_ref");
    expect(refusal({ $ref: "#/$defs/missing" }).code).toBe("unresolved_ref");
    expect(refusal({ $ref: "#nope" }).code).toBe("unresolved_ref");
    expect(refusal({ $ref: "#/%zz" }).code).toBe("unresolved_ref");
    expect(refusal({ $ref: 1 }).code).toBe("malformed");
    expect(refusal({ $defs: { a: 1 }, $ref: "#/$defs/a" }).code).toBe("malformed");
  });

  it("refuses ref cycles that make no progress, at compile (no hang, no overflow)", () => {
    expect(refusal({ $ref: "#" })).toMatchObject({ code: "malformed", message: "$ref cycle that makes no progress on the instance" });
    expect(refusal({ $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" }).code).toBe("malformed");
    expect(refusal({ anyOf: [{ type: "string" }, { $ref: "#" }] }).code).toBe("malformed");
    expect(refusal({ properties: { a: { allOf: [{ $ref: "#/properties/a" }] } } }).code).toBe("malformed");
  });

  it("a long acyclic ref chain compiles without recursion and stops with an error at validate", () => {
    const defs: Record<string, unknown> = {};
    for (let i = 0; i < 3000; i++) defs[`d${i}`] = { $ref: `#/$defs/d${i + 1}` };
    defs.d3000 = { type: "number" };
    const v = compiled({ $defs: defs, $ref: "#/$defs/d0" });
    const r = v.validate(1);
    expect(r.valid).toBe(false);
    expect(r.errors[0]!.message).toBe("Schema recursion is too deep for this value");
  });
});

describe("if / then / else", () => {
  const schema = {
    if: { properties: { kind: { const: "circle" } }, required: ["kind"] },
    then: { required: ["radius"] },
    else: { required: ["width"] },
  };

  it("picks the branch by the condition", () => {
    const ok = accepts(schema);
    expect(ok({ kind: "circle", radius: 1 })).toBe(true);
    expect(ok({ kind: "circle" })).toBe(false);
    expect(ok({ kind: "square", width: 1 })).toBe(true);
    expect(ok({ kind: "square" })).toBe(false);
  });

  it("reports only the branch's errors, never the condition's", () => {
    expect(errorsOf(schema, { kind: "square" })).toEqual([
      { instancePath: "", keywordLocation: "/else/required", keyword: "required", message: "Missing required property: width" },
    ]);
  });

  it("then/else without if do nothing", () => {
    expect(accepts({ then: false, else: false })(1)).toBe(true);
  });

  it("a passing if contributes annotations", () => {
    const ok = accepts({ if: { properties: { a: {} } }, unevaluatedProperties: false });
    expect(ok({ a: 1 })).toBe(true);
    expect(ok({ b: 1 })).toBe(false);
  });
});
