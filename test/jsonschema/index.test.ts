/** validateRecipeInputs: the dcc-mcp-core compatible helper. */
import { describe, expect, it } from "vitest";
import { compileSchema, INVALID_SCHEMA_MESSAGE, renderErrors, validateRecipeInputs } from "../../src/jsonschema/index.js";

const schema = {
  type: "object",
  required: ["name"],
  properties: {
    name: { type: "string" },
    pivot: { type: "array", items: { type: "number" } },
    options: { type: "object", required: ["mode"], properties: { mode: { enum: ["fast", "exact"] } } },
  },
  additionalProperties: false,
};

describe("validateRecipeInputs", () => {
  it("returns [] for valid inputs, under either field spelling", () => {
    expect(validateRecipeInputs({ inputs_schema: schema }, { name: "cube", pivot: [0, 1, 2] })).toEqual([]);
    expect(validateRecipeInputs({ inputsSchema: schema }, { name: "cube" })).toEqual([]);
  });

  it("renders messages as dcc-mcp-core does", () => {
    expect(validateRecipeInputs({ inputs_schema: schema }, { pivot: [1, "a"], options: {} })).toEqual([
      "Missing required input: name",
      "$.pivot[1]: Expected type number, got string",
      "$.options: Missing required property: mode",
    ]);
  });

  it("never echoes input values", () => {
    const secret = "sk-live-0123456789";
    const out = validateRecipeInputs({ inputs_schema: schema }, { name: 42, pivot: [secret], [secret]: 1, options: { mode: secret } });
    for (const line of out) expect(line.replace(`["${secret}"]`, "")).not.toContain(secret);
    expect(out).toContain('$["sk-live-0123456789"]: Unexpected property');
  });

  it("a recipe without a schema accepts anything", () => {
    expect(validateRecipeInputs({}, { anything: 1 })).toEqual([]);
  });

  it("a schema that fails closed rejects everything with one message", () => {
    expect(validateRecipeInputs({ inputs_schema: { $id: "x" } }, {})).toEqual([INVALID_SCHEMA_MESSAGE]);
    expect(validateRecipeInputs({ inputs_schema: { $ref: "#" } }, {})).toEqual(["$: Recipe input schema is invalid"]);
    expect(validateRecipeInputs({ inputs_schema: "object" }, {})).toEqual([INVALID_SCHEMA_MESSAGE]);
  });

  it("renderErrors gives the same lines for a precompiled validator", () => {
    const r = compileSchema(schema);
    if (!r.ok) throw new Error();
    const inputs = { pivot: ["x"] };
    expect(renderErrors(r.validator.validate(inputs).errors)).toEqual(validateRecipeInputs({ inputs_schema: schema }, inputs));
  });

  it("is safe to call concurrently from many async callers", async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => Promise.resolve().then(() => validateRecipeInputs({ inputs_schema: schema }, i % 2 ? { name: "a" } : {}))),
    );
    results.forEach((r, i) => expect(r).toEqual(i % 2 ? [] : ["Missing required input: name"]));
  });
});

describe("validateRecipeInputs and a polluted Object.prototype", () => {
  it("never takes a schema from Object.prototype", () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto["inputsSchema"] = { type: "object", required: ["x"] };
    try {
      expect(validateRecipeInputs({}, {})).toEqual([]);
    } finally {
      delete proto["inputsSchema"];
    }
  });

  it("reads a schema a class exposes through a getter", () => {
    class Recipe {
      get inputsSchema(): unknown {
        return { type: "object", required: ["x"] };
      }
    }
    expect(validateRecipeInputs(new Recipe(), {})).toEqual(["Missing required input: x"]);
  });
});
