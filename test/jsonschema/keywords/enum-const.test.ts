import { describe, expect, it } from "vitest";
import { accepts, errorsOf, expectNoEcho, refusal } from "../helpers.js";

describe("enum", () => {
  it("uses JSON equality: key order irrelevant, 1 == 1.0, true != 1, 0 != false", () => {
    const ok = accepts({ enum: [1, { a: 1, b: [1, 2] }, "x", null] });
    expect(ok(1.0)).toBe(true);
    expect(ok(true)).toBe(false);
    expect(ok({ b: [1, 2], a: 1 })).toBe(true);
    expect(ok({ a: 1, b: [2, 1] })).toBe(false);
    expect(ok({ a: 1 })).toBe(false);
    expect(ok(null)).toBe(true);
    expect(ok("1")).toBe(false);
    expect(accepts({ enum: [0] })(false)).toBe(false);
    expect(accepts({ enum: [false] })(0)).toBe(false);
  });

  it("empty enum accepts nothing (ajv refuses it at compile)", () => {
    expect(accepts({ enum: [] })(1)).toBe(false);
  });

  it("lists schema values in the message, never the instance", () => {
    const errors = errorsOf({ enum: ["cube", "sphere"] }, "hunter2");
    expect(errors[0]!.message).toBe('Expected one of: "cube", "sphere"');
    expectNoEcho(errors, ["hunter2"]);
  });

  it("refuses a non-array enum", () => {
    expect(refusal({ enum: "a" }).code).toBe("malformed");
  });
});

describe("const", () => {
  it("compares scalars and structures by JSON equality", () => {
    expect(accepts({ const: 1 })(1.0)).toBe(true);
    expect(accepts({ const: 1 })(true)).toBe(false);
    expect(accepts({ const: { a: [1, { b: 2 }] } })({ a: [1, { b: 2.0 }] })).toBe(true);
    expect(accepts({ const: { a: 1 } })({ a: 1, b: 2 })).toBe(false);
    expect(accepts({ const: null })(null)).toBe(true);
    expect(accepts({ const: null })(0)).toBe(false);
  });

  it("keeps the instance out of the message", () => {
    expectNoEcho(errorsOf({ const: { a: 1 } }, { secret: "s3cr3t" }), ["s3cr3t"]);
  });
});
