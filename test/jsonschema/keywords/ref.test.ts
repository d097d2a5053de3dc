import { describe, expect, it } from "vitest";
import { accepts, compiled, errorsOf, refusal } from "../helpers.js";

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
