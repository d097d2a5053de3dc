/**
 * The evaluation step budget (src/jsonschema/steps.ts): a schema that fans out ends with one
 * error datum instead of running for seconds (before the budget: l0…l27 took 6.3 s, anyOf 11.9 s).
 */
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/jsonschema/index.js";
import { DEFAULT_MAX_STEPS } from "../../src/jsonschema/steps.js";
import { FAST_PATHS } from "./helpers.js";

/** $defs l0…l(n-1), each `keyword: [{$ref: l(i+1)}, {$ref: l(i+1)}]`, l(n) = leaf. */
function fanOut(keyword: string, n: number, leaf: unknown = {}): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) defs[`l${i}`] = { [keyword]: [{ $ref: `#/$defs/l${i + 1}` }, { $ref: `#/$defs/l${i + 1}` }] };
  defs[`l${n}`] = leaf;
  return { $ref: "#/$defs/l0", $defs: defs };
}

const STEPS_ERROR = { instancePath: "", keywordLocation: "", keyword: "maxSteps" };

describe.each(FAST_PATHS)("evaluation step budget ($mode)", ({ generateAfter }) => {
  const validate = (schema: unknown, instance: unknown, allErrors = true) => {
    const r = compileSchema(schema, { generateAfter, allErrors });
    if (!r.ok) throw new Error(r.error.message);
    // Past generateAfter, so the generated paths answer too.
    for (let i = 0; i < 10; i++) r.validator.validate(instance);
    return r.validator.validate(instance);
  };

  it("$defs l0…l27 each allOf [{$ref l(i+1)} x2] validating {}", () => {
    for (const allErrors of [true, false]) {
      const r = validate(fanOut("allOf", 28), {}, allErrors);
      expect(r.valid).toBe(false);
      expect(r.errors).toEqual([expect.objectContaining(STEPS_ERROR)]);
      expect(r.errors[0]!.message).toContain(`${DEFAULT_MAX_STEPS}`);
    }
  });

  it("$defs l0…l27 each anyOf [{$ref l(i+1)} x2] validating {} (every branch fails)", () => {
    const r = validate(fanOut("anyOf", 28, false), {});
    expect(r.errors).toEqual([expect.objectContaining(STEPS_ERROR)]);
  });

  it("oneOf, not and if fan-outs are bounded too, not answered by negation", () => {
    expect(validate(fanOut("oneOf", 28), {}).errors).toEqual([expect.objectContaining(STEPS_ERROR)]);
    // `not` over a fan-out that fails everywhere: a budget read as "the branch failed"
    // would turn into a pass.
    const inner = fanOut("anyOf", 28, false);
    const r = validate({ not: { $ref: "#/$defs/l0" }, $defs: inner.$defs }, {});
    expect(r.errors).toEqual([expect.objectContaining(STEPS_ERROR)]);
    const cond = validate({ if: { $ref: "#/$defs/l0" }, then: true, else: true, $defs: inner.$defs }, {});
    expect(cond.errors).toEqual([expect.objectContaining(STEPS_ERROR)]);
  });

  it("member loops count: a fan-out whose leaf iterates a large object", () => {
    const leaf = { type: "object", additionalProperties: { type: "integer" } };
    const big = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]));
    expect(validate(fanOut("allOf", 10, leaf), big).errors).toEqual([expect.objectContaining(STEPS_ERROR)]);
    // The same object under the leaf alone is well inside the budget.
    expect(validate(leaf, big).valid).toBe(true);
  });

  it("item loops count too, closures and generated code alike", () => {
    const leaf = { type: "array", items: { type: "integer" } };
    const items = Array.from({ length: 5000 }, (_, i) => i);
    expect(validate(fanOut("allOf", 10, leaf), items).errors).toEqual([expect.objectContaining(STEPS_ERROR)]);
    expect(validate(leaf, items).valid).toBe(true);
  });

  it("pattern work is charged by length: a fan-out over one long string", () => {
    const leaf = { type: "string", pattern: "a$" };
    const r = validate(fanOut("allOf", 8, leaf), "b".repeat(100_000));
    expect(r.errors).toEqual([expect.objectContaining(STEPS_ERROR)]);
    expect(validate(leaf, "b".repeat(100_000)).valid).toBe(false);
  });

  it("a schema short of the budget answers normally", () => {
    expect(validate(fanOut("allOf", 10), {}).valid).toBe(true);
    expect(validate(fanOut("anyOf", 10, false), {}).errors[0]!.keyword).not.toBe("maxSteps");
  });

  it("maxSteps is a compile option; the budget is per validation, not per validator", () => {
    const r = compileSchema(fanOut("allOf", 6), { maxSteps: 100, generateAfter });
    if (!r.ok) throw new Error("refused");
    expect(r.validator.validate({}).errors[0]?.keyword).toBe("maxSteps");
    const ok = compileSchema(fanOut("allOf", 4), { maxSteps: 100, generateAfter });
    if (!ok.ok) throw new Error("refused");
    for (let i = 0; i < 20; i++) expect(ok.validator.validate({}).valid).toBe(true);
  });
});
