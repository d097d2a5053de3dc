import { describe, expect, it } from "vitest";
import { defaultsRule, requiredRule } from "../../../src/lint/rules/schema-defaults.js";
import { goodRecipe, lintPack, withCode } from "../helpers.js";

const props = (r: Record<string, unknown>): Record<string, Record<string, unknown>> =>
  (r["inputs_schema"] as { properties: Record<string, Record<string, unknown>> }).properties;

describe("default_invalid", () => {
  it("passes defaults their schema accepts", async () => {
    expect(withCode(await lintPack(goodRecipe()), "default_invalid")).toEqual([]);
  });

  it("flags a default outside its enum, at the default's line, with the validator's reason", async () => {
    const r = goodRecipe();
    props(r)["space"]!["default"] = "wrold";
    const hit = withCode(await lintPack(r), "default_invalid");
    expect(hit).toHaveLength(1);
    expect(hit[0]!.severity).toBe("error");
    expect(hit[0]!.message).toContain("inputs_schema/properties/space");
    expect(hit[0]!.message).not.toContain("wrold"); // the validator never echoes values
    expect(hit[0]!.line).toBeDefined();
  });

  it("resolves $defs refs from the root and checks nested and contract defaults", () => {
    const schema = {
      $defs: { axis: { enum: ["x", "y", "z"] } },
      properties: {
        a: { $ref: "#/$defs/axis", default: "w" },
        b: { type: "array", items: { type: "number" }, default: [1, "2"] },
        c: { type: "object", properties: { d: { type: "integer", minimum: 3, default: 3 } } },
      },
    };
    const hits = defaultsRule(schema, "inputs_schema", ["inputs_schema"], "r");
    expect(hits.map((h) => h.at)).toEqual([
      ["inputs_schema", "properties", "a", "default"],
      ["inputs_schema", "properties", "b", "default"],
    ]);
  });

  it("skips a default whose schema cannot stand alone", () => {
    const schema = { properties: { a: { $ref: "#/properties/b", default: 1 }, b: { type: "string" } } };
    expect(defaultsRule(schema, "inputs_schema", [], "r")).toEqual([]);
  });
});

describe("required_not_in_properties", () => {
  it("passes required names that properties declares", async () => {
    expect(withCode(await lintPack(goodRecipe()), "required_not_in_properties")).toEqual([]);
  });

  it("is an error when additionalProperties is false (nothing can pass)", async () => {
    const r = goodRecipe();
    (r["inputs_schema"] as { required: string[] }).required.push("obj_name");
    const hit = withCode(await lintPack(r), "required_not_in_properties");
    expect(hit).toHaveLength(1);
    expect(hit[0]!.severity).toBe("error");
    expect(hit[0]!.message).toContain('"obj_name"');
  });

  it("is a warning on an open object, and silent when patternProperties or no properties cover it", () => {
    expect(requiredRule({ required: ["a"], properties: { b: {} } }, "s", [], "r")[0]?.severity).toBe("warning");
    expect(requiredRule({ required: ["x_1"], properties: {}, patternProperties: { "^x_": {} } }, "s", [], "r")).toEqual([]);
    expect(requiredRule({ properties: { a: {} }, allOf: [{ required: ["a"] }] }, "s", [], "r")).toEqual([]);
  });
});
