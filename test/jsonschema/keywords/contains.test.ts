import { describe, expect, it } from "vitest";
import { accepts, errorsOf, refusal } from "../helpers.js";

describe("contains / minContains / maxContains", () => {
  it("needs one match by default", () => {
    const ok = accepts({ contains: { type: "number" } });
    expect(ok(["a", 1])).toBe(true);
    expect(ok(["a"])).toBe(false);
    expect(ok([])).toBe(false);
    expect(ok("not an array")).toBe(true);
  });

  it("counts matches against the bounds", () => {
    const ok = accepts({ contains: { const: 1 }, minContains: 2, maxContains: 3 });
    expect(ok([1, 2, 1])).toBe(true);
    expect(ok([1, 2])).toBe(false);
    expect(ok([1, 1, 1, 1])).toBe(false);
    expect(accepts({ contains: { const: 1 }, minContains: 0 })([])).toBe(true);
  });

  it("ignores min/maxContains without contains", () => {
    expect(accepts({ minContains: 5 })([])).toBe(true);
  });

  it("reports counts, not items", () => {
    expect(errorsOf({ contains: { const: 1 }, maxContains: 1 }, [1, 1])[0]!.message).toBe(
      "Expected at most 1 item matching contains",
    );
  });

  it("refuses negative bounds", () => {
    expect(refusal({ contains: {}, minContains: -1 }).code).toBe("malformed");
  });
});
