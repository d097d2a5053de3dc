import { describe, expect, it } from "vitest";
import { coerceArguments } from "../../../../src/server/protocol/prompts/coerce.js";

const schema = {
  type: "object",
  properties: {
    label: { type: "string" },
    count: { type: "integer" },
    ratio: { type: "number" },
    flag: { type: "boolean" },
    nothing: { type: "null" },
    pivot: { type: "array" },
    options: { type: "object" },
    either: { type: ["integer", "string"] },
    level: { enum: [1, 2, 3] },
    anything: {},
  },
};

describe("prompt argument coercion", () => {
  it("reads each text as its property's declared type", () => {
    expect(
      coerceArguments(schema, {
        label: "42", count: "3", ratio: " 0.5 ", flag: "false", nothing: "null", pivot: "[0, 1, 2]",
        options: '{"a": 1}', either: "7", level: "2", anything: "true",
      }),
    ).toEqual({ label: "42", count: 3, ratio: 0.5, flag: false, nothing: null, pivot: [0, 1, 2], options: { a: 1 }, either: "7", level: 2, anything: "true" });
  });

  it("leaves unreadable text as a string for the validator to name", () => {
    expect(coerceArguments(schema, { count: "three", flag: "yes", pivot: "{}", ratio: "1e999", options: "{broken" })).toEqual({
      count: "three", flag: "yes", pivot: "{}", ratio: "1e999", options: "{broken",
    });
  });

  it("treats an empty string as not given, unless the property takes strings", () => {
    expect(coerceArguments(schema, { count: "", label: "" })).toEqual({ label: "" });
  });

  it("passes arguments the schema does not name, and keeps __proto__ as data", () => {
    const out = coerceArguments(schema, JSON.parse('{"extra": "x", "__proto__": "p"}') as Record<string, string>);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out).sort()).toEqual(["__proto__", "extra"]);
  });

  it("copes with schemas that are not objects", () => {
    expect(coerceArguments(true, { a: "1" })).toEqual({ a: "1" });
    expect(coerceArguments({ properties: [] }, { a: "1" })).toEqual({ a: "1" });
  });
});
