/**
 * Every-error mode (the default) runs the fast pass first and, on a failure, a collecting
 * pass from the root that skips, in the loops on the fast pass's failure path, the members
 * the fast pass already found valid (context.ts markFailure / skipTo). Regression guard for
 * that shortcut: the errors must be exactly those of a collecting pass that skips nothing.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/jsonschema/index.js";
import type { ValidationResult } from "../../src/jsonschema/index.js";
import { compileGraph } from "../../src/jsonschema/compile.js";
import { collectingState } from "../../src/jsonschema/context.js";
import { DEFAULT_MAX_STEPS } from "../../src/jsonschema/steps.js";
import { measure } from "../../src/jsonschema/limits.js";
import { DEFS, instance, schema } from "./arbitraries.js";
import { FAST_PATHS } from "./helpers.js";

/** The answer without the shortcut: limits, then a collecting pass from the root, every error. */
function reference(root: unknown, x: unknown): ValidationResult {
  const g = compileGraph(root, {});
  if (!g.ok) throw new Error("refused");
  const fault = measure(x, 128, 10_000, false);
  if (fault !== null) throw new Error("the instances here stay within the limits");
  const st = collectingState(false, 0, 128 * 4, DEFAULT_MAX_STEPS);
  const ok = g.root.validate(x, st, null, "");
  if (ok) return { valid: true, errors: [] };
  if (st.errors.length === 0) {
    return { valid: false, errors: [{ instancePath: "", keywordLocation: "", keyword: "schema", message: "Value does not match the schema" }] };
  }
  return { valid: false, errors: st.errors };
}

describe.each(FAST_PATHS)("every-error mode (collecting after a marked fast pass), $mode", ({ generateAfter }) => {
  it("reports exactly the collecting pass's errors on random schemas and instances", () => {
    let failures = 0;
    let many = 0;
    fc.assert(
      fc.property(schema, fc.array(instance, { minLength: 1, maxLength: 6 }), (s, xs) => {
        const root = typeof s === "boolean" ? s : { ...(s as object), $defs: DEFS };
        const r = compileSchema(root, { allErrors: true, generateAfter });
        if (!r.ok) throw new Error("refused");
        // Each instance twice: remembered key orders are exercised across calls.
        for (const x of [...xs, ...xs]) {
          const got = r.validator.validate(x);
          expect(got, JSON.stringify({ schema: root, instance: x })).toEqual(reference(root, x));
          if (!got.valid) failures++;
          if (got.errors.length > 1) many++;
        }
      }),
      { numRuns: 400, seed: 20_261_204 },
    );
    expect(failures).toBeGreaterThan(200);
    expect(many).toBeGreaterThan(20);
  });

  it("members before the failing one are skipped, the failing one and those after it collected", () => {
    const s = {
      type: "object",
      properties: {
        jobs: {
          type: "array",
          items: {
            type: "object",
            required: ["name"],
            properties: { name: { type: "string" }, frames: { type: "array", prefixItems: [{ type: "integer" }, { type: "integer" }], items: { type: "string" } } },
            patternProperties: { "^x-": { type: "number" } },
            additionalProperties: false,
          },
        },
        tags: { type: "array", items: { type: "string" } },
      },
    };
    const r = compileSchema(s, { allErrors: true, generateAfter });
    if (!r.ok) throw new Error("refused");
    const cases: unknown[] = [
      { jobs: [{ name: "a" }, { name: "b", frames: [1, "x", "y", 3] }, { name: 3 }], tags: ["a", 1, 2] },
      { jobs: [{ name: "a", "x-1": 1 }, { name: "b", "x-2": "no", extra: 1 }, {}], tags: [] },
      { tags: ["a", 1], jobs: [{ name: 1, frames: ["a"] }] },
      { jobs: [{ name: "a" }, { name: "b" }], tags: ["a", "b", 3] },
    ];
    for (let round = 0; round < 3; round++) {
      for (const x of cases) expect(r.validator.validate(x), JSON.stringify(x)).toEqual(reference(s, x));
    }
  });
});
