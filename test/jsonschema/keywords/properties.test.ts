import { describe, expect, it } from "vitest";
import { compileSchema } from "../../../src/jsonschema/index.js";
import { accepts, errorsOf, refusal } from "../helpers.js";

describe("properties / patternProperties / additionalProperties", () => {
  it("validates declared, pattern-matched and additional properties", () => {
    const ok = accepts({
      properties: { a: { type: "number" } },
      patternProperties: { "^x-": { type: "string" } },
      additionalProperties: { type: "boolean" },
    });
    expect(ok({ a: 1, "x-y": "s", other: true })).toBe(true);
    expect(ok({ a: "1" })).toBe(false);
    expect(ok({ "x-y": 1 })).toBe(false);
    expect(ok({ other: 1 })).toBe(false);
  });

  it("treats __proto__, constructor and toString as ordinary names", () => {
    const ok = accepts(JSON.parse('{"properties": {"__proto__": {"type": "number"}, "constructor": {"type": "number"}}}'));
    expect(ok(JSON.parse('{"__proto__": "x"}'))).toBe(false);
    expect(ok(JSON.parse('{"__proto__": 1, "constructor": 2}'))).toBe(true);
    expect(ok({ constructor: "x" })).toBe(false);
    expect(ok({})).toBe(true);
    const closed = accepts({ properties: { a: {} }, additionalProperties: false });
    expect(closed(JSON.parse('{"__proto__": 1}'))).toBe(false);
    expect(closed({ toString: 1 })).toBe(false);
    expect(closed({ a: 1 })).toBe(true);
  });

  it("refuses a schema object that is not plain JSON (a literal __proto__ sets the prototype)", () => {
    expect(refusal({ properties: { __proto__: { type: "number" } } }).code).toBe("malformed");
  });

  it("reports an unexpected property at its own path", () => {
    expect(errorsOf({ additionalProperties: false }, { "odd key": 1 })).toEqual([
      {
        instancePath: "/odd key",
        keywordLocation: "/additionalProperties",
        keyword: "additionalProperties",
        message: "Unexpected property",
      },
    ]);
  });

  it("escapes ~ and / in paths", () => {
    expect(errorsOf({ properties: { "a/b~c": { type: "string" } } }, { "a/b~c": 1 })[0]).toMatchObject({
      instancePath: "/a~1b~0c",
      keywordLocation: "/properties/a~1b~0c/type",
    });
  });

  it("refuses malformed maps and patterns", () => {
    expect(refusal({ properties: [] }).code).toBe("malformed");
    expect(refusal({ properties: { a: 1 } }).code).toBe("malformed");
    expect(refusal({ patternProperties: { "(": {} } }).code).toBe("invalid_pattern");
    expect(refusal({ patternProperties: { "(a)\\1": {} } }).code).toBe("unsupported_pattern");
  });

  it("fast path: one validator, keys in changing orders and positions", () => {
    const ok = accepts({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "string" }, c: { type: "boolean" } },
      required: ["a", "b"],
      additionalProperties: false,
    });
    expect(ok({ a: 1, b: "x" })).toBe(true);
    expect(ok({ b: "x", a: 1 })).toBe(true);
    expect(ok({ b: 1, a: 1 })).toBe(false);
    expect(ok({ a: 1, b: "x", c: true })).toBe(true);
    expect(ok({ c: true, a: 1, b: "x" })).toBe(true);
    expect(ok({ c: true, a: 1, d: 0, b: "x" })).toBe(false);
    expect(ok({ c: true, b: "x" })).toBe(false);
    expect(ok({ a: 1, b: "x", c: 1 })).toBe(false);
    const many: Record<string, number> = {};
    for (let i = 0; i < 100; i++) many[`k${i}`] = i;
    const open = accepts({ properties: { k70: { minimum: 70 }, k99: { maximum: 98 } }, required: ["k70"] });
    expect(open(many)).toBe(false);
    delete many.k99;
    expect(open(many)).toBe(true);
    expect(open({ ...many, k70: 69 })).toBe(false);
  });

  it("fast path: undefined values from JS callers read as the general check reads them", () => {
    const schema = { properties: { a: { type: "number" } }, required: ["a"], additionalProperties: false };
    const ok = accepts(schema);
    expect(ok({ a: undefined })).toBe(false);
    expect(errorsOf(schema, { a: undefined }).length).toBeGreaterThan(0);
    expect(errorsOf(schema, { a: undefined }).some((e) => e.keyword === "schema")).toBe(false);
    expect(accepts({ properties: { a: {} }, additionalProperties: false })({ a: 1, b: undefined })).toBe(false);
  });

  it("required beside properties, on names Object.prototype has", () => {
    const ok = accepts(JSON.parse('{"properties": {"__proto__": {}, "toString": {}}, "required": ["__proto__", "toString"]}'));
    expect(ok({})).toBe(false);
    expect(ok(JSON.parse('{"__proto__": 1}'))).toBe(false);
    expect(ok(JSON.parse('{"__proto__": 1, "toString": null}'))).toBe(true);
  });

  it("an empty property name declared under additionalProperties: false is not taken for an extra key (closure loop)", () => {
    const schema = { properties: { "": { type: "string" } }, additionalProperties: false };
    for (const allErrors of [false, true]) {
      const r = compileSchema(schema, { generateAfter: Infinity, allErrors });
      if (!r.ok) throw new Error(r.error.message);
      for (let i = 0; i < 3; i++) {
        expect(r.validator.validate({ "": "x" }).valid).toBe(true);
        expect(r.validator.validate({ "": 1 }).errors[0]?.keyword).toBe("type");
        expect(r.validator.validate({ "": "x", b: 1 }).errors[0]?.keyword).toBe("additionalProperties");
      }
    }
  });
});

describe("propertyNames", () => {
  it("validates every key as a string", () => {
    const ok = accepts({ propertyNames: { pattern: "^[a-z]+$", maxLength: 3 } });
    expect(ok({ abc: 1 })).toBe(true);
    expect(ok({ abcd: 1 })).toBe(false);
    expect(ok({ A: 1 })).toBe(false);
    expect(accepts({ propertyNames: false })({})).toBe(true);
    expect(accepts({ propertyNames: false })({ a: 1 })).toBe(false);
  });

  it("points at the key", () => {
    expect(errorsOf({ propertyNames: { maxLength: 1 } }, { ok: 1 })[0]).toMatchObject({
      instancePath: "/ok",
      message: "Invalid property name",
    });
  });
});
