/**
 * checkSchema against compileSchema: for every schema, checkSchema returns null exactly when
 * compileSchema compiles it, and otherwise the very same error (code, message, schemaPath:
 * the first fault, in compile's order of discovery). Schemas: the official suite (every
 * file, optional/ included), the real packs, random in-scope schemas, the same with random
 * faults planted, and hand-written hostile cases.
 */
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import yaml from "js-yaml";
import { describe, expect, it } from "vitest";
import { checkSchema, compileSchema } from "../../src/jsonschema/index.js";
import type { CompileOptions, SchemaError } from "../../src/jsonschema/index.js";
import { DEFS, schema as randomSchema } from "./arbitraries.js";
import { OPERANDS } from "./operands.js";
import { JSON_SCHEMA_SUITE, REAL_SKILLS, requireShared } from "../helpers/shared.js";

const suiteDir = path.join(JSON_SCHEMA_SUITE, "tests/draft2020-12");
const realSkills = REAL_SKILLS;
const hasSuite = requireShared(suiteDir, "checkSchema on the JSON-Schema-Test-Suite");
const hasPacks = requireShared(realSkills, "checkSchema on the real packs");

function compileVerdict(schema: unknown, options?: CompileOptions): SchemaError | null {
  const r = compileSchema(schema, options);
  return r.ok ? null : r.error;
}

/** Asserts the two verdicts are equal and returns it. */
function same(schema: unknown, options?: CompileOptions): SchemaError | null {
  const expected = compileVerdict(schema, options);
  let label: string;
  try {
    label = JSON.stringify(schema)?.slice(0, 300) ?? String(schema);
  } catch {
    label = String(schema);
  }
  expect(checkSchema(schema, options), label).toStrictEqual(expected);
  return expected;
}

function filesUnder(dir: string, test: (name: string) => boolean, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) filesUnder(p, test, out);
    else if (test(e.name)) out.push(p);
  }
  return out.sort();
}

function recipeSchemas(node: unknown, out: unknown[]): void {
  if (Array.isArray(node)) for (const x of node) recipeSchemas(x, out);
  else if (node !== null && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "inputs_schema" || k === "output_contract") out.push(v);
      else recipeSchemas(v, out);
    }
  }
}

describe.skipIf(!hasSuite)("checkSchema on the JSON-Schema-Test-Suite (draft2020-12, optional/ included)", () => {
  it("gives compileSchema's verdict for every schema", () => {
    let schemas = 0;
    let refused = 0;
    for (const file of filesUnder(suiteDir, (n) => n.endsWith(".json"))) {
      for (const group of JSON.parse(fs.readFileSync(file, "utf8")) as Array<{ schema: unknown }>) {
        schemas++;
        if (same(group.schema) !== null) refused++;
      }
    }
    console.log(`checkSchema = compileSchema on ${schemas} suite schemas (${refused} refused)`);
    expect(schemas).toBeGreaterThan(400);
    expect(refused).toBeGreaterThan(20);
  });
});

describe.skipIf(!hasPacks)("checkSchema on the real packs", () => {
  it("gives compileSchema's verdict for every inputs_schema and output_contract", () => {
    const schemas: unknown[] = [];
    for (const file of filesUnder(realSkills, (n) => /^RECIPES\.ya?ml$/.test(n))) recipeSchemas(yaml.load(fs.readFileSync(file, "utf8")), schemas);
    for (const s of schemas) same(s);
    console.log(`checkSchema = compileSchema on ${schemas.length} real pack schemas`);
    expect(schemas.length).toBeGreaterThan(20);
  });
});

const KEYWORDS = Object.keys(OPERANDS);

/** Puts `value` at `key` of the `index`-th schema object of `root` (pre-order), in place. */
function plant(root: unknown, index: number, key: string, value: unknown): void {
  const objects: Array<Record<string, unknown>> = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === "object") {
      objects.push(v as Record<string, unknown>);
      for (const x of Object.values(v)) walk(x);
    }
  };
  walk(root);
  if (objects.length === 0) return;
  objects[index % objects.length]![key] = structuredClone(value);
}

const fault = fc.record({
  at: fc.nat(),
  key: fc.constantFrom(...KEYWORDS),
  pick: fc.nat(),
});
const LIMITS: readonly (CompileOptions | undefined)[] = [undefined, { maxDepth: 4 }, { maxNodes: 30 }, { maxBytes: 300 }, { allErrors: false }];

describe("checkSchema on random schemas", () => {
  it("agrees on random in-scope schemas", () => {
    fc.assert(
      fc.property(randomSchema, (s) => {
        const root = typeof s === "boolean" ? s : { ...(s as object), $defs: DEFS };
        same(root);
      }),
      { numRuns: 400, seed: 20_261_130 },
    );
  });

  it("agrees on random schemas with one to four planted faults, under default and small limits", () => {
    let refused = 0;
    let runs = 0;
    fc.assert(
      fc.property(randomSchema, fc.array(fault, { minLength: 1, maxLength: 4 }), fc.nat(LIMITS.length - 1), (s, faults, li) => {
        const root: unknown = typeof s === "boolean" ? { allOf: [s], $defs: structuredClone(DEFS) } : { ...structuredClone(s as object), $defs: structuredClone(DEFS) };
        for (const f of faults) {
          const values = OPERANDS[f.key]!;
          plant(root, f.at, f.key, values[f.pick % values.length]);
        }
        runs++;
        if (same(root, LIMITS[li]) !== null) refused++;
      }),
      { numRuns: 1500, seed: 20_261_131 },
    );
    console.log(`checkSchema = compileSchema on ${runs} schemas with planted faults (${refused} refused)`);
    expect(refused).toBeGreaterThan(runs / 3);
  });
});

describe("checkSchema on hostile schemas", () => {
  it("refuses every malformed operand of every keyword as compile does, wherever it sits", () => {
    let refused = 0;
    for (const key of KEYWORDS) {
      for (const value of OPERANDS[key]!) {
        const places: unknown[] = [
          { [key]: value },
          { type: "object", properties: { a: { [key]: value } } },
          { $ref: "#/$defs/d", $defs: { d: { [key]: value } } },
          { items: { $ref: "#/$defs/d" }, $defs: { d: { allOf: [{ [key]: value }] } } },
          { anyOf: [{ [key]: value }, { not: { [key]: value } }], prefixItems: [{ [key]: value }] },
        ];
        for (const p of places) if (same(p) !== null) refused++;
      }
    }
    expect(refused).toBeGreaterThan(300);
  });

  it("reports the first of several faults in compile's order (keyword table order, subschemas depth first, refs last)", () => {
    for (const [a, b] of [
      ["type", "enum"],
      ["minimum", "required"],
      ["properties", "$ref"],
      ["$defs", "items"],
      ["unevaluatedProperties", "properties"],
      ["unevaluatedItems", "prefixItems"],
      ["pattern", "patternProperties"],
      ["allOf", "not"],
      ["if", "then"],
      ["dependentSchemas", "dependentRequired"],
    ] as const) {
      const bad = (k: string): unknown => OPERANDS[k]!.find((v) => compileVerdict({ [k]: v }) !== null);
      const both = { [a]: bad(a), [b]: bad(b) };
      const err = same(both);
      expect(err).not.toBeNull();
      same({ [b]: bad(b), [a]: bad(a) });
      same({ properties: { x: both }, $defs: { y: { [b]: bad(b) } }, $ref: "#/$defs/y" });
    }
    // A ref target is compiled after the tree that refers to it, unless the tree reaches it first.
    expect(same({ $ref: "#/$defs/a", $defs: { a: { type: 1 } }, properties: { p: { minimum: "x" } } })?.schemaPath).toBe("/properties/p/minimum");
    expect(same({ properties: { p: { $ref: "#/$defs/a" } }, $defs: { a: { type: 1 } }, not: { enum: 2 } })?.schemaPath).toBe("/not/enum");
    // Ref targets wait on a stack: the last one referred to is compiled first.
    const twoTargets = { allOf: [{ $ref: "#/$defs/a" }, { $ref: "#/$defs/b" }], $defs: { a: { type: 1 }, b: { enum: 1 } } };
    expect(same(twoTargets)?.schemaPath).toBe("/$defs/b/enum");
    expect(same({ ...twoTargets, allOf: [{ $ref: "#/$defs/b" }, { $ref: "#/$defs/a" }] })?.schemaPath).toBe("/$defs/a/type");
    // A target's own refs are pushed while it compiles, so they come before older ones.
    const nested = { allOf: [{ $ref: "#/$defs/a" }, { $ref: "#/$defs/b" }], $defs: { a: { minimum: "x" }, b: { $ref: "#/$defs/c" }, c: { maximum: "y" } } };
    expect(same(nested)?.schemaPath).toBe("/$defs/c/maximum");
  });

  it("refuses by the limits first: 129 levels, 10,001 nodes, 1 MiB + 1 of JSON", () => {
    let deep: unknown = {};
    for (let i = 1; i < 128; i++) deep = { not: deep };
    expect(same(deep)).toBeNull();
    expect(same({ not: deep })?.code).toBe("too_deep");
    // Faults deeper down must not be reported before the limit.
    let deepBad: unknown = { type: "nope" };
    for (let i = 0; i < 200; i++) deepBad = { items: deepBad };
    expect(same(deepBad)?.code).toBe("too_deep");
    // 10,000-level document: the limits walk stops early, nothing recurses past it.
    let veryDeep: unknown = { type: 1 };
    for (let i = 0; i < 10_000; i++) veryDeep = { allOf: [veryDeep] };
    expect(same(veryDeep)?.code).toBe("too_deep");

    // root + enum array + members
    expect(same({ enum: Array.from({ length: 9_998 }, (_, i) => i) })).toBeNull();
    expect(same({ enum: Array.from({ length: 9_999 }, (_, i) => i), type: 1 })?.code).toBe("too_many_nodes");

    const mib = 1024 * 1024;
    const sized = (bytes: number): unknown => ({ description: "x".repeat(bytes - '{"description":""}'.length) });
    expect(JSON.stringify(sized(mib)).length).toBe(mib);
    expect(same(sized(mib))).toBeNull();
    expect(same(sized(mib + 1))?.code).toBe("too_large");
    expect(same({ ...(sized(mib + 1) as object), type: "nope" })?.code).toBe("too_large");
  });

  it("refuses what is not JSON as compile does", () => {
    for (const s of [undefined, () => 1, new Date(0), { a: Number.NaN }, { minimum: Infinity }, 1n, Symbol("s"), new Map(), [1], "x", 3, null]) {
      same(s);
    }
    const cyclic: Record<string, unknown> = { type: "object" };
    cyclic.properties = { self: cyclic };
    expect(same(cyclic)?.code).toBe("too_deep");
    expect(same(Object.create({ type: "string" }) as unknown)?.code).toBe("malformed");
    expect(same(Object.assign(Object.create(null), { type: 1 }) as unknown)?.code).toBe("malformed");
  });

  it("refuses $id, $dynamicRef, $dynamicAnchor, external refs, other dialects and unsupported patterns as compile does", () => {
    expect(same({ properties: { a: { $id: "http://x/" } } })?.code).toBe("id_unsupported");
    expect(same({ items: { $dynamicRef: "#meta" } })?.code).toBe("dynamic_ref_unsupported");
    expect(same({ $defs: { a: { $dynamicAnchor: "meta" } } })?.code).toBe("dynamic_ref_unsupported");
    expect(same({ $ref: "https://json-schema.org/draft/2020-12/schema" })?.code).toBe("external_ref");
    expect(same({ $schema: "http://json-schema.org/draft-07/schema#" })).toBeNull();
    expect(same({ $schema: "http://json-schema.org/draft-07/schema#", items: [{}] })?.code).toBe("unsupported_dialect");
    expect(same({ $schema: "http://json-schema.org/draft-06/schema#" })?.code).toBe("unsupported_dialect");
    expect(same({ not: { $schema: "https://json-schema.org/draft/2020-12/schema" } })).toBeNull();
    expect(same({ pattern: "^(a)\\1$" })?.code).toBe("unsupported_pattern");
    expect(same({ patternProperties: { "(?=a)": {} } })?.code).toBe("unsupported_pattern");
    expect(same({ propertyNames: { pattern: "(?<=a)b" } })?.code).toBe("unsupported_pattern");
    expect(same({ pattern: "[" })?.code).toBe("invalid_pattern");
    expect(same({ $ref: "#missing" })?.code).toBe("unresolved_ref");
    expect(same({ $defs: { a: { $anchor: "x" }, b: { $anchor: "x" } } })?.code).toBe("malformed");
    expect(same({ $ref: "#x", $defs: { a: { $anchor: "x", type: 1 } } })?.code).toBe("malformed");
    // The same pattern twice is compiled once (the compile-wide cache) and still refused where it first occurs.
    expect(same({ properties: { a: { pattern: "(a)\\1" }, b: { pattern: "(a)\\1" } } })?.schemaPath).toBe("/properties/a/pattern");
  });

  it("refuses $ref cycles that make no progress and accepts those that do, without recursing", () => {
    expect(same({ $ref: "#" })?.code).toBe("malformed");
    expect(same({ allOf: [{ $ref: "#/$defs/a" }], $defs: { a: { anyOf: [{ $ref: "#/$defs/b" }] }, b: { not: { $ref: "#/$defs/a" } } } })?.code).toBe("malformed");
    expect(same({ if: { $ref: "#" } })?.code).toBe("malformed");
    expect(same({ dependentSchemas: { a: { $ref: "#" } } })?.code).toBe("malformed");
    expect(same({ properties: { next: { $ref: "#" } } })).toBeNull();
    expect(same({ items: { $ref: "#" }, $defs: { a: { $ref: "#/$defs/a" } } })?.code).toBe("malformed");
    // An unreachable cycle is still a cycle; a fault found while compiling wins over it.
    expect(same({ $defs: { a: { $ref: "#/$defs/a" }, b: { type: 1 } } })?.schemaPath).toBe("/$defs/b/type");
    // Long ref chains: 5,000 links, resolved without recursion, with and without a cycle at the end.
    const chain = (n: number, last: unknown): unknown => {
      const defs: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) defs[`d${i}`] = { $ref: `#/$defs/d${i + 1}` };
      defs[`d${n}`] = last;
      return { $ref: "#/$defs/d0", $defs: defs };
    };
    expect(same(chain(4_000, { type: "string" }))).toBeNull();
    expect(same(chain(4_000, { $ref: "#/$defs/d0" }))?.code).toBe("malformed");
    expect(same(chain(4_000, { type: "nope" }))?.schemaPath).toBe("/$defs/d4000/type");
  });

  it("treats `$ref`, `$id` and `$schema` keys outside schema positions as compile does", () => {
    expect(same({ type: "object", properties: { $ref: { type: 1 } } })?.schemaPath).toBe("/properties/$ref/type");
    expect(same({ type: "object", properties: { $ref: { type: "string" }, $id: { type: "string" } } })).toBeNull();
    expect(same({ enum: [{ $ref: "#" }, { $id: "x", $schema: 1 }] })).toBeNull();
    expect(same({ const: { $dynamicRef: "#x" }, type: 1 })?.code).toBe("malformed");
    expect(same({ $schema: "http://json-schema.org/draft-04/schema#", type: "object" })?.code).toBe("unsupported_dialect");
    expect(same({ $schema: "https://json-schema.org/draft/2020-12/schema", items: { $schema: 4 } })?.schemaPath).toBe("/items/$schema");
    expect(same({ $ref: "#/$defs/a", $defs: { a: { $schema: "draft-07" } } })?.code).toBe("unsupported_dialect");
    expect(same({ $ref: "#/enum/0", enum: [{ $id: "x" }] })?.code).toBe("id_unsupported");
    expect(same({ $ref: "#/enum/0", enum: [{ type: 1 }] })?.schemaPath).toBe("/enum/0/type");
  });

  it("honours the options as compile does", () => {
    const s = { type: "object", properties: { a: { type: "array", items: { type: "string" } } } };
    for (const options of [{ maxDepth: 2 }, { maxDepth: 3 }, { maxNodes: 8 }, { maxNodes: 9 }, { maxBytes: 60 }, { maxBytes: 10_000 }]) same(s, options);
    // Three schema levels (root, a, items), five JSON levels.
    expect(checkSchema(s, { maxDepth: 2 })?.code).toBe("too_deep");
    expect(checkSchema(s, { maxDepth: 3 })).toBeNull();
    expect(checkSchema(s)).toBeNull();
  });

  it("never mutates the schema", () => {
    const s = { type: "object", properties: { a: { $ref: "#/$defs/x" } }, $defs: { x: { pattern: "^a", enum: ["a"] } }, unevaluatedProperties: false };
    const copy = structuredClone(s);
    checkSchema(Object.freeze(s));
    expect(s).toStrictEqual(copy);
  });
});
