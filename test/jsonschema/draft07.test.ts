/**
 * Keys and limits dcc-mcp-core accepts: a Draft-07 `$schema` is accepted where the schema
 * means the same under 2020-12, with a warning; refused, naming the keyword to rewrite, where
 * it does not. `definitions` is read as `$defs`. `$id` and `$dynamic*` stay refused.
 */
import { describe, expect, it } from "vitest";
import { checkSchema, compileSchema, schemaWarnings } from "../../src/jsonschema/index.js";
import { compiled, refusal } from "./helpers.js";

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

describe("draft-07 $schema", () => {
  it("is accepted on a schema that uses none of array items, additionalItems, dependencies, with a warning", () => {
    const schema = { $schema: DRAFT_07, type: "object", properties: { n: { type: "integer" }, tags: { type: "array", items: { type: "string" } } }, required: ["n"] };
    const v = compiled(schema);
    expect(v.validate({ n: 1, tags: ["a"] }).valid).toBe(true);
    expect(v.validate({ tags: [1] }).valid).toBe(false);
    expect(schemaWarnings(schema)).toEqual([expect.objectContaining({ code: "draft07_dialect", schemaPath: "/$schema" })]);
    for (const uri of ["http://json-schema.org/draft-07/schema", "https://json-schema.org/draft-07/schema#"]) {
      expect(compileSchema({ $schema: uri }).ok).toBe(true);
    }
  });

  it("no warning on a 2020-12 schema or one without $schema", () => {
    expect(schemaWarnings({ $schema: "https://json-schema.org/draft/2020-12/schema" })).toEqual([]);
    expect(schemaWarnings({ type: "string" })).toEqual([]);
  });

  it("is refused where the meaning differs, naming which keyword to rewrite", () => {
    const items = refusal({ $schema: DRAFT_07, properties: { p: { items: [{ type: "number" }] } } });
    expect(items).toMatchObject({ code: "unsupported_dialect", schemaPath: "/properties/p/items" });
    expect(items.message).toContain("prefixItems");
    const additional = refusal({ $schema: DRAFT_07, additionalItems: false });
    expect(additional).toMatchObject({ schemaPath: "/additionalItems" });
    expect(additional.message).toContain("rewrite it as items");
    const deps = refusal({ $schema: DRAFT_07, definitions: { d: { dependencies: { a: ["b"] } } } });
    expect(deps).toMatchObject({ schemaPath: "/definitions/d/dependencies" });
    expect(deps.message).toContain("dependentRequired");
    expect(checkSchema({ $schema: DRAFT_07, dependencies: {} })?.schemaPath).toBe("/dependencies");
  });

  it("only at the root: a nested one is still refused, as are $id and $dynamic*", () => {
    expect(refusal({ items: { $schema: DRAFT_07 } }).code).toBe("unsupported_dialect");
    expect(refusal({ $schema: DRAFT_07, $id: "http://example.com/s" }).code).toBe("id_unsupported");
    expect(refusal({ $schema: DRAFT_07, $defs: { a: { $dynamicAnchor: "x" } } }).code).toBe("dynamic_ref_unsupported");
  });

  it("a 2020-12 schema's array items stays malformed, not a dialect question", () => {
    expect(refusal({ items: [{}] }).code).toBe("malformed");
  });
});

describe("definitions, the draft-07 name of $defs", () => {
  it("$ref #/definitions/… resolves and validates", () => {
    const v = compiled({ $schema: DRAFT_07, properties: { a: { $ref: "#/definitions/pos" } }, definitions: { pos: { type: "number", minimum: 0 } } });
    expect(v.validate({ a: 1 }).valid).toBe(true);
    expect(v.validate({ a: -1 }).errors[0]).toMatchObject({ keywordLocation: "/definitions/pos/minimum" });
  });

  it("its members are schemas: compiled (and refused when malformed) even when unreferenced", () => {
    expect(refusal({ definitions: { bad: { type: 1 } } })).toMatchObject({ code: "malformed", schemaPath: "/definitions/bad/type" });
    expect(refusal({ definitions: [] })).toMatchObject({ code: "malformed", schemaPath: "/definitions" });
    expect(refusal({ definitions: { x: { $id: "urn:x" } } }).code).toBe("id_unsupported");
  });

  it("anchors inside it are found", () => {
    expect(compiled({ $ref: "#n", definitions: { n: { $anchor: "n", type: "null" } } }).validate(null).valid).toBe(true);
  });
});
