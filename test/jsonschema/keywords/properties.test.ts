import { describe, expect, it } from "vitest";
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
    expect(refusal({ patternProperties: { "(a|a)*$": {} } }).code).toBe("unsafe_pattern");
  });
});
