import { describe, expect, it } from "vitest";
import { keywordTypo, schemaKeywordRule } from "../../../src/lint/rules/schema-keywords.js";
import { compileSchema } from "../../../src/jsonschema/index.js";
import { goodRecipe, lintPack, withCode } from "../helpers.js";

describe("schema_keyword_typo", () => {
  it("passes a schema of real keywords, x-* keys and one's own annotations", async () => {
    const r = goodRecipe();
    const schema = r["inputs_schema"] as Record<string, unknown>;
    schema["x-ui"] = { widget: "text" };
    schema["units"] = "cm";
    schema["$comment"] = "c";
    expect(await lintPack(r)).toEqual([]);
  });

  it("flags `minimun` as an error at the key, naming the keyword", async () => {
    const r = goodRecipe();
    (r["inputs_schema"] as { properties: Record<string, unknown> }).properties["count"] = { type: "integer", minimun: 1, default: 1 };
    (r["steps"] as Array<{ arguments: Record<string, string> }>)[0]!.arguments["count"] = "${count}";
    const hit = withCode(await lintPack(r), "schema_keyword_typo");
    expect(hit).toHaveLength(1);
    expect(hit[0]!.severity).toBe("error");
    expect(hit[0]!.message).toContain("inputs_schema/properties/count");
    expect(hit[0]!.message).toContain('"minimum"');
    expect(hit[0]!.fix).toBe('rename "minimun" to "minimum"');
  });

  it("checks output_contract too, including inside allOf/items/$defs", () => {
    const schema = { allOf: [{ items: { maxItem: 3 } }], $defs: { a: { requried: ["x"] } }, properties: { p: { tpye: "string" } } };
    const hits = schemaKeywordRule(schema, "output_contract", ["output_contract"], "r");
    expect(hits.map((h) => h.fix)).toEqual(['rename "tpye" to "type"', 'rename "requried" to "required"', 'rename "maxItem" to "maxItems"']);
    expect(hits[2]!.at).toEqual(["output_contract", "allOf", 0, "items", "maxItem"]);
  });

  it("needs the value to fit the keyword it would be", () => {
    expect(keywordTypo("minimun", 1)).toBe("minimum");
    expect(keywordTypo("minimun", "one")).toBeUndefined();
    expect(keywordTypo("note", "free text")).toBeUndefined(); // one edit from `not`, but `not` takes a schema
    expect(keywordTypo("minlength", 2)).toBe("minLength");
    expect(keywordTypo("enums", ["a"])).toBe("enum");
    expect(keywordTypo("defualt", 3)).toBe("default");
  });

  it("does not report misspelt annotations or property names", () => {
    expect(keywordTypo("descripton", "text")).toBeUndefined();
    const schema = { properties: { minimun: { type: "integer" }, tpye: { type: "string" } } };
    expect(schemaKeywordRule(schema, "inputs_schema", [], "r")).toEqual([]);
  });
});

describe("schema_legacy_keyword", () => {
  it("warns about nullable / definitions with the 2020-12 form", async () => {
    const r = goodRecipe();
    const props = (r["inputs_schema"] as { properties: Record<string, Record<string, unknown>> }).properties;
    props["object_name"]!["nullable"] = true;
    const hit = withCode(await lintPack(r), "schema_legacy_keyword");
    expect(hit).toHaveLength(1);
    expect(hit[0]!.severity).toBe("warning");
    expect(hit[0]!.fix).toContain('type: [string, "null"]');
  });

  it("walks into definitions (read as $defs, not legacy) and leaves a non-string `id` alone", () => {
    const hits = schemaKeywordRule({ definitions: { a: { minimun: 1 } }, properties: { p: { id: 3 } } }, "inputs_schema", [], "r");
    expect(hits.map((h) => h.code)).toEqual(["schema_keyword_typo"]);
    expect(hits[0]!.at).toEqual(["definitions", "a", "minimun"]);
  });

  it("survives a deep hostile schema without walking forever", () => {
    let s: Record<string, unknown> = { minimun: 1 };
    for (let i = 0; i < 5000; i++) s = { not: s };
    expect(() => schemaKeywordRule(s, "inputs_schema", [], "r")).not.toThrow();
  });
});

/** The validator's refusal message for a schema, to compare lint's reason with. */
function refusalOf(schema: unknown): string {
  const r = compileSchema(schema);
  if (r.ok) throw new Error("compiled");
  return r.error.message;
}

describe("schema_pattern_refused", () => {
  it("flags every pattern the validator refuses, with the validator's reason", () => {
    const schema = {
      properties: { a: { pattern: "^(a)\\1$" }, b: { pattern: "(?=x)y" }, c: { pattern: "^ok$" }, d: { pattern: "(" } },
      patternProperties: { "(?<!x)y": {} },
    };
    const hits = schemaKeywordRule(schema, "inputs_schema", ["inputs_schema"], "r").filter((h) => h.code === "schema_pattern_refused");
    expect(hits.map((h) => h.at)).toEqual([
      ["inputs_schema", "patternProperties", "(?<!x)y"],
      ["inputs_schema", "properties", "a", "pattern"],
      ["inputs_schema", "properties", "b", "pattern"],
      ["inputs_schema", "properties", "d", "pattern"],
    ]);
    expect(hits.every((h) => h.severity === "error")).toBe(true);
    expect(hits[1]!.message).toContain(refusalOf({ pattern: "^(a)\\1$" }));
    expect(hits[2]!.message).toContain(refusalOf({ pattern: "(?=x)y" }));
    expect(hits[3]!.message).toContain(refusalOf({ pattern: "(" }));
    expect(hits[0]!.atKey).toBe(true);
  });

  it("accepts the issue's ReDoS probes: they run in linear time now", () => {
    const schema = { properties: { a: { pattern: "a*a*a*a*a*b" }, b: { pattern: "\\s+$" }, c: { pattern: "^\\S+@\\S+\\.\\S+$" }, d: { pattern: "^\\d*\\d*\\d*\\d*x$" } } };
    expect(schemaKeywordRule(schema, "inputs_schema", [], "r")).toEqual([]);
  });

  it("is reported through lint on a real pack, once per pattern", async () => {
    const r = goodRecipe();
    (r["inputs_schema"] as { properties: Record<string, Record<string, unknown>> }).properties["object_name"]!["pattern"] = "^(\\w)\\1$";
    const hit = withCode(await lintPack(r), "schema_pattern_refused");
    expect(hit).toHaveLength(1);
    expect(hit[0]!.message).toContain("backreferences");
  });
});

describe("schema_steps_exceeded", () => {
  const fanOut = (keyword: string, n: number): Record<string, unknown> => {
    const defs: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) defs[`l${i}`] = { [keyword]: [{ $ref: `#/$defs/l${i + 1}` }, { $ref: `#/$defs/l${i + 1}` }] };
    defs[`l${n}`] = {};
    return { $ref: "#/$defs/l0", $defs: defs };
  };

  it("$defs l0…l27 each allOf [{$ref l(i+1)} x2]: flagged at the root with the validator's reason", () => {
    for (const keyword of ["allOf", "anyOf", "oneOf"]) {
      const hits = schemaKeywordRule(fanOut(keyword, 27), "inputs_schema", ["inputs_schema"], "r").filter((h) => h.code === "schema_steps_exceeded");
      expect(hits, keyword).toHaveLength(1);
      expect(hits[0]!.at).toEqual(["inputs_schema"]);
      expect(hits[0]!.message).toContain("Validation needs more than 200000 evaluation steps");
      // The runtime agrees: validating any value fails with maxSteps.
      const v = compileSchema(fanOut(keyword, 27));
      if (!v.ok) throw new Error("refused");
      if (keyword === "allOf") expect(v.validator.validate({}).errors[0]!.keyword).toBe("maxSteps");
    }
  });

  it("points at the fan-out when it sits below the root, and passes a small one", () => {
    const inner = fanOut("allOf", 20);
    const hits = schemaKeywordRule({ properties: { p: { $ref: "#/$defs/l0" } }, $defs: inner.$defs }, "inputs_schema", [], "r");
    expect(hits.filter((h) => h.code === "schema_steps_exceeded").map((h) => h.at)).toEqual([["properties", "p"]]);
    expect(schemaKeywordRule(fanOut("allOf", 10), "inputs_schema", [], "r")).toEqual([]);
  });

  it("takes the larger of then / else, and survives ref cycles", () => {
    expect(schemaKeywordRule({ if: true, then: fanOut("allOf", 10), else: {} }, "inputs_schema", [], "r")).toEqual([]);
    expect(() => schemaKeywordRule({ $ref: "#", allOf: [{ $ref: "#" }] }, "inputs_schema", [], "r")).not.toThrow();
  });
});

describe("draft-07 $schema", () => {
  const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

  it("accepted: one warning, no legacy noise for definitions", () => {
    const hits = schemaKeywordRule({ $schema: DRAFT_07, properties: { a: { $ref: "#/definitions/x" } }, definitions: { x: { type: "string" } } }, "inputs_schema", ["inputs_schema"], "r");
    expect(hits.map((h) => [h.code, h.severity])).toEqual([["schema_draft07", "warning"]]);
    expect(hits[0]!.at).toEqual(["inputs_schema", "$schema"]);
  });

  it("says which keyword to rewrite, each one, with the validator's reason", () => {
    const schema = { $schema: DRAFT_07, properties: { t: { items: [{ type: "number" }], additionalItems: false } }, dependencies: { a: ["b"] } };
    const hits = schemaKeywordRule(schema, "inputs_schema", ["inputs_schema"], "r").filter((h) => h.code === "schema_draft07_rewrite");
    expect(hits.map((h) => h.at)).toEqual([
      ["inputs_schema", "dependencies"],
      ["inputs_schema", "properties", "t", "items"],
      ["inputs_schema", "properties", "t", "additionalItems"],
    ]);
    expect(hits[0]!.message).toContain(refusalOf({ $schema: DRAFT_07, dependencies: { a: ["b"] } }));
    expect(hits[1]!.fix).toContain("prefixItems");
    // No legacy warning beside the rewrite error.
    expect(schemaKeywordRule(schema, "inputs_schema", [], "r").some((h) => h.code === "schema_legacy_keyword")).toBe(false);
  });

  it("without a Draft-07 $schema, dependencies stays a legacy warning (2020-12 ignores it)", () => {
    const hits = schemaKeywordRule({ dependencies: { a: ["b"] } }, "inputs_schema", [], "r");
    expect(hits.map((h) => h.code)).toEqual(["schema_legacy_keyword"]);
  });
});
