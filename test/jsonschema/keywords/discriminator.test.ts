import { describe, expect, it } from "vitest";
import { findDiscriminator } from "../../../src/jsonschema/keywords/discriminator.js";
import { accepts, errorsOf } from "../helpers.js";

const branch = (kind: unknown, extra: Record<string, unknown> = {}) => ({
  type: "object",
  required: ["kind", ...Object.keys(extra)],
  properties: { kind: { const: kind }, ...extra },
});

describe("tagged oneOf / anyOf", () => {
  const schema = { oneOf: [branch("a", { x: { type: "number" } }), branch("b"), branch(1)] };

  it("finds the tag only when every branch pins it", () => {
    expect(findDiscriminator(schema.oneOf)?.property).toBe("kind");
    expect(findDiscriminator([branch("a"), branch("a")])).toBeNull();
    expect(findDiscriminator([branch("a"), { ...branch("b"), type: ["object", "null"] }])).toBeNull();
    expect(findDiscriminator([branch("a"), { ...branch("b"), required: [] }])).toBeNull();
    expect(findDiscriminator([branch("a"), { $ref: "#" }])).toBeNull();
  });

  it("gives the same answers as evaluating every branch", () => {
    for (const s of [schema, { anyOf: schema.oneOf }]) {
      const ok = accepts(s);
      expect(ok({ kind: "a", x: 1 })).toBe(true);
      expect(ok({ kind: "a" })).toBe(false);
      expect(ok({ kind: "b" })).toBe(true);
      expect(ok({ kind: 1 })).toBe(true);
      expect(ok({ kind: "1" })).toBe(false);
      expect(ok({ kind: true })).toBe(false);
      expect(ok({})).toBe(false);
      expect(ok("a")).toBe(false);
      expect(ok(JSON.parse('{"kind": "toString"}'))).toBe(false);
    }
  });

  it("reports one oneOf error", () => {
    expect(errorsOf(schema, { kind: "z" })).toEqual([
      { instancePath: "", keywordLocation: "/oneOf", keyword: "oneOf", message: "Expected a value matching exactly one schema in oneOf, matched none" },
    ]);
  });

  it("keeps annotations for unevaluatedProperties", () => {
    const ok = accepts({ oneOf: [branch("a", { x: {} }), branch("b")], unevaluatedProperties: false });
    expect(ok({ kind: "a", x: 1 })).toBe(true);
    expect(ok({ kind: "b", x: 1 })).toBe(false);
  });
});
