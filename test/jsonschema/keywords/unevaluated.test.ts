import { describe, expect, it } from "vitest";
import { accepts, errorsOf } from "../helpers.js";
import { compileSchema } from "../../../src/jsonschema/index.js";

describe("unevaluatedProperties", () => {
  it("sees properties evaluated by the schema and its valid in-place branches", () => {
    const schema = {
      properties: { a: {} },
      allOf: [{ properties: { b: {} } }],
      $defs: { c: { properties: { c: {} } } },
      $ref: "#/$defs/c",
      unevaluatedProperties: false,
    };
    const ok = accepts(schema);
    expect(ok({ a: 1, b: 1, c: 1 })).toBe(true);
    expect(ok({ a: 1, d: 1 })).toBe(false);
    expect(errorsOf(schema, { d: 1 })[0]).toMatchObject({ instancePath: "/d", keyword: "unevaluatedProperties" });
  });

  it("properties annotations passed by name map: declared names count only when present, branches merge, failed branches do not", () => {
    const schema = {
      properties: { a: { type: "number" }, b: {} },
      if: { properties: { kind: { const: "x" } }, required: ["kind"] },
      then: { properties: { x: { type: "string" } } },
      anyOf: [{ properties: { y: { type: "string" } }, required: ["y"] }, { properties: { z: {} } }],
      unevaluatedProperties: false,
    };
    const cases: Array<[unknown, boolean]> = [
      [{ a: 1, b: 2 }, true],
      [{ kind: "x", x: "s", a: 1 }, true],
      [{ kind: "y", x: "s" }, false],
      [{ y: 1, a: 1 }, false],
      [{ y: "s", a: 1 }, true],
      [{ a: "s" }, false],
      [{ w: 1 }, false],
    ];
    for (const allErrors of [true, false]) {
      // Enough calls for the generated member loops to replace the closures (generateAfter).
      const v = compileSchema(schema, { allErrors, generateAfter: 2 });
      if (!v.ok) throw new Error("refused");
      for (let round = 0; round < 4; round++) {
        for (const [x, valid] of cases) expect(v.validator.validate(x).valid, `${JSON.stringify(x)} round ${round}`).toBe(valid);
      }
      expect(v.validator.validate({ kind: "y", x: "s" }).errors[0]).toMatchObject({ instancePath: "/kind", keyword: "unevaluatedProperties" });
    }
  });

  it("works statically when nothing in place can evaluate", () => {
    const ok = accepts({ properties: { a: {} }, patternProperties: { "^x": {} }, unevaluatedProperties: { type: "number" } });
    expect(ok({ a: "s", xy: "s", other: 1 })).toBe(true);
    expect(ok({ other: "s" })).toBe(false);
  });

  it("does not see through to child objects and is blind to the parent", () => {
    const ok = accepts({ properties: { a: {} }, allOf: [{ unevaluatedProperties: false }] });
    expect(ok({})).toBe(true);
    expect(ok({ a: 1 })).toBe(false);
  });

  it("nested unevaluatedProperties evaluates everything for the parent", () => {
    const ok = accepts({ allOf: [{ unevaluatedProperties: true }], unevaluatedProperties: false });
    expect(ok({ x: 1 })).toBe(true);
  });
});

describe("unevaluatedItems", () => {
  it("sees prefixItems, items and contains annotations", () => {
    expect(accepts({ prefixItems: [{}], unevaluatedItems: false })([1])).toBe(true);
    expect(accepts({ prefixItems: [{}], unevaluatedItems: false })([1, 2])).toBe(false);
    expect(accepts({ allOf: [{ prefixItems: [{}, {}] }], unevaluatedItems: false })([1, 2])).toBe(true);
    expect(accepts({ contains: { type: "string" }, unevaluatedItems: false })(["a", "b"])).toBe(true);
    expect(accepts({ contains: { type: "string" }, unevaluatedItems: false })(["a", 1])).toBe(false);
    expect(accepts({ allOf: [{ items: true }], unevaluatedItems: false })([1, 2])).toBe(true);
    expect(accepts({ if: { contains: { const: 1 } }, unevaluatedItems: false })([1])).toBe(true);
  });

  it("reports each unevaluated item", () => {
    expect(errorsOf({ prefixItems: [{}], unevaluatedItems: false }, [1, 2, 3]).map((e) => e.instancePath)).toEqual(["/1", "/2"]);
  });
});
