import { describe, expect, it } from "vitest";
import { accepts, errorsOf } from "../helpers.js";

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
