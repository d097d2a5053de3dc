import { describe, expect, it } from "vitest";
import { keywordTypo, schemaKeywordRule } from "../../../src/lint/rules/schema-keywords.js";
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

  it("walks into definitions and leaves a non-string `id` alone", () => {
    const hits = schemaKeywordRule({ definitions: { a: { minimun: 1 } }, properties: { p: { id: 3 } } }, "inputs_schema", [], "r");
    expect(hits.map((h) => h.code)).toEqual(["schema_legacy_keyword", "schema_keyword_typo"]);
  });

  it("survives a deep hostile schema without walking forever", () => {
    let s: Record<string, unknown> = { minimun: 1 };
    for (let i = 0; i < 5000; i++) s = { not: s };
    expect(() => schemaKeywordRule(s, "inputs_schema", [], "r")).not.toThrow();
  });
});
