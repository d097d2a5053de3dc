/** What the compiler refuses, with which code and where (the fail-closed list in docs/jsonschema.md). */
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/jsonschema/index.js";
import { accepts, compiled, refusal } from "./helpers.js";

describe("compileSchema refusals", () => {
  it("refuses $id anywhere in a schema position", () => {
    expect(refusal({ $id: "https://example.com/s" }).code).toBe("id_unsupported");
    expect(refusal({ properties: { a: { $id: "a" } } })).toMatchObject({ code: "id_unsupported", schemaPath: "/properties/a/$id" });
  });

  it("treats $id, $ref and $anchor as data inside enum, const and property names", () => {
    const ok = accepts({ enum: [{ $id: "x", $ref: "#/nowhere" }], properties: { $id: { type: "string" }, $ref: {} } });
    expect(ok({ $id: "x", $ref: "#/nowhere" })).toBe(true);
    expect(accepts({ properties: { $id: { type: "string" } } })({ $id: 1 })).toBe(false);
  });

  it("refuses $dynamicRef and $dynamicAnchor", () => {
    expect(refusal({ $dynamicRef: "#x" }).code).toBe("dynamic_ref_unsupported");
    expect(refusal({ $defs: { a: { $dynamicAnchor: "x" } } }).code).toBe("dynamic_ref_unsupported");
  });

  it("accepts the 2020-12 dialect, and Draft-07 at the root where it means the same", () => {
    expect(compileSchema({ $schema: "https://json-schema.org/draft/2020-12/schema" }).ok).toBe(true);
    expect(compileSchema({ $schema: "http://json-schema.org/draft-07/schema#" }).ok).toBe(true);
    expect(refusal({ $schema: "http://json-schema.org/draft-04/schema#" }).code).toBe("unsupported_dialect");
    expect(refusal({ $schema: 2020 }).code).toBe("unsupported_dialect");
  });

  it("refuses bad and duplicate anchors", () => {
    expect(refusal({ $anchor: "1bad" }).code).toBe("malformed");
    expect(refusal({ $defs: { a: { $anchor: "x" }, b: { $anchor: "x" } } }).code).toBe("malformed");
  });

  it("refuses non-schema subschemas and malformed $defs", () => {
    expect(refusal({ items: 1 }).code).toBe("malformed");
    expect(refusal({ $defs: [] }).code).toBe("malformed");
    expect(refusal({ $defs: { unused: { type: "nope" } } }).code).toBe("malformed");
  });

  it("ignores unknown keywords and annotations, including format", () => {
    const ok = accepts({ format: "email", title: "t", "x-custom": { $id: "ignored" }, contentMediaType: "application/json" });
    expect(ok("not an email")).toBe(true);
  });

  it("resolves refs into unknown keywords by pointer", () => {
    const ok = accepts({ "x-defs": { n: { type: "number" } }, properties: { a: { $ref: "#/x-defs/n" } } });
    expect(ok({ a: 1 })).toBe(true);
    expect(ok({ a: "1" })).toBe(false);
  });

  it("boolean schemas", () => {
    expect(accepts(true)(1)).toBe(true);
    expect(accepts(false)(1)).toBe(false);
    expect(compiled(false).validate(null).errors).toEqual([
      { instancePath: "", keywordLocation: "", keyword: "false", message: "No value is allowed here" },
    ]);
  });

  it("builds no shared state: two compiles of the same schema are independent", () => {
    const schema = { pattern: "^a", $defs: { x: { $anchor: "x", type: "string" } }, $ref: "#x" };
    const a = compiled(schema);
    const b = compiled(schema);
    expect(a).not.toBe(b);
    expect(a.validate("ab").valid && b.validate("ab").valid).toBe(true);
  });

  it("stops at the first error when allErrors is false", () => {
    const r = compileSchema({ required: ["a", "b"], properties: { c: { type: "string" } } }, { allErrors: false });
    if (!r.ok) throw new Error();
    expect(r.validator.validate({ c: 1 }).errors).toHaveLength(1);
    const all = compiled({ required: ["a"], properties: { c: { type: "string" } } }).validate({ c: 1 });
    expect(all.errors).toHaveLength(2);
  });
});
