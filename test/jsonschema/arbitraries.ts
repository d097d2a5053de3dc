/**
 * Random in-scope schemas and JSON instances shared by the property-based tests. The
 * generators stay clear of ajv's documented bugs (decimal multipleOf, __proto__ /
 * constructor / toString keys, unevaluatedItems with contains/if, enum: [], contains next
 * to prefixItems, null-prototype objects), so differential.test.ts can compare with ajv.
 */
import fc from "fast-check";

const KEYS = ["a", "b", "c", "d", "x-1"];
// The last runs on the automaton (alternatives sharing a first character), the rest natively.
const PATTERNS = ["^a", "b$", "^[a-c]+$", "\\d", "^x-", "^(?:a|ab)$"];

const scalar = fc.oneof(
  fc.constantFrom(null, true, false, 0, 1, -1, 2, 3, 0.5, 1.5, 10, "", "a", "b", "ab", "x-1", "😀"),
  fc.integer({ min: -20, max: 20 }),
  fc.string({ maxLength: 4 }),
);

// Instances arrive as parsed JSON: the round trip also gives dictionaries a normal
// prototype (ajv's deep equality tells null-prototype objects apart, JSON cannot).
const { value: rawInstance } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie("value"), { maxKeys: 4 }),
  ),
}));
export const instance = rawInstance.map((v) => JSON.parse(JSON.stringify(v)) as unknown);

const nonNeg = fc.integer({ min: 0, max: 4 });
const TYPES = ["null", "boolean", "object", "array", "number", "string", "integer"] as const;
const kw = (key: string, value: fc.Arbitrary<unknown>): fc.Arbitrary<Record<string, unknown>> => value.map((v) => ({ [key]: v }));

/** Keywords without subschemas. */
const leafKeywords = [
  kw("type", fc.oneof(fc.constantFrom(...TYPES), fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 3 }))),
  kw("enum", fc.array(instance, { minLength: 1, maxLength: 3 })),
  kw("const", instance),
  kw("minimum", fc.integer({ min: -5, max: 5 })),
  kw("maximum", fc.integer({ min: -5, max: 5 })),
  kw("exclusiveMinimum", fc.constantFrom(-1, 0, 0.5, 2)),
  kw("exclusiveMaximum", fc.constantFrom(-1, 0, 0.5, 2)),
  kw("multipleOf", fc.constantFrom(1, 2, 3, 5)),
  kw("minLength", nonNeg),
  kw("maxLength", nonNeg),
  kw("pattern", fc.constantFrom(...PATTERNS)),
  kw("minItems", nonNeg),
  kw("maxItems", nonNeg),
  kw("uniqueItems", fc.boolean()),
  kw("required", fc.uniqueArray(fc.constantFrom(...KEYS), { maxLength: 3 })),
  kw("dependentRequired", fc.dictionary(fc.constantFrom(...KEYS), fc.uniqueArray(fc.constantFrom(...KEYS), { maxLength: 2 }), { maxKeys: 2 })),
  kw("minProperties", nonNeg),
  kw("maxProperties", nonNeg),
  kw("$ref", fc.constantFrom("#/$defs/num", "#/$defs/obj", "#/$defs/list")),
  kw("propertyNames", fc.record({ pattern: fc.constantFrom(...PATTERNS), maxLength: nonNeg }, { requiredKeys: [] })),
];

/** Keywords with subschemas, given the arbitrary for one level down. */
function applicatorKeywords(sub: fc.Arbitrary<unknown>): Array<fc.Arbitrary<Record<string, unknown>>> {
  const list = fc.array(sub, { minLength: 1, maxLength: 2 });
  return [
    kw("items", sub),
    kw("prefixItems", list),
    fc.record({ contains: sub, minContains: nonNeg, maxContains: nonNeg }, { requiredKeys: ["contains"] }),
    kw("properties", fc.dictionary(fc.constantFrom(...KEYS), sub, { maxKeys: 3 })),
    kw("patternProperties", fc.dictionary(fc.constantFrom(...PATTERNS), sub, { maxKeys: 2 })),
    kw("additionalProperties", sub),
    kw("dependentSchemas", fc.dictionary(fc.constantFrom(...KEYS), sub, { maxKeys: 2 })),
    kw("allOf", list),
    kw("anyOf", list),
    kw("oneOf", list),
    kw("not", sub),
    fc.record({ if: sub, then: sub, else: sub }, { requiredKeys: [] }),
    kw("unevaluatedProperties", sub),
  ];
}

/**
 * ajv 8.20 ignores `contains` next to `prefixItems` (`{"prefixItems":[{}],"contains":{}}`
 * accepts `[]`) and takes property annotations from a failed `if`; pitfalls.test.ts asserts
 * our answer for both.
 */
function withoutAjvBugs(o: Record<string, unknown>): unknown {
  let out = o;
  if ("prefixItems" in out && "contains" in out) {
    const { contains: _c, minContains: _min, maxContains: _max, ...rest } = out;
    out = rest;
  }
  if ("unevaluatedProperties" in out && "if" in out) {
    const { if: _if, then: _then, else: _else, ...rest } = out;
    out = rest;
  }
  return out;
}

/** A schema at most `depth` subschema levels deep, with up to four keywords per object. */
function schemaAt(depth: number): fc.Arbitrary<unknown> {
  const parts = depth === 0 ? leafKeywords : [...leafKeywords, ...applicatorKeywords(schemaAt(depth - 1))];
  return fc.oneof(
    { weight: 1, arbitrary: fc.boolean() },
    { weight: 6, arbitrary: fc.array(fc.oneof(...parts), { maxLength: 4 }).map((ps) => withoutAjvBugs(Object.assign({}, ...ps))) },
  );
}

export const schema = schemaAt(2);

/** Fixed, acyclic definitions every generated $ref can reach. */
export const DEFS = {
  num: { type: "number", minimum: 0 },
  obj: { type: "object", properties: { a: { $ref: "#/$defs/num" } }, required: ["a"] },
  list: { type: "array", items: { $ref: "#/$defs/num" }, maxItems: 3 },
};

