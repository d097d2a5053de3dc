import { describe, expect, it } from "vitest";
import { accepts, errorsOf, refusal } from "../helpers.js";

describe("type", () => {
  it("checks each JSON type", () => {
    const cases: Array<[string, unknown, boolean]> = [
      ["string", "a", true],
      ["string", 1, false],
      ["number", 1.5, true],
      ["number", "1", false],
      ["integer", 1, true],
      ["integer", 1.0, true],
      ["integer", 1.5, false],
      ["boolean", false, true],
      ["boolean", 0, false],
      ["null", null, true],
      ["null", 0, false],
      ["array", [], true],
      ["array", {}, false],
      ["object", {}, true],
      ["object", [], false],
      ["object", null, false],
    ];
    for (const [type, value, ok] of cases) expect(accepts({ type })(value), `${type} ${JSON.stringify(value)}`).toBe(ok);
  });

  it("accepts any of a list", () => {
    const ok = accepts({ type: ["string", "null"] });
    expect(ok("a")).toBe(true);
    expect(ok(null)).toBe(true);
    expect(ok(1)).toBe(false);
  });

  it("reports expected and actual type names, not the value", () => {
    const [e] = errorsOf({ type: "number" }, "secret-value");
    expect(e).toEqual({ instancePath: "", keywordLocation: "/type", keyword: "type", message: "Expected type number, got string" });
    expect(errorsOf({ type: "string" }, 3)[0]!.message).toBe("Expected type string, got integer");
  });

  it("refuses unknown type names and non-string entries", () => {
    expect(refusal({ type: "float" }).code).toBe("malformed");
    expect(refusal({ type: [] }).code).toBe("malformed");
    expect(refusal({ type: ["string", 1] }).code).toBe("malformed");
  });
});
