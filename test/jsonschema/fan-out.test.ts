/** The static fan-out count lint uses (src/jsonschema/fan-out.ts) against the runtime's step count. */
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/jsonschema/index.js";
import { worstFanOut } from "../../src/jsonschema/fan-out.js";

function chain(keyword: string, n: number): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) defs[`l${i}`] = { [keyword]: [{ $ref: `#/$defs/l${i + 1}` }, { $ref: `#/$defs/l${i + 1}` }] };
  defs[`l${n}`] = {};
  return { $ref: "#/$defs/l0", $defs: defs };
}

describe("worstFanOut", () => {
  it("counts every in-place step: two branches of a ref each per level", () => {
    // Per level: 2 x (branch + ref) = 4 steps plus twice the level below; the root's ref adds one.
    const expected = (n: number): number => (n === 0 ? 0 : 4 + 2 * expected(n - 1));
    expect(worstFanOut(chain("allOf", 5), 1e9)).toEqual({ steps: 1 + expected(5), pointer: "" });
  });

  it("matches the runtime's budget: under it validates, over it fails with maxSteps", () => {
    const small = chain("allOf", 5);
    const steps = worstFanOut(small, 1e9).steps;
    const at = (maxSteps: number) => {
      const r = compileSchema(small, { maxSteps });
      if (!r.ok) throw new Error("refused");
      return r.validator.validate({});
    };
    expect(at(steps).valid).toBe(true);
    expect(at(steps - 1).errors[0]!.keyword).toBe("maxSteps");
  });

  it("saturates past the cap and names the first position over it", () => {
    expect(worstFanOut(chain("anyOf", 40), 1000)).toEqual({ steps: 1001, pointer: "" });
  });

  it("follows anchors, not, if with the larger branch, dependentSchemas", () => {
    const s = { $defs: { a: { $anchor: "A", not: {} } }, allOf: [{ $ref: "#A" }], if: {}, then: { allOf: [{}, {}, {}] }, else: {}, dependentSchemas: { x: {} } };
    // allOf branch 1 + ref 1 + not 1; if 1; then 1 + 3; dependentSchemas 1
    expect(worstFanOut(s, 1e9).steps).toBe(9);
  });
});
